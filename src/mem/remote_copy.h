// RemoteCopy proxy (§4.3): Hopper's policy for the two L2 partitions is undisclosed, so the model
// keeps one home slice per line (a unified LLC) and, when a read from an SM is served by a slice of
// the other partition, may insert a shadow copy of the line into the requester's near mirror slice,
// where it competes with regular lines for capacity and serves later reads at near latency.
// The insertion happens with probability `max_probability` while shadow lines fill less than
// `occupancy_threshold` of the mirror slice, and never above it. Deterministic: one seeded stream.
#pragma once
#include <cstdint>

#include "mem/hierarchy_params.h"
#include "sim/rng.h"

namespace simfa::mem {

class RemoteCopy {
 public:
  explicit RemoteCopy(const L2Params& p)
      : enabled_(p.remote_copy),
        p_(p.rc_max_probability),
        threshold_(p.rc_occupancy_threshold),
        rng_(p.seed, "l2.remote_copy") {}

  bool enabled() const { return enabled_; }
  // Decides whether to insert a shadow line into a slice holding `shadow_lines` of `lines`.
  bool insert(std::uint32_t shadow_lines, std::uint32_t lines) {
    if (static_cast<double>(shadow_lines) >= threshold_ * lines) return false;
    if (p_ >= 1.0) return true;
    return rng_.uniform() < p_;
  }

 private:
  bool enabled_;
  double p_, threshold_;
  Rng rng_;
};

}  // namespace simfa::mem
