// The memory microbenchmarks of `simfa microbench`, run on the simulated GPU through the public
// run API (api/run.h): each builds generator traces (sources.h), runs them and reports a Result
// whose columns match the measured CSVs of ../shared/reference/measured.
//   load-latency, tma-latency  pointer chase over working sets (microbench-methods.md)
//   tma-bandwidth              bulk / 1D / 2D / 3D TensorMap copies, 1-4 blocks per SM
//   dram-bandwidth             streaming bulk copies from every SM; fraction of the DRAM peak
//   kv-stream                  FA3's K/V tile pattern, L2-resident: slice hash and coalescer
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "microbench/result.h"
#include "microbench/sources.h"
#include "sim/config.h"

namespace simfa::microbench {

// Cycles of loop work per hop of the TMA chase besides the copy and its wait (mbarrier
// arrive.expect_tx, the try_wait loop and the shared-memory load of the next index). Calibrated
// once on the L2-hit floor of tma_latency.csv (369.1 cycles) against the simulated floor with no
// bubble, the memory system and core held at their own calibrated values (docs/validation.md).
inline constexpr std::uint32_t kTmaHopBubble = 67;
// The same for the chase loop of the gpu/ kit (gpu/ubench/latency.cu: arrive.expect_tx, copy,
// try_wait loop, volatile shared-memory load), calibrated the same way on the H200 run's
// tma_latency.csv: L2 floor 350.3 cycles - (40 launch + 275 near hit + 4 issue) = 31; pass it
// with --hop-bubble when comparing with a kit file (docs/validation.md).
inline constexpr std::uint32_t kKitTmaHopBubble = 31;

struct BandwidthCase {
  CopyShape shape;
  std::uint32_t blocks = 0;
};

struct Options {
  // Latency: working sets in KiB (empty: 2 KiB to 2 GiB, ratio `ws_ratio`).
  std::vector<double> working_sets_kib;
  double ws_ratio = 1.5;
  std::uint64_t hops = 2000;            // measured hops per point
  std::uint64_t warmup_passes = 1;      // warm-up: passes over the working set ...
  std::uint64_t warmup_max = 1u << 20;  // ... but at most this many hops
  std::uint32_t hop_bubble = kTmaHopBubble;
  // Bandwidth: cases (empty: the reference's 28 shapes x 1-4 blocks per SM).
  std::vector<BandwidthCase> cases;
  std::uint64_t array_bytes = 4ull << 30;  // the array the copies walk
  std::uint64_t sim_bytes = 32ull << 20;   // bytes simulated per case (a prefix of the walk)
  std::uint64_t min_copies_per_block = 8;
  std::uint32_t dram_blocks_per_sm = 4;
  std::uint64_t kv_copies = 64;          // kv-stream: tiles per CTA
  std::uint64_t kv_rows = 2048;          // kv-stream: rows walked (16 tiles, 512 KiB), then wrap
  bool skip_idle = true;
  std::uint64_t seed = 1;
  std::function<void(const std::string&)> progress;  // one line per point, when set
};

const std::vector<std::string>& names();
// Runs microbenchmark `name` on `cfg`. Throws UserError for an unknown name or bad options.
Result run(const std::string& name, const Config& cfg, const Options& o);

// The reference's copy shapes (tma_bandwidth.csv) for 1..4 blocks per SM of `num_sms` SMs.
std::vector<BandwidthCase> default_bandwidth_cases(int num_sms, std::uint64_t array_bytes);

Result latency(const Config& cfg, const Options& o, bool tma);
Result tma_bandwidth(const Config& cfg, const Options& o);
Result dram_bandwidth(const Config& cfg, const Options& o);
Result kv_stream(const Config& cfg, const Options& o);

}  // namespace simfa::microbench
