// Log writer: thin wrappers around evlog::write_file (the one encoder of the format).
#include "instr/log_writer.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "instr/error.h"

namespace simfa::instr {

std::vector<unsigned char> encode_log(const FileHeader& header,
                                      const std::vector<simfa_tensormap_desc>& tensormaps,
                                      const evlog::BufferView& buffers) {
  std::ostringstream out(std::ios::binary);
  evlog::write_file(out, header, tensormaps, buffers);
  const std::string s = out.str();
  return {s.begin(), s.end()};
}

void write_log(const std::string& path, const FileHeader& header,
               const std::vector<simfa_tensormap_desc>& tensormaps,
               const evlog::BufferView& buffers) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw_log_error(path, "cannot open for writing");
  if (!evlog::write_file(out, header, tensormaps, buffers)) throw_log_error(path, "write failed");
}

std::vector<unsigned char> encode_log(const EventLog& log) {
  const uint64_t n = log.warps.size();
  const uint32_t cap = log.header.entries_per_warp;
  std::vector<uint32_t> counts(n), overflow(n);
  std::vector<const Entry*> ptrs(n);
  for (uint64_t w = 0; w < n; ++w) {
    const WarpLog& wl = log.warps[w];
    counts[w] = static_cast<uint32_t>(std::min<uint64_t>(wl.entries.size(), cap));
    overflow[w] = wl.overflow ? 1 : 0;
    ptrs[w] = wl.entries.data();
  }
  return encode_log(log.header, log.tensormaps,
                    {counts.data(), overflow.data(), nullptr, ptrs.data()});
}

}  // namespace simfa::instr
