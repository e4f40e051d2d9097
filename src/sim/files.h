// Reading and writing the files a user names, so that no input can hang or crash simfa and no
// output is lost silently: inputs are read only from regular files (a FIFO would block forever),
// bounded in size where the whole file is read; outputs go to a temporary file in the same folder
// that is flushed, checked and renamed into place, so a failed write (a full file system) is an
// error naming the file and never leaves a half-written file that looks complete. Every failure
// is a UserError naming the path.
#pragma once
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

namespace simfa {

// `text` quoted for a message: printable ASCII as is, other bytes (NUL, terminal escapes, UTF-8)
// as \xNN, and cut after `max` characters with the total length noted. Use it wherever raw input
// is echoed.
std::string quote(std::string_view text, std::size_t max = 64);
// The same without the quotes, for a library's message that may carry raw input.
std::string printable(std::string_view text, std::size_t max = 200);

// Checks that `path` names a regular file (following symlinks) that can be opened for reading.
// UserError "PATH: no such file or directory", "PATH: is a directory, not a WHAT", "PATH: not a
// regular file (a FIFO, socket or device); WHATs are read from regular files", "PATH: cannot
// open WHAT: REASON".
void check_input_file(const std::string& path, std::string_view what);

// The whole content of the regular file `path` (see check_input_file); UserError when larger than
// `max_bytes` ("PATH: N bytes; a WHAT may be at most M").
std::string read_input_file(const std::string& path, std::string_view what, std::uint64_t max_bytes);

// An input stream over a regular file (see check_input_file).
std::ifstream open_input_file(const std::string& path, std::string_view what,
                              std::ios::openmode mode = std::ios::in);

// The output file name that means standard output.
inline constexpr std::string_view kStdout = "-";

// An output file written under a temporary name in the destination's folder and renamed into
// place by commit(). Destroyed without commit() (an exception on the way), the temporary goes.
// UserError (naming `path`) when it cannot be created, written or renamed. The path "-" is
// standard output (written directly, flushed and checked by commit()).
class OutputFile {
 public:
  explicit OutputFile(std::string path, std::ios::openmode mode = std::ios::out);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return *os_; }
  // Flushes, closes and checks the temporary, then renames it to the path.
  void commit();

 private:
  std::string path_, target_, tmp_;  // as named, the file written (links resolved), the temporary
  std::ofstream out_;
  std::ostream* os_ = &out_;  // out_, or std::cout for "-"
  bool done_ = false;
};

// Writes `content` to `path` through an OutputFile ("-": standard output).
void write_output_file(const std::string& path, std::string_view content);

// Before a long run: UserError "WHAT PATH: ..." unless an OutputFile could be written at `path`
// (a name, not a directory, in an existing folder that can be written; or "-"). Creates nothing.
void check_output_path(const std::string& path, std::string_view what);
// The same for an output folder (trace::write_trace_dir creates it): an existing folder that can be
// written, or a path whose nearest existing ancestor is one. Creates nothing.
void check_output_dir(const std::string& path, std::string_view what);

}  // namespace simfa
