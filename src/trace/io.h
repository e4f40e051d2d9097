// Reading and writing the text trace format (docs/trace-format.md). Reading validates everything
// before the simulation starts; each error is one line "file:line: what is wrong".
#pragma once
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "trace/source.h"

namespace simfa::trace {

// Reads one kernel from files and directories (a directory contributes its *.sft files in name
// order). Exactly one KERNEL line overall; DEF_TMAPs anywhere before their first use in a file or
// in an earlier file. Throws UserError.
MemoryTrace read_trace_paths(const std::vector<std::string>& paths);
// Reads one kernel from text; `name` is used as the file name in messages.
MemoryTrace read_trace_text(std::string_view text, const std::string& name = "<trace>");

// Streaming writer: header, KERNEL line and tensor maps, then CTA and WG sections. The output of
// write + read equals the input exactly.
class TraceWriter {
 public:
  explicit TraceWriter(std::ostream& os) : os_(os) {}
  void header(const KernelInfo& k);  // SIMFA_TRACE line, KERNEL line, DEF_TMAP lines
  void file_header();                // just the SIMFA_TRACE line (for per-CTA files)
  void begin_cta(std::uint32_t id);
  void begin_wg(std::uint32_t index, std::string_view role);
  void instr(const Instr& in);

 private:
  std::ostream& os_;
};

void write_trace(std::ostream& os, const MemoryTrace& t);
// Writes a kernel as a directory: kernel.sft (header and maps) and one cta_NNNNNN.sft per CTA,
// pulling instructions through the source (so generated traces stream to disk).
void write_trace_dir(const std::string& dir, TraceSource& src);

}  // namespace simfa::trace
