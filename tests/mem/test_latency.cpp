// Unloaded latencies are exactly the measured figures the parameters carry (Table 2, Luo et al.),
// whatever the DRAM's own latency: near/far hit, near/far miss, shadow hit, L1 hit.
#include <gtest/gtest.h>

#include "harness.h"

namespace simfa::mem::test {
namespace {

Cycle latency(const MockSm& sm, std::size_t i) {
  return sm.responses.at(i).at - sm.sent_at.at(sm.responses.at(i).req.tag);
}

struct Case {
  Cycle dram;
};

class Unloaded : public ::testing::TestWithParam<Cycle> {};

TEST_P(Unloaded, NearMissThenNearHit) {
  Harness h(small_params(), 4, GetParam());
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 2000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 0), 556u);  // 555.5 rounded
  EXPECT_EQ(latency(*h.sms[0], 1), 258u);
}

TEST_P(Unloaded, FarMissThenShadowHitAtNearLatency) {
  Harness h(small_params(), 4, GetParam());
  const Addr a = addr_in_partition(*h.mem, 1);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 2000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 0), 744u);  // 743.7 rounded
  EXPECT_EQ(latency(*h.sms[0], 1), 258u);
  EXPECT_EQ(h.stat("gpu.l2.shadow_hits"), 1);
}

TEST_P(Unloaded, FarHitWithoutRemoteCopy) {
  auto p = small_params();
  p.l2.remote_copy = false;
  Harness h(p, 4, GetParam());
  const Addr a = addr_in_partition(*h.mem, 1);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 2000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 0), 744u);
  EXPECT_EQ(latency(*h.sms[0], 1), 414u);
}

TEST_P(Unloaded, FarHitFromTheOtherPartitionsSms) {
  Harness h(small_params(), 4, GetParam());
  const Addr a = addr_in_partition(*h.mem, 0);  // near for SM 0, far for SM 2
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[2]->add(a, ReqKind::TmaLoad, 2000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[2], 0), 414u);
}

INSTANTIATE_TEST_SUITE_P(DramLatencies, Unloaded, ::testing::Values(150, 200, 300));

TEST(Latency, SplitReproducesEveryFigure) {
  L2Params p;
  const LinkLatencies l = derive_latencies(p, 200);
  EXPECT_EQ(l.req_near + p.lookup_latency + l.resp_near, 258u);
  EXPECT_EQ(l.req_far + p.lookup_latency + l.resp_far, 414u);
  EXPECT_EQ(l.req_near + 200 + l.dram_link + l.resp_near, 556u);
  EXPECT_EQ(l.req_far + 200 + l.dram_link + l.resp_far + l.far_miss_extra, 744u);
}

TEST(Latency, ImpossibleFiguresAreUserErrors) {
  L2Params p;
  EXPECT_THROW(derive_latencies(p, 500), UserError);  // DRAM alone far slower than a near miss
  const LinkLatencies l = derive_latencies(p, 320);    // 2 cycles over: no link, misses +2
  EXPECT_EQ(l.dram_link, 0u);
  EXPECT_EQ(l.miss_excess, 2u);
  EXPECT_EQ(l.req_far + 320 + l.resp_far + l.far_miss_extra, 744u + 2);
  p.far_hit_latency = 260;
  EXPECT_THROW(derive_latencies(p, 200), UserError);
}

TEST(Latency, WritesAreAcknowledgedAtHitLatency) {
  Harness h(small_params(), 4);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaStore, 0);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 0), 258u);
  EXPECT_EQ(h.dram->reads, 0u);  // write-allocate without fetch for whole sectors
}

}  // namespace
}  // namespace simfa::mem::test
