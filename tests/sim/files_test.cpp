// Files a user names (issue 20): inputs only from regular files, bounded; outputs renamed into
// place only when completely written; raw input quoted and cut in messages.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_test_util.h"
#include "sim/error.h"
#include "sim/files.h"
#include "sim/host.h"

namespace simfa {
namespace {

namespace fs = std::filesystem;

using test::error_of;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / fmt::format("simfa_files_test_{}_{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(Files, QuotedEscapesAndCuts) {
  EXPECT_EQ(quote("abc"), "'abc'");
  EXPECT_EQ(quote(std::string("a\0b\x1b[", 5)), "'a\\x00b\\x1b['");
  EXPECT_EQ(quote(std::string(100, 'x'), 4), "'xxxx'... (100 bytes)");
  EXPECT_EQ(printable("\xff\n"), "\\xff\\x0a");
}

TEST(Files, AFifoIsRejectedWithoutOpeningIt) {
  const fs::path d = scratch("fifo");
  const std::string fifo = (d / "pipe.toml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer ever opens the FIFO: reading it would block forever. The check comes first.
  auto e = error_of([&] { read_input_file(fifo, "configuration file", 1 << 20); });
  EXPECT_NE(e.find(fifo + ": not a regular file (a FIFO, socket or device)"), std::string::npos) << e;
  e = error_of([&] { open_input_file(fifo, "trace file"); });
  EXPECT_NE(e.find(fifo + ": not a regular file"), std::string::npos) << e;
  fs::remove_all(d);
}

TEST(Files, DirectoriesMissingAndOversizedInputsAreNamed) {
  const fs::path d = scratch("inputs");
  auto e = error_of([&] { read_input_file(d.string(), "CSV file", 100); });
  EXPECT_NE(e.find(d.string() + ": is a directory, not a CSV file"), std::string::npos) << e;
  e = error_of([&] { read_input_file((d / "none").string(), "CSV file", 100); });
  EXPECT_NE(e.find("none: no such file or directory"), std::string::npos) << e;
  std::ofstream((d / "big").string()) << std::string(200, 'x');
  e = error_of([&] { read_input_file((d / "big").string(), "CSV file", 100); });
  EXPECT_NE(e.find("big: 200 bytes; a CSV file may be at most 100 bytes"), std::string::npos) << e;
  EXPECT_EQ(read_input_file((d / "big").string(), "CSV file", 200), std::string(200, 'x'));
  fs::remove_all(d);
}

TEST(Files, OutputAppearsOnlyWhenCommitted) {
  const fs::path d = scratch("out");
  const std::string path = (d / "out.json").string();
  {
    OutputFile f(path);
    f.stream() << "half";
    // An exception before commit(): no file, no temporary.
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(d));
  write_output_file(path, "whole\n");
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "whole");
  EXPECT_TRUE(fs::is_regular_file(path));
  fs::remove_all(d);
}

TEST(Files, AFailedWriteIsAnErrorAndKeepsTheOldFile) {
  const fs::path d = scratch("full");
  const std::string path = (d / "out.csv").string();
  write_output_file(path, "old\n");
  // A file-size limit makes writes fail as on a full file system (EFBIG instead of ENOSPC).
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto e = error_of([&] { write_output_file(path, std::string(1 << 20, 'x')); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  EXPECT_NE(e.find(path + ": write failed"), std::string::npos) << e;
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);  // no temporary left
  fs::remove_all(d);
}

TEST(Files, DevicesAreWrittenInPlace) {
  write_output_file("/dev/null", "nothing");
  if (fs::exists("/dev/full")) {
    auto e = error_of([] { write_output_file("/dev/full", std::string(1 << 16, 'x')); });
    EXPECT_NE(e.find("/dev/full: write failed"), std::string::npos) << e;
  }
  auto e = error_of([] { write_output_file("", "x"); });
  EXPECT_NE(e.find("empty"), std::string::npos) << e;
  const fs::path d = scratch("dir");
  e = error_of([&] { write_output_file(d.string(), "x"); });
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
  fs::remove_all(d);
}

TEST(Host, AnAllocationBeyondTheMachineIsAnErrorSayingHowMuch) {
  const std::uint64_t have = host_memory_bytes();
  if (have == 0) GTEST_SKIP() << "host memory unknown";
  check_host_memory(have / 2, "half");
  auto e = error_of([&] { check_host_memory(have * 2, "the caches"); });
  EXPECT_NE(e.find("the caches would take about"), std::string::npos) << e;
  EXPECT_NE(e.find("GiB of host memory; this machine has"), std::string::npos) << e;
}

}  // namespace
}  // namespace simfa
