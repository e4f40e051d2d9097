// The L1 data cache of each SM, for ordinary loads (ReqKind::Load) only: TMA copies bypass it.
// Sectored, allocate on fill when the L2 data comes back; stores and TMA stores write through and
// invalidate the line. Functional: latencies are applied by the hierarchy.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "mem/hierarchy_params.h"
#include "mem/tag_array.h"

namespace simfa::mem {

class L1Cache {
 public:
  L1Cache(const L1Params& p, std::uint32_t line_bytes, int num_sms, std::uint64_t seed);

  // True when every sector of `line` in `sectors` is present in SM `sm`'s L1 (updates recency).
  bool hit(std::uint16_t sm, std::uint64_t line, std::uint8_t sectors);
  void fill(std::uint16_t sm, std::uint64_t line, std::uint8_t sectors);
  void invalidate(std::uint16_t sm, std::uint64_t line);

  std::uint64_t hits = 0, misses = 0;

 private:
  std::vector<TagArray> caches_;
};

}  // namespace simfa::mem
