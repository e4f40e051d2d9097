// The host emulator follows the device logger's layout and overflow rule.
#include <gtest/gtest.h>

#include "instr/error.h"
#include "instr/log_reader.h"
#include "log_test_util.h"

namespace simfa::instr {
namespace {

TEST(LoggerEmulator, WarpsPerBlockRoundsThreadsUpToWholeWarps) {
  EXPECT_EQ(LoggerEmulator({1, 1, 1}, {33, 1, 1}, 1).warps_per_block(), 2u);
  EXPECT_EQ(LoggerEmulator({1, 1, 1}, {128, 3, 1}, 1).warps_per_block(), 12u);
  EXPECT_EQ(LoggerEmulator({2, 3, 4}, {32, 1, 1}, 1).num_blocks(), 24u);
}

TEST(LoggerEmulator, FullBufferStopsRecordingAndSetsOverflowLikeTheDevice) {
  LoggerEmulator e({1, 1, 1}, {64, 1, 1}, 3);
  for (uint64_t t = 0; t < 3; ++t) EXPECT_TRUE(e.record(0, 0, t, SIMFA_EV_TILE_START, 0, 0));
  EXPECT_FALSE(e.overflowed(0, 0));
  EXPECT_FALSE(e.record(0, 0, 99, SIMFA_EV_TILE_START, 0, 0));
  EXPECT_FALSE(e.record(0, 0, 100, SIMFA_EV_TILE_START, 0, 0));
  EXPECT_EQ(e.count(0, 0), 3u);
  EXPECT_TRUE(e.overflowed(0, 0));
  EXPECT_FALSE(e.overflowed(0, 1));  // other warps are independent
  EXPECT_TRUE(e.record(0, 1, 5, SIMFA_EV_TILE_START, 0, 0));
  const auto b = e.encode();
  const EventLog log = parse_log(b.data(), b.size(), "mem");
  ASSERT_EQ(log.warp(0, 0).entries.size(), 3u);
  EXPECT_EQ(log.warp(0, 0).entries[2].timestamp, 2u);  // the first entries are kept
}

TEST(LoggerEmulator, ZeroCapacityOverflowsOnTheFirstEvent) {
  LoggerEmulator e({1, 1, 1}, {32, 1, 1}, 0);
  EXPECT_FALSE(e.record(0, 0, 1, SIMFA_EV_TILE_START, 0, 0));
  EXPECT_TRUE(e.overflowed(0, 0));
  const auto b = e.encode();
  EXPECT_EQ(parse_log(b.data(), b.size(), "mem").warnings.size(), 1u);
}

TEST(LoggerEmulator, WarpGroupRecordWritesItsFourWarps) {
  LoggerEmulator e({1, 1, 1}, {384, 1, 1}, 8);
  EXPECT_TRUE(e.record_warpgroup(0, 2, 7, SIMFA_EV_GEMM_QK_ISSUE, 1, 3));
  for (uint32_t w = 0; w < 12; ++w) EXPECT_EQ(e.count(0, w), w >= 8 ? 1u : 0u) << w;
}

TEST(LoggerEmulator, BuffersAreIndexedBlockTimesWarpsPerBlockPlusWarp) {
  LoggerEmulator e({3, 1, 1}, {96, 1, 1}, 2);
  e.record(2, 1, 42, SIMFA_EV_TMA_V_ISSUE, 0, 0);
  const auto b = e.encode();
  const EventLog log = parse_log(b.data(), b.size(), "mem");
  ASSERT_EQ(log.warps.size(), 9u);
  EXPECT_EQ(log.warps[2 * 3 + 1].entries.size(), 1u);
  EXPECT_EQ(log.warps[2 * 3 + 1].entries[0].timestamp, 42u);
}

TEST(LoggerEmulator, RejectsBadShapesAndIndices) {
  EXPECT_THROW(LoggerEmulator({0, 1, 1}, {32, 1, 1}, 1), UserError);
  EXPECT_THROW(LoggerEmulator({1, 1, 1}, {32, 1, 1}, 1, 9), UserError);
  LoggerEmulator e({1, 1, 1}, {32, 1, 1}, 1);
  EXPECT_THROW(e.record(1, 0, 0, SIMFA_EV_TILE_START, 0, 0), UserError);
  EXPECT_THROW(e.record(0, 1, 0, SIMFA_EV_TILE_START, 0, 0), UserError);
  simfa_tensormap_desc t{};
  t.rank = 6;
  EXPECT_THROW(e.add_tensormap(t), UserError);
}

}  // namespace
}  // namespace simfa::instr
