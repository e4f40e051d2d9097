// L1 for ordinary loads: hits at the L1 latency, misses add the L1 miss delay, TMA bypasses it,
// stores invalidate it.
#include <gtest/gtest.h>

#include "harness.h"

namespace simfa::mem::test {
namespace {

Cycle latency(const MockSm& sm, std::size_t i) {
  return sm.responses.at(i).at - sm.sent_at.at(sm.responses.at(i).req.tag);
}

TEST(L1, SecondLoadHitsAtL1Latency) {
  Harness h(small_params(), 2);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::Load, 0);
  h.sms[0]->add(a, ReqKind::Load, 2000);
  h.sms[0]->add(a + 0x100000, ReqKind::Load, 4000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 0), 556u + 6);
  EXPECT_EQ(latency(*h.sms[0], 1), 32u);
  EXPECT_EQ(h.stat("gpu.l1.hits"), 1);
  EXPECT_EQ(h.stat("gpu.l1.misses"), 2);
}

TEST(L1, TmaLoadsBypassTheL1) {
  Harness h(small_params(), 2);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 2000);
  h.sms[0]->add(a, ReqKind::Load, 4000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 1), 258u);
  EXPECT_EQ(latency(*h.sms[0], 2), 258u + 6);
}

TEST(L1, StoreInvalidatesTheLine) {
  Harness h(small_params(), 2);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::Load, 0);
  h.sms[0]->add(a, ReqKind::Store, 2000);
  h.sms[0]->add(a, ReqKind::Load, 4000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 2), 258u + 6);
}

TEST(L1, DisabledL1SendsEveryLoadToL2) {
  auto p = small_params();
  p.l1.enabled = false;
  Harness h(p, 2);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::Load, 0);
  h.sms[0]->add(a, ReqKind::Load, 2000);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(latency(*h.sms[0], 1), 258u);
}

}  // namespace
}  // namespace simfa::mem::test
