// Dispatch by name and the default TMA bandwidth cases (the copy shapes of tma_bandwidth.csv).
#include "microbench/microbench.h"

#include "sim/error.h"
#include "sim/variants.h"

namespace simfa::microbench {

namespace {
using Bench = Result (*)(const Config&, const Options&);
constinit const Variant<Bench> kLoadLatency{
    "load-latency", "pointer chase with ordinary loads over working sets (microbench-methods.md)",
    [](const Config& c, const Options& o) { return latency(c, o, false); }};
constinit const Variant<Bench> kTmaLatency{
    "tma-latency", "pointer chase with TMA copies over working sets (microbench-methods.md)",
    [](const Config& c, const Options& o) { return latency(c, o, true); }};
constinit const Variant<Bench> kTmaBandwidth{"tma-bandwidth",
                                             "bulk / 1D / 2D / 3D TensorMap copies, 1-4 blocks per SM", tma_bandwidth};
constinit const Variant<Bench> kDramBandwidth{
    "dram-bandwidth", "streaming bulk copies from every SM; fraction of the DRAM peak", dram_bandwidth};
constinit const Variant<Bench> kKvStream{
    "kv-stream", "FA3's K/V tile pattern, L2-resident: slice hash and coalescer", kv_stream};
const VariantList<Bench>& benches() {
  static const VariantList<Bench> list("simfa microbench", "microbenchmark",
                                       {&kLoadLatency, &kTmaLatency, &kTmaBandwidth, &kDramBandwidth, &kKvStream});
  return list;
}
}  // namespace

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = benches().names();
  return n;
}

Result run(const std::string& name, const Config& cfg, const Options& o) {
  const auto& bench = benches().get(name);
  // Every microbenchmark reports L2 and DRAM statistics, which only the hierarchy has.
  if (cfg.s("mem.model") != "hierarchy")
    user_error("simfa microbench {}: mem.model = {} ({}) has no L2 or DRAM to measure; use mem.model=hierarchy", name,
               cfg.s("mem.model"), cfg.origin("mem.model"));
  return bench.make(cfg, o);
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
