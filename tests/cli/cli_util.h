// Running the `simfa` program from a test: exit code and output (stdout and stderr together).
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace simfa::test {

struct Out {
  int rc;            // exit code; 128 + N when killed by signal N
  std::string text;  // stdout and stderr
};

// Runs `simfa ARGS` through the shell (so ARGS may hold redirections and quotes).
inline Out simfa(const std::string& args, const std::string& shell_prefix = "") {
  const std::string cmd = shell_prefix + std::string(SIMFA_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) text.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status), text};
}

// A file in the temporary folder named simfa_cli_NAME holding `content`; returns its path.
inline std::string temp_file(const std::string& name, const std::string& content) {
  auto path = std::filesystem::temp_directory_path() / ("simfa_cli_" + name);
  std::ofstream(path, std::ios::binary) << content;
  return path.string();
}

}  // namespace simfa::test
