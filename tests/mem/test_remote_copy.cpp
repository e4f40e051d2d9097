// RemoteCopy proxy: probability and occupancy threshold, shadow invalidation on writes.
#include <gtest/gtest.h>

#include "harness.h"

namespace simfa::mem::test {
namespace {

Cycle latency(const MockSm& sm, std::size_t i) {
  return sm.responses.at(i).at - sm.sent_at.at(sm.responses.at(i).req.tag);
}

// SM 0 reads `n` distinct far-homed lines once.
Harness& far_reads(Harness& h, int n) {
  Addr a = 0;
  for (int i = 0; i < n; ++i) {
    a = addr_in_partition(*h.mem, 1, a);
    h.sms[0]->add(a, ReqKind::TmaLoad, static_cast<Cycle>(i));
    a += 128;
  }
  EXPECT_TRUE(h.run());
  return h;
}

TEST(RemoteCopy, InsertsWithTheMaximumProbability) {
  auto p = small_params();
  p.l2.rc_max_probability = 0.5;
  Harness h(p, 2);
  far_reads(h, 800);
  const double ratio = h.stat("gpu.l2.shadow_inserts") / h.stat("gpu.l2.probes");
  EXPECT_NEAR(ratio, 0.5, 0.06);
}

TEST(RemoteCopy, ThresholdCapsShadowOccupancy) {
  auto p = small_params();
  p.l2.rc_occupancy_threshold = 0.25;  // of 256 lines per slice: 64
  Harness h(p, 2);
  far_reads(h, 4000);
  for (std::uint32_t s = 0; s < h.mem->num_slices(); ++s) {
    EXPECT_EQ(h.mem->slice(s).tags().lines(), 256u);
    EXPECT_LE(h.mem->slice(s).tags().shadow_lines(), 64u);
  }
  EXPECT_GT(h.stat("gpu.l2.shadow_inserts"), 0);
}

TEST(RemoteCopy, ZeroThresholdNeverInserts) {
  auto p = small_params();
  p.l2.rc_occupancy_threshold = 0;
  Harness h(p, 2);
  far_reads(h, 100);
  EXPECT_EQ(h.stat("gpu.l2.shadow_inserts"), 0);
}

TEST(RemoteCopy, WriteInvalidatesTheShadow) {
  Harness h(small_params(), 4);
  const Addr a = addr_in_partition(*h.mem, 1);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);       // far miss, shadow inserted near SM 0
  h.sms[2]->add(a, ReqKind::TmaStore, 2000);   // near write from partition 1
  h.sms[0]->add(a, ReqKind::TmaLoad, 4000);    // shadow gone: far hit
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 1), 414u);
}

}  // namespace
}  // namespace simfa::mem::test
