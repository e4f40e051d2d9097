// WarpGroup deduplication and role identification (paper §5.2, first translation step).
#include <gtest/gtest.h>

#include "instr/error.h"
#include "instr/log_reader.h"
#include "instr/warpgroups.h"
#include "log_test_util.h"

namespace simfa::instr {
namespace {

EventLog parsed(const LoggerEmulator& e) {
  const auto b = e.encode();
  return parse_log(b.data(), b.size(), "wg.evlog");
}

// One FA3-like CTA: producer warp 0 only (elected), consumers on all four warps.
LoggerEmulator fa3_cta(uint32_t cap = 32) {
  LoggerEmulator e({1, 1, 1}, {384, 1, 1}, cap);
  e.record(0, 0, 10, SIMFA_EV_TMA_K_ISSUE, 0, 3);
  e.record(0, 0, 20, SIMFA_EV_TMA_V_ISSUE, 0, 3);
  for (uint32_t wg = 1; wg <= 2; ++wg) {
    e.record_warpgroup(0, wg, 30 * wg, SIMFA_EV_WAIT_K_START, 0, 3);
    e.record_warpgroup(0, wg, 31 * wg, SIMFA_EV_GEMM_QK_ISSUE, 0, 3);
  }
  return e;
}

TEST(Warpgroups, FourWarpsFoldIntoOneStreamAndRolesAreFound) {
  const DedupResult r = dedupe_warpgroups(parsed(fa3_cta()));
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.ctas.size(), 1u);
  ASSERT_EQ(r.ctas[0].wgs.size(), 3u);
  EXPECT_EQ(r.ctas[0].wgs[0].role, WgRole::Producer);
  EXPECT_EQ(r.ctas[0].wgs[0].events.size(), 2u);
  EXPECT_EQ(r.ctas[0].wgs[1].role, WgRole::Consumer);
  EXPECT_EQ(r.ctas[0].wgs[1].events.size(), 2u);
  EXPECT_EQ(r.ctas[0].wgs[2].events[1].timestamp, 62u);
  EXPECT_FALSE(r.ctas[0].wgs[2].truncated);
}

TEST(Warpgroups, ElectedWarpIsTheRepresentativeEvenIfNotWarpZero) {
  LoggerEmulator e({1, 1, 1}, {128, 1, 1}, 4);
  e.record(0, 2, 5, SIMFA_EV_TMA_Q_ISSUE, 0, 0);
  const DedupResult r = dedupe_warpgroups(parsed(e));
  EXPECT_EQ(r.ctas[0].wgs[0].representative, 2u);
  EXPECT_EQ(r.ctas[0].wgs[0].role, WgRole::Producer);
}

TEST(Warpgroups, DisagreeingWarpsAreAWarning) {
  LoggerEmulator e = fa3_cta();
  e.record(0, 5, 99, SIMFA_EV_WAIT_WG_1, 0, 3);  // warp 5 (WarpGroup 1) has an extra entry
  const DedupResult r = dedupe_warpgroups(parsed(e));
  ASSERT_EQ(r.warnings.size(), 3u);  // warps 4, 6 and 7 each disagree with warp 5
  EXPECT_EQ(r.ctas[0].wgs[1].representative, 5u);
  EXPECT_NE(r.warnings[0].find("block 0 WarpGroup 1: warp 4 disagrees with warp 5: it has 2 "
                               "entries vs 3 (no overflow); using warp 5"),
            std::string::npos)
      << r.warnings[0];
}

TEST(Warpgroups, OverflowMarksTheStreamTruncated) {
  LoggerEmulator e = fa3_cta(1);  // producer warp 0 overflows on its second event
  const DedupResult r = dedupe_warpgroups(parsed(e));
  EXPECT_TRUE(r.ctas[0].wgs[0].truncated);
  EXPECT_TRUE(r.ctas[0].wgs[1].truncated);  // consumers too (capacity 1, two events)
  EXPECT_TRUE(r.warnings.empty());          // all warps of a group agree on the kept prefix
}

TEST(Warpgroups, MixedProducerAndConsumerEventsIsAnError) {
  LoggerEmulator e({1, 1, 1}, {128, 1, 1}, 4);
  e.record(0, 0, 1, SIMFA_EV_TMA_K_ISSUE, 0, 0);
  e.record(0, 0, 2, SIMFA_EV_GEMM_QK_ISSUE, 0, 0);
  try {
    dedupe_warpgroups(parsed(e));
    FAIL() << "no error";
  } catch (const UserError& err) {
    EXPECT_NE(std::string(err.what()).find("wg.evlog: block 0 WarpGroup 0 records both producer"),
              std::string::npos);
  }
}

TEST(Warpgroups, PartialLastWarpGroupIsKept) {
  LoggerEmulator e({2, 1, 1}, {160, 1, 1}, 2);  // 5 warps: WarpGroups of 4 and 1
  e.record(1, 4, 7, SIMFA_EV_TILE_START, 0, 1);
  const DedupResult r = dedupe_warpgroups(parsed(e));
  ASSERT_EQ(r.ctas[1].wgs.size(), 2u);
  EXPECT_EQ(r.ctas[1].wgs[1].role, WgRole::Idle);
  EXPECT_EQ(r.ctas[1].wgs[1].events.size(), 1u);
}

}  // namespace
}  // namespace simfa::instr
