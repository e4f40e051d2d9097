// Merging: MSHR merging of misses to the same line in a slice, and the L2 Request Coalescer
// merging reads of an SM pair (window, sectors, writes never merge, the no-lrc switch).
#include <gtest/gtest.h>

#include "harness.h"

namespace simfa::mem::test {
namespace {

TEST(MshrMerging, MissesToOneLineShareOneDramRead) {
  Harness h(small_params(), 6);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);  // pairs 0, 1 and 2: no coalescer merging
  h.sms[2]->add(a, ReqKind::TmaLoad, 0);
  h.sms[4]->add(a, ReqKind::TmaLoad, 5);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(h.dram->reads, 1u);
  EXPECT_EQ(h.stat("gpu.l2.mshr_merges"), 2);
  EXPECT_EQ(h.stat("lts__t_requests.sum"), 3);
  EXPECT_EQ(h.stat("gpu.mem.responses"), 3);
}

TEST(MshrMerging, MergedRequestNeedingMoreSectorsExtendsTheFetch) {
  Harness h(small_params(), 4);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0, 0x1);
  h.sms[2]->add(a, ReqKind::TmaLoad, 0, 0x6);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(h.dram->reads, 2u);
  EXPECT_EQ(h.dram->read_bytes, 3u * 32);
  EXPECT_EQ(h.stat("gpu.l2.mshr_merges"), 1);
}

TEST(MshrMerging, WriteToALineBeingFilledWaitsAndDirtiesIt) {
  auto p = small_params();
  Harness h(p, 4);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[2]->add(a, ReqKind::TmaStore, 0);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(h.stat("gpu.mem.responses"), 2);
  EXPECT_EQ(h.dram->reads, 1u);
}

TEST(Coalescer, MergesReadsOfAnSmPair) {
  Harness h(small_params(), 2);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[1]->add(a, ReqKind::TmaLoad, 3);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(h.stat("gpu.lrc.merges"), 1);
  EXPECT_EQ(h.stat("lts__t_requests.sum"), 1);
  EXPECT_EQ(h.sms[1]->responses.size(), 1u);
  EXPECT_EQ(h.sms[0]->responses[0].at, h.sms[1]->responses[0].at);
}

TEST(Coalescer, DisabledSendsBothAndTheMshrMerges) {
  auto p = small_params();
  p.lrc.enabled = false;
  Harness h(p, 2);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[1]->add(a, ReqKind::TmaLoad, 3);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(h.stat("gpu.lrc.merges"), 0);
  EXPECT_EQ(h.stat("lts__t_requests.sum"), 2);
  EXPECT_EQ(h.stat("gpu.l2.mshr_merges"), 1);
}

TEST(Coalescer, NoMergeOutsideTheWindow) {
  auto p = small_params();
  p.lrc.window = 10;
  Harness h(p, 2);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0);
  h.sms[1]->add(a, ReqKind::TmaLoad, 50);  // still in flight, but issued too long after
  ASSERT_TRUE(h.run());
  EXPECT_EQ(h.stat("gpu.lrc.merges"), 0);
}

TEST(Coalescer, NoMergeAcrossPairsOrForWritesOrExtraSectors) {
  Harness h(small_params(), 4);
  const Addr a = addr_in_partition(*h.mem, 0);
  h.sms[0]->add(a, ReqKind::TmaLoad, 0, 0x1);
  h.sms[2]->add(a, ReqKind::TmaLoad, 1, 0x1);   // other pair
  h.sms[1]->add(a, ReqKind::TmaLoad, 2, 0x3);   // needs a sector the leader does not fetch
  h.sms[1]->add(a + 128, ReqKind::TmaStore, 3);
  h.sms[0]->add(a + 128, ReqKind::TmaStore, 4);
  ASSERT_TRUE(h.run());
  EXPECT_EQ(h.stat("gpu.lrc.merges"), 0);
  EXPECT_EQ(h.stat("gpu.mem.responses"), 5);
}

}  // namespace
}  // namespace simfa::mem::test
