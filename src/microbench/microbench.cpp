// Dispatch by name and the default TMA bandwidth cases (the copy shapes of tma_bandwidth.csv).
#include "microbench/microbench.h"

#include "sim/error.h"

namespace simfa::microbench {

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = {"load-latency", "tma-latency", "tma-bandwidth",
                                             "dram-bandwidth", "kv-stream"};
  return n;
}

Result run(const std::string& name, const Config& cfg, const Options& o) {
  if (name == "load-latency") return latency(cfg, o, false);
  if (name == "tma-latency") return latency(cfg, o, true);
  if (name == "tma-bandwidth") return tma_bandwidth(cfg, o);
  if (name == "dram-bandwidth") return dram_bandwidth(cfg, o);
  if (name == "kv-stream") return kv_stream(cfg, o);
  user_error("unknown microbenchmark '{}' (known: load-latency, tma-latency, tma-bandwidth, "
             "dram-bandwidth, kv-stream)", name);
}

std::vector<BandwidthCase> default_bandwidth_cases(int num_sms, std::uint64_t array_bytes) {
  struct S {
    const char* kind;
    const char* box;
    double kib;
  };
  // The shapes of ../shared/reference/measured/h800-pcie/tma_bandwidth.csv, in its order.
  static const S shapes[] = {
      {"bulk", "", 1},   {"bulk", "", 2},   {"bulk", "", 8},   {"bulk", "", 12},
      {"bulk", "", 16},  {"bulk", "", 4},   {"tensor1d", "", 0.5}, {"tensor1d", "", 0.75},
      {"tensor1d", "", 1.25}, {"tensor1d", "", 1.5}, {"tensor1d", "", 2}, {"tensor1d", "", 1},
      {"tensor2d", "16x16", 1}, {"tensor2d", "32x16", 2}, {"tensor2d", "32x32", 4},
      {"tensor2d", "64x32", 8}, {"tensor2d", "96x32", 12}, {"tensor2d", "64x64", 16},
      {"tensor3d", "8x8x4", 1}, {"tensor3d", "8x8x8", 2}, {"tensor3d", "16x8x8", 4},
      {"tensor3d", "16x16x8", 8}, {"tensor3d", "16x16x12", 12}, {"tensor3d", "16x16x16", 16},
      {"tensor3d", "64x64x1", 16}, {"tensor3d", "256x16x1", 16}, {"tensor3d", "16x256x1", 16},
      {"tensor3d", "4x4x256", 16}};
  std::vector<BandwidthCase> v;
  for (const auto& s : shapes)
    for (int per_sm = 1; per_sm <= 4; ++per_sm)
      v.push_back({CopyShape::parse(s.kind, s.box, s.kib, array_bytes),
                   static_cast<std::uint32_t>(per_sm * num_sms)});
  return v;
}

}  // namespace simfa::microbench
