// Parameters of the memory hierarchy (mem.model = hierarchy): L1, L2 request coalescer, crossbar,
// partitioned L2 with MSHRs and the RemoteCopy proxy. Read once from the configuration by
// hierarchy_params_from(); the components never look at the Config themselves.
#pragma once
#include <cstdint>
#include <string>

#include "sim/types.h"

namespace simfa {
class Config;
}

namespace simfa::mem {

struct L1Params {
  bool enabled = true;
  std::uint64_t size = 256 * 1024;  // bytes
  std::uint32_t assoc = 4;
  std::string replacement = "lru";
  Cycle hit_latency = 32;   // request accepted -> response, L1 hit
  Cycle miss_latency = 6;   // added before an L1 miss leaves the SM
};

struct LrcParams {
  bool enabled = true;
  Cycle window = 512;            // a request merges with one issued at most this long ago
  std::uint32_t entries = 128;   // in-flight lines tracked per SM pair
};

struct XbarParams {
  double sm_bytes_per_cycle = 64;     // SM injection and ejection ports
  std::uint32_t header_bytes = 16;    // bytes of a request or write-ack packet besides data
  std::uint32_t sm_queue = 32;        // request packets that may wait at an SM's injection port
  std::uint32_t slice_buffer = 96;    // requests in flight toward one slice besides its queue
};

struct L2Params {
  std::uint64_t size = 50ull << 20;   // bytes, all slices
  std::uint32_t slices = 80;
  std::uint32_t partitions = 2;
  std::uint32_t assoc = 16;
  std::string replacement = "lru";
  std::string hash = "xor";
  std::uint32_t req_queue = 32;
  std::uint32_t resp_queue = 128;
  std::uint32_t mshrs = 256;
  std::uint32_t lookups_per_cycle = 1;
  double bytes_per_cycle = 64;        // response (data) port of one slice
  Cycle lookup_latency = 20;          // tag + data pipeline of one slice
  double near_hit_latency = 258;      // unloaded round trips seen by the SM (Table 2, Luo et al.)
  double far_hit_latency = 414;
  double near_miss_latency = 555.5;
  double far_miss_latency = 743.7;
  // RemoteCopy proxy (§4.3)
  bool remote_copy = true;
  double rc_max_probability = 1.0;
  double rc_occupancy_threshold = 1.0;  // fraction of a slice's lines that may be shadow lines
  std::uint64_t seed = 1;
};

struct HierarchyParams {
  std::uint32_t line_bytes = 128;
  // Mean unloaded latency of a random DRAM read (core cycles), the DRAM share of the measured
  // miss latencies (random pointer chases); the L2-DRAM link delay is derived against it. The
  // factory measures it on the DRAM model (dram_probe.h); 0 means the DRAM's closed-row
  // unloaded_read_latency() (tests with a fixed-latency DRAM).
  double dram_reference_latency = 0;
  L1Params l1;
  LrcParams lrc;
  XbarParams xbar;
  L2Params l2;
};

// Reads every mem.* key of the hierarchy; throws UserError (naming the key) for values that are
// individually valid but inconsistent (for example a slice smaller than one set).
HierarchyParams hierarchy_params_from(const Config& cfg);
// Checks consistency; throws UserError.
void validate(const HierarchyParams& p);

}  // namespace simfa::mem
