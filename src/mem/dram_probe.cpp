// DRAM probe: a private engine and DRAM; one read at a time to a line drawn from a seeded stream
// over 4 GiB, the next issued 400 cycles after the previous answer (the pace of a pointer chase,
// whose hop is an L2 round trip). Results are cached by the resolved dram.* configuration.
#include "mem/dram_probe.h"

#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "mem/dram/dram.h"
#include "sim/config.h"
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/rng.h"

namespace simfa::mem {
namespace {

class Probe final : public DramClient {
 public:
  void on_dram_response(const DramReq&, Cycle now) override { done_at = now; }
  void on_dram_retry(std::uint32_t, Cycle) override {}
  Cycle done_at = kNever;
};

double measure(const Config& cfg) {
  constexpr int kReads = 2048;
  constexpr Cycle kGap = 400;
  constexpr Cycle kMaxReadCycles = 10'000'000;
  Engine engine;
  Probe probe;
  auto dram = make_dram(cfg, engine, &probe);
  Rng rng(1, "dram.probe");
  const auto line = static_cast<Addr>(cfg.u("mem.line_bytes"));
  double sum = 0;
  Cycle t = 0;
  for (int i = 0; i < kReads; ++i) {
    DramReq r;
    r.line = (Addr{1} << 36) + rng.below((Addr{4} << 30) / line) * line;
    probe.done_at = kNever;
    // Let the DRAM reach cycle t (refresh and idle time pass), then offer the read.
    engine.run([&] { return engine.now() >= t; }, t);
    const Cycle at = std::max(t, engine.now());
    SIMFA_ASSERT(dram->try_enqueue(r, at), "dram probe", "an idle DRAM refused a read");
    // Bounded: a DRAM whose timing leaves no room for reads must not hang the run before it starts.
    engine.run([&] { return probe.done_at != kNever; }, at + kMaxReadCycles);
    if (probe.done_at == kNever)
      user_error("dram.timing.*: a lone DRAM read took more than {} cycles (the DRAM latency probe before the run); "
                 "the timing leaves no time for reads",
                 kMaxReadCycles);
    sum += static_cast<double>(probe.done_at - at);
    t = probe.done_at + kGap;
  }
  return sum / kReads;
}

}  // namespace

double mean_random_read_latency(const Config& cfg) {
  std::string key;
  const nlohmann::json all = cfg.to_json();
  for (const auto& [k, v] : all.items())
    if (k.rfind("dram.", 0) == 0 || k == "gpu.clock" || k == "mem.line_bytes") key += k + "=" + v.dump() + ";";
  static std::mutex mu;
  static std::map<std::string, double> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const double v = measure(cfg);
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(key, v);
  return v;
}

}  // namespace simfa::mem
