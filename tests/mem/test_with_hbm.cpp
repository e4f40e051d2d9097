// The hierarchy on the real HBM model (presets): unloaded misses reproduce the measured near and
// far miss latencies within the DRAM's own variation (refresh, open rows).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "api/run.h"
#include "harness.h"
#include "sim/rng.h"
#include "mem/dram/params.h"

namespace simfa::mem::test {
namespace {

struct HbmHarness {
  Engine engine;
  std::unique_ptr<MemorySystem> mem;
  std::vector<std::unique_ptr<MockSm>> sms;
  explicit HbmHarness(const std::string& gpu, int num_sms = 4) {
    Config cfg = make_config(gpu, {"mem.model=hierarchy"});
    mem = make_memory_system(cfg, engine, num_sms);
    for (int i = 0; i < num_sms; ++i)
      sms.push_back(std::make_unique<MockSm>(engine, *mem, static_cast<std::uint16_t>(i)));
  }
  bool run() {
    for (auto& s : sms) s->start();
    return engine.run([&] {
      for (auto& s : sms)
        if (!s->done()) return false;
      return true;
    });
  }
};

double mean_latency(const MockSm& sm) {
  double sum = 0;
  for (const auto& r : sm.responses) sum += static_cast<double>(r.at - sm.sent_at.at(r.req.tag));
  return sum / static_cast<double>(sm.responses.size());
}

TEST(WithHbm, SparseRandomMissesAverageTheMeasuredMissLatencies) {
  for (const char* gpu : {"h800", "h800-pcie"}) {
    HbmHarness h(gpu);
    Rng rng(5, "lines");
    for (int i = 0; i < 400; ++i)
      h.sms[0]->add((Addr{1} << 36) + rng.below(1u << 24) * 128, ReqKind::TmaLoad, i * 3000);
    ASSERT_TRUE(h.run());
    const double m = mean_latency(*h.sms[0]);
    if (std::getenv("SIMFA_DEBUG")) {
      std::fprintf(stderr, "%s mean %.1f\n", gpu, m);
      for (int i = 0; i < 40; ++i) {
        const auto& r = h.sms[0]->responses[i];
        std::fprintf(stderr, " %lu", (unsigned long)(r.at - h.sms[0]->sent_at[r.req.tag]));
      }
      std::fprintf(stderr, "\n");
    }
    // Half near (555.5), half far (743.7) misses; the DRAM's refresh adds a little.
    EXPECT_NEAR(m, (555.5 + 743.7) / 2, 30) << gpu;
  }
}

}  // namespace
}  // namespace simfa::mem::test
