// The hierarchy on the real HBM model (presets): unloaded misses reproduce the measured near and
// far miss latencies within the DRAM's own variation (refresh, open rows).
#include <gtest/gtest.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "api/run.h"
#include "dram/dram_doc_util.h"
#include "harness.h"
#include "sim/rng.h"
#include "mem/dram/params.h"

namespace simfa::mem::test {
namespace {

struct HbmHarness {
  Engine engine;
  std::unique_ptr<MemorySystem> mem;
  std::vector<std::unique_ptr<MockSm>> sms;
  explicit HbmHarness(const std::string& gpu, int num_sms = 4, std::vector<std::string> sets = {}) {
    sets.insert(sets.begin(), "mem.model=hierarchy");
    Config cfg = make_config(gpu, sets);
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

struct Preset {
  const char* gpu;
  std::vector<std::string> sets;
  double near_miss, far_miss;
};

TEST(WithHbm, SparseRandomMissesAverageTheMeasuredMissLatencies) {
  for (const Preset& p : {Preset{"h800", {}, 555.5, 743.7}, Preset{"h800-pcie", {}, 555.5, 743.7},
                          // the H200 figures are SM cycles at the 1980 MHz of its measurements
                          Preset{"h200", {"gpu.clock=1980MHz"}, 569.2, 736.6}}) {
    HbmHarness h(p.gpu, 4, p.sets);
    Rng rng(5, "lines");
    for (int i = 0; i < 400; ++i)
      h.sms[0]->add((Addr{1} << 36) + rng.below(1u << 24) * 128, ReqKind::TmaLoad, i * 3000);
    ASSERT_TRUE(h.run());
    const double m = mean_latency(*h.sms[0]);
    if (std::getenv("SIMFA_DEBUG")) {
      std::fprintf(stderr, "%s mean %.1f\n", p.gpu, m);
      for (int i = 0; i < 40; ++i) {
        const auto& r = h.sms[0]->responses[i];
        std::fprintf(stderr, " %lu", (unsigned long)(r.at - h.sms[0]->sent_at[r.req.tag]));
      }
      std::fprintf(stderr, "\n");
    }
    // Half near, half far misses; the DRAM's refresh adds a little.
    EXPECT_NEAR(m, (p.near_miss + p.far_miss) / 2, 30) << p.gpu;
  }
}

// The H200 preset: 96 slices (not a power of two) in two partitions of 48, 132 SMs in 66 pairs
// (33 per partition), 94 DRAM channels. Every slice is some line's home, and an unloaded access
// from either partition takes exactly the preset's near or far figure.
TEST(WithHbm, H200SlicesAndPartitionsGiveThePresetsHitLatencies) {
  HbmHarness h("h200", 132, {"gpu.clock=1980MHz"});
  const auto* hier = dynamic_cast<const Hierarchy*>(h.mem.get());
  ASSERT_NE(hier, nullptr);
  const Crossbar& x = hier->crossbar();
  std::vector<int> homes(96, 0);
  for (Addr a = 0; a < 96 * 64 * 128; a += 128) ++homes.at(hier->home_slice(a));
  EXPECT_EQ(std::count(homes.begin(), homes.end(), 0), 0);
  for (std::uint32_t s = 0; s < 96; ++s) EXPECT_EQ(x.slice_partition(s), s < 48 ? 0u : 1u) << s;
  EXPECT_EQ(x.sm_partition(0), 0u);
  EXPECT_EQ(x.sm_partition(65), 0u);   // SM pair 32 of 66
  EXPECT_EQ(x.sm_partition(66), 1u);   // SM pair 33
  EXPECT_EQ(x.sm_partition(131), 1u);
  Addr a = 0;
  while (x.slice_partition(hier->home_slice(a)) != 0) a += 128;
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);       // near miss: fills the line in partition 0
  h.sms[0]->add(a, ReqKind::TmaLoad, 3000);    // near hit
  h.sms[131]->add(a, ReqKind::TmaLoad, 6000);  // far hit: probe of its near mirror, then home
  ASSERT_TRUE(h.run());
  auto lat = [](const MockSm& sm, std::size_t i) {
    return sm.responses.at(i).at - sm.sent_at.at(sm.responses.at(i).req.tag);
  };
  EXPECT_EQ(lat(*h.sms[0], 1), 275u);    // mem.l2.near_hit_latency 275.3
  EXPECT_EQ(lat(*h.sms[131], 0), 443u);  // mem.l2.far_hit_latency 442.7
}

// The [dram] blocks of docs/dram.md are what the presets resolve to (the doc's tests load the blocks
// on their own; this keeps them equal to configs/gpu/*.toml).
TEST(WithHbm, PresetsResolveToTheirDramBlocksInTheDocs) {
  const std::map<std::string, std::string> blocks = doc_blocks();
  const std::pair<const char*, const char*> presets[] = {
      {"h800", "# dram section of configs/gpu/h800.toml and configs/gpu/h100.toml"},
      {"h100", "# dram section of configs/gpu/h800.toml and configs/gpu/h100.toml"},
      {"h200", "# dram section of configs/gpu/h200.toml"},
      {"h800-pcie", "# dram section of configs/gpu/h800-pcie.toml"}};
  for (const auto& [gpu, head] : presets) {
    ASSERT_TRUE(blocks.count(head)) << head;
    Config doc(param_registry());
    doc.load_toml_text(blocks.at(head), "docs/dram.md");
    const auto want = doc.to_json();
    const auto got = make_config(gpu, {}).to_json();
    int n = 0;
    for (const auto& [k, v] : want.items())
      if (k.rfind("dram.", 0) == 0) {
        EXPECT_EQ(got.at(k), v) << gpu << ": " << k;
        ++n;
      }
    EXPECT_GT(n, 30) << gpu;
  }
}

}  // namespace
}  // namespace simfa::mem::test
