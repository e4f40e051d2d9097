// The split of the measured unloaded round trips (Table 2 and Luo et al.: near/far hit, near/far
// miss) into the one-way delays of the model's links, so that an unloaded request reproduces each
// measured figure exactly:
//   near hit  = req_near + lookup + resp_near
//   far hit   = req_near + lookup (probe of the near mirror slice) + cross + lookup + resp_far
//             = req_far + lookup + resp_far           (direct, RemoteCopy off)
//   near miss = req_near + dram + dram_link + resp_near             (lookup overlaps the DRAM access)
//   far miss  = req_far + dram + dram_link + resp_far + far_miss_extra
// where dram is the DRAM model's unloaded closed-row line read.
#pragma once
#include "mem/hierarchy_params.h"
#include "sim/types.h"

namespace simfa::mem {

struct LinkLatencies {
  Cycle req_near = 0, req_far = 0, cross = 0, resp_near = 0, resp_far = 0;
  Cycle dram_link = 0, far_miss_extra = 0;
  Cycle miss_excess = 0;  // cycles by which the DRAM alone overshoots the measured near miss
};

// Throws UserError when the figures cannot be met (far hit below near hit plus one lookup, a miss
// more than 10% faster than the DRAM itself, ...), naming the keys involved. A DRAM slightly
// slower than the near miss allows leaves a zero link delay (miss_excess records the overshoot;
// the far miss keeps its difference to the near miss).
LinkLatencies derive_latencies(const L2Params& p, Cycle dram_unloaded);

}  // namespace simfa::mem
