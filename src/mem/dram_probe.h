// Measures the DRAM model's mean unloaded latency of random line reads: the DRAM figure behind
// the measured L2 miss latencies (random pointer chases, one read in flight, so row misses and
// conflicts and refresh all show). The hierarchy derives its L2-DRAM link delay against it.
#pragma once
#include "sim/types.h"

namespace simfa {
class Config;
}

namespace simfa::mem {

// Runs 2048 dependent random reads, 400 cycles apart, on a private instance of the DRAM that
// `cfg` describes; deterministic; cached per DRAM configuration for the life of the process.
double mean_random_read_latency(const Config& cfg);

}  // namespace simfa::mem
