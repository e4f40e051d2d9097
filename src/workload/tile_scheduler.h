// FA3's persistent tile schedulers: which output tiles each CTA of the persistent grid processes,
// and in which order (fa3-kernel.md §4.3, §5).
//
// Static (non-causal; every case in the original release): CTA b takes tile indices b, b+grid, ...;
// index -> (m fastest, then head, then batch).
// Dynamic (current FA3, causal): tile index -> (head section of `swizzle` heads, M-block reversed
// for longest-processing-time-first, head within the section). CTA b starts with tile b; later
// tiles are claimed through an atomic counter in the order CTAs finish. A trace must be fixed before
// the simulation runs, so the claim order is predicted by list scheduling with each tile's cost =
// its KV block count + fa3.dynamic_overhead_blocks (ties to the lower CTA id).
#pragma once
#include <cstdint>
#include <vector>

#include "workload/fa3_kernel.h"

namespace simfa::workload {

struct Tile {
  std::int64_t index = 0;  // scheduler tile index
  std::int64_t m_block = 0;
  std::int64_t head = 0;   // query head, or KV head with PackGQA
  std::int64_t batch = 0;
};

class TileSchedule {
 public:
  explicit TileSchedule(const Fa3Kernel& k);
  // The i-th tile of CTA `cta`; false when the CTA has fewer than i+1 tiles.
  bool tile(std::uint32_t cta, std::int64_t i, Tile& out) const;
  std::int64_t tiles_of(std::uint32_t cta) const;
  // Coordinates of scheduler tile index `idx` under this scheduler's mapping.
  Tile map(std::int64_t idx) const;
  std::int64_t swizzle() const { return swizzle_; }

 private:
  const Fa3Kernel* k_;
  std::int64_t total_ = 0;
  std::int64_t swizzle_ = 1;
  // Dynamic only: CSR of tile indices per CTA.
  std::vector<std::int64_t> offsets_, order_;
};

}  // namespace simfa::workload
