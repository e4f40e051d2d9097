// Files a user names: inputs checked to be regular files before they are opened (stat, then a
// non-blocking open so that nothing can wait on a writer); outputs through a temporary file that is
// renamed into place once flushed and closed without error.
#include "sim/files.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa {
namespace {

std::string reason(int err) {
  if (err == ENOENT) return "no such file or directory";
  std::string s = std::strerror(err);
  if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
  return s;
}

// stat() of an input: UserError unless it names a regular file.
struct stat stat_input(const std::string& path, std::string_view what) {
  if (path.empty()) user_error("an empty file name given for a {}", what);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT) user_error("{}: no such file or directory", path);
    user_error("{}: cannot read {}: {}", path, what, reason(err));
  }
  if (S_ISDIR(st.st_mode)) user_error("{}: is a directory, not a {}", path, what);
  if (!S_ISREG(st.st_mode))
    user_error("{}: not a regular file (a FIFO, socket or device); a {} is read from a regular file", path,
               what);
  return st;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t shown = 0;
  for (const char ch : text) {
    if (shown == max) break;
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') out += ch;
    else if (c == '\\') out += "\\\\";
    else out += fmt::format("\\x{:02x}", c);
    ++shown;
  }
  if (shown < text.size()) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

std::string quote(std::string_view text, std::size_t max) {
  const std::string body = printable(text.substr(0, std::min(text.size(), max)), max);
  std::string out = "'" + body + "'";
  if (text.size() > max) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

void check_input_file(const std::string& path, std::string_view what) {
  stat_input(path, what);
  // Readable? (Non-blocking: should the path have become a FIFO meanwhile, nothing waits.)
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    user_error("{}: cannot open {}: {}", path, what, reason(err));
  }
  ::close(fd);
}

std::string read_input_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
  const struct stat st = stat_input(path, what);
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    user_error("{}: {} bytes; a {} may be at most {} bytes", path, st.st_size, what, max_bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    user_error("{}: cannot open {}: {}", path, what, reason(err));
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      user_error("{}: cannot read {}: {}", path, what, reason(err));
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) {
      ::close(fd);
      user_error("{}: more than {} bytes; a {} may be at most that", path, max_bytes, what);
    }
  }
  ::close(fd);
  return text;
}

std::ifstream open_input_file(const std::string& path, std::string_view what, std::ios::openmode mode) {
  check_input_file(path, what);
  std::ifstream in(path, mode | std::ios::in);
  if (!in) user_error("{}: cannot open {}", path, what);
  return in;
}

OutputFile::OutputFile(std::string path, std::ios::openmode mode) : path_(std::move(path)) {
  if (path_.empty()) user_error("an empty output file name");
  if (path_ == kStdout) {
    os_ = &std::cout;
    return;
  }
  std::string target = path_;
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    // Write where the link points, keeping the link.
    std::error_code ec;
    const auto resolved = std::filesystem::weakly_canonical(path_, ec);
    if (!ec) target = resolved.string();
  }
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) user_error("{}: is a directory, not a file to write", path_);
    if (!S_ISREG(st.st_mode)) {
      // A device or FIFO (/dev/null, /dev/stdout): written in place, there is nothing to replace.
      target_ = target;
      out_.open(target, mode | std::ios::out);
      if (!out_) user_error("{}: cannot open for writing", path_);
      tmp_.clear();
      return;
    }
  }
  target_ = target;
  static std::atomic<unsigned> counter{0};
  tmp_ = fmt::format("{}.simfa-tmp-{}-{}", target, ::getpid(), counter++);
  out_.open(tmp_, mode | std::ios::out | std::ios::trunc);
  if (!out_) {
    const int err = errno;
    tmp_.clear();
    user_error("{}: cannot open for writing: {}", path_, reason(err));
  }
}

OutputFile::~OutputFile() {
  if (done_) return;
  out_.close();
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void OutputFile::commit() {
  if (done_) return;
  if (os_ == &std::cout) {
    done_ = true;
    if (!std::cout.flush()) user_error("standard output: write failed");
    return;
  }
  errno = 0;
  out_.flush();
  const bool wrote = static_cast<bool>(out_);
  out_.close();
  if (!wrote || out_.fail()) {
    const int err = errno;
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    done_ = true;
    user_error("{}: write failed{}", path_, err ? ": " + reason(err) : std::string());
  }
  done_ = true;
  if (tmp_.empty()) return;
  if (std::rename(tmp_.c_str(), target_.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp_.c_str());
    user_error("{}: cannot write: {}", path_, reason(err));
  }
}

void write_output_file(const std::string& path, std::string_view content) {
  OutputFile f(path, std::ios::binary);
  f.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  f.commit();
}

void check_output_path(const std::string& path, std::string_view what) {
  if (path.empty()) user_error("{}: an empty file name", what);
  if (path == kStdout) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) user_error("{} {}: is a directory, not a file to write", what, path);
    if (!S_ISREG(st.st_mode)) return;  // a device: written in place
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    user_error("{} {}: the folder {} does not exist", what, path, dir.string());
  if (::access(dir.c_str(), W_OK) != 0)
    user_error("{} {}: cannot write in the folder {}: {}", what, path, dir.string(), reason(errno));
}

void check_output_dir(const std::string& path, std::string_view what) {
  if (path.empty()) user_error("{}: an empty folder name", what);
  struct stat st {};
  std::filesystem::path dir = path;
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    user_error("{} {}: is a file, not a folder to write into", what, path);
  // The nearest folder that exists: the one written into, or the one the new folders go into.
  while (::stat(dir.c_str(), &st) != 0) {
    const auto parent = dir.has_parent_path() && dir.parent_path() != dir ? dir.parent_path() : std::filesystem::path(".");
    if (parent == dir) break;
    dir = parent;
  }
  if (!S_ISDIR(st.st_mode)) user_error("{} {}: {} is not a folder", what, path, dir.string());
  if (::access(dir.c_str(), W_OK) != 0)
    user_error("{} {}: cannot write in the folder {}: {}", what, path, dir.string(), reason(errno));
}

}  // namespace simfa
