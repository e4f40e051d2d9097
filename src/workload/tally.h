// Counts over a whole trace, pulled through any TraceSource: instructions per opcode, WGMMA FLOPs,
// bytes the TMA loads fetch and the stores write (boxes clipped to their tensor, as the TMA engine
// does). Used by tests (Eq. 1 / Eq. 2) and by `simfa trace gen` summaries.
#pragma once
#include <array>
#include <cstdint>

#include "trace/source.h"

namespace simfa::workload {

struct TraceTally {
  std::array<std::uint64_t, static_cast<int>(trace::Op::kCount)> ops{};
  std::uint64_t instructions = 0;
  std::uint64_t wgmma_flops = 0;     // 2*M*N*K per dense WGMMA
  std::uint64_t tma_load_bytes = 0;  // global bytes read (a multicast copy counts once)
  std::uint64_t tma_store_bytes = 0;
  std::uint64_t bubble_cycles = 0;
  std::uint64_t of(trace::Op op) const { return ops[static_cast<int>(op)]; }
};

// Pulls every CTA of `src` (each opened once, so use a fresh source).
TraceTally tally(trace::TraceSource& src);

// Bytes of the box at `origin` that lie inside the tensor (all of it when the map has no base).
std::uint64_t box_bytes_in_bounds(const trace::TensorMap& m, std::uint64_t origin);

}  // namespace simfa::workload
