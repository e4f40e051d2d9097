// Whole-trace counters; box clipping decomposes the origin with the map's (ascending) strides.
#include "workload/tally.h"

#include <vector>

namespace simfa::workload {

std::uint64_t box_bytes_in_bounds(const trace::TensorMap& m, std::uint64_t origin) {
  if (!m.base || origin < *m.base) return m.box_bytes();
  std::uint64_t off = origin - *m.base;
  std::uint64_t coord[trace::kMaxRank] = {};
  for (int d = m.rank - 1; d >= 1; --d) {
    coord[d] = off / m.strides[d];
    off %= m.strides[d];
  }
  coord[0] = off / m.esz;
  std::uint64_t n = 1;
  for (int d = 0; d < m.rank; ++d) {
    if (coord[d] >= m.dims[d]) return 0;
    n *= std::min<std::uint64_t>(m.box[d], m.dims[d] - coord[d]);
  }
  return n * m.esz;
}

TraceTally tally(trace::TraceSource& src) {
  TraceTally t;
  const trace::KernelInfo& k = src.kernel();
  std::vector<trace::Instr> buf(4096);
  for (std::uint32_t c = 0; c < k.ctas; ++c) {
    trace::CtaProgram p = src.open(c);
    for (auto& wg : p.wgs) {
      for (std::size_t n; (n = wg.stream->read(buf.data(), buf.size())) > 0;) {
        for (std::size_t i = 0; i < n; ++i) {
          const trace::Instr& in = buf[i];
          ++t.ops[static_cast<int>(in.op)];
          ++t.instructions;
          switch (in.op) {
            case trace::Op::WGMMA: t.wgmma_flops += 2ull * in.m * in.n * in.k; break;
            case trace::Op::TMA_TENSOR: t.tma_load_bytes += box_bytes_in_bounds(k.tmap(in.map), in.gmem); break;
            case trace::Op::TMA_BULK: t.tma_load_bytes += in.bytes(); break;
            case trace::Op::TMA_STORE: t.tma_store_bytes += box_bytes_in_bounds(k.tmap(in.map), in.gmem); break;
            case trace::Op::BUBBLE: t.bubble_cycles += in.cycles(); break;
            default: break;
          }
        }
      }
    }
  }
  return t;
}

}  // namespace simfa::workload
