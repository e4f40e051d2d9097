// Exact command sequences and latencies of one channel (core clock == DRAM clock, refresh off):
// row hit, row miss (closed bank) and row conflict; FR-FCFS reordering; write draining.
#include <gtest/gtest.h>

#include <algorithm>

#include "dram_test_util.h"

namespace simfa::mem {
namespace {

using test::Driver;

class OneChannel : public ::testing::Test {
 protected:
  void build(const DramParams& p) {
    params = p;
    dram = std::make_unique<HbmDram>(params, engine, &driver);
    driver.attach(dram.get());
    dram->set_command_log(&log);
  }
  Addr line(std::uint32_t pc, std::uint32_t bank, std::uint32_t row, std::uint32_t col = 0) const {
    DramCoord c;
    c.pc = pc;
    c.bg = bank / params.banks_per_group;
    c.bank = bank;
    c.row = row;
    c.column = col;
    return dram->mapping().line_of(c);
  }
  DramReq read(Addr l, std::uint32_t tag) const { return DramReq{l, tag, false, 0xF}; }
  DramReq write(Addr l, std::uint32_t tag) const { return DramReq{l, tag, true, 0xF}; }
  std::vector<CmdRecord> commands_after(DCycle from) const {
    std::vector<CmdRecord> v;
    for (const auto& c : log)
      if (c.at > from) v.push_back(c);
    return v;
  }

  Engine engine;
  Driver driver{engine};
  DramParams params;
  std::unique_ptr<HbmDram> dram;
  std::vector<CmdRecord> log;
};

TEST_F(OneChannel, ClosedRowReadIssuesActThenFourReadsAtTCCDL) {
  build(test::one_channel_params());
  const DramTiming& t = params.t;
  driver.plan(0, read(line(0, 0, 5), 1));
  ASSERT_TRUE(driver.run());
  ASSERT_EQ(log.size(), 5u);
  EXPECT_EQ(log[0].cmd, Cmd::Act);
  EXPECT_EQ(log[0].at, 1u);  // visible at the first edge after acceptance
  EXPECT_EQ(log[0].row, 5u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(log[1 + i].cmd, Cmd::Rd);
    EXPECT_EQ(log[1 + i].at, 1 + t.tRCD_rd + i * t.tCCD_L);
  }
  ASSERT_EQ(driver.responses.size(), 1u);
  const Cycle expect = 1 + t.tRCD_rd + 3 * t.tCCD_L + t.tCL + t.tBL + params.ctrl_latency;
  EXPECT_EQ(driver.responses[0].at, expect);
  EXPECT_EQ(dram->unloaded_read_latency(), expect);
  EXPECT_EQ(dram->totals().row_misses, 1u);
}

TEST_F(OneChannel, RowHitLatencyIsTCLPlusBursts) {
  build(test::one_channel_params());
  const DramTiming& t = params.t;
  driver.plan(0, read(line(0, 0, 5, 0), 1));
  driver.plan(200, read(line(0, 0, 5, 1), 2));
  ASSERT_TRUE(driver.run());
  const auto cmds = commands_after(200);
  ASSERT_EQ(cmds.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(cmds[i].cmd, Cmd::Rd);
    EXPECT_EQ(cmds[i].at, 201 + i * t.tCCD_L);
  }
  EXPECT_EQ(driver.find(2)->at - 200, 1 + t.tCL + 3 * t.tCCD_L + t.tBL + params.ctrl_latency);
  EXPECT_EQ(dram->totals().row_hits, 1u);
}

TEST_F(OneChannel, RowConflictLatencyAddsTRPAndTRCD) {
  build(test::one_channel_params());
  const DramTiming& t = params.t;
  driver.plan(0, read(line(0, 0, 5), 1));
  driver.plan(200, read(line(0, 0, 6), 2));
  ASSERT_TRUE(driver.run());
  const auto cmds = commands_after(200);
  ASSERT_EQ(cmds.size(), 6u);
  EXPECT_EQ(cmds[0].cmd, Cmd::Pre);
  EXPECT_EQ(cmds[0].at, 201u);
  EXPECT_EQ(cmds[1].cmd, Cmd::Act);
  EXPECT_EQ(cmds[1].at, 201 + t.tRP);
  EXPECT_EQ(cmds[2].at, 201 + t.tRP + t.tRCD_rd);
  EXPECT_EQ(driver.find(2)->at - 200,
            1 + t.tRP + t.tRCD_rd + t.tCL + 3 * t.tCCD_L + t.tBL + params.ctrl_latency);
  EXPECT_EQ(dram->totals().row_conflicts, 1u);
}

TEST_F(OneChannel, ConflictPrechargeWaitsForTRASAndTRTP) {
  build(test::one_channel_params());
  const DramTiming& t = params.t;
  driver.plan(0, read(line(0, 0, 5), 1));
  driver.plan(0, read(line(0, 0, 6), 2));  // same cycle: PRE as early as the first row allows
  ASSERT_TRUE(driver.run());
  const DCycle act = 1, last_rd = 1 + t.tRCD_rd + 3 * t.tCCD_L;
  const auto pre = std::find_if(log.begin(), log.end(), [](auto& c) { return c.cmd == Cmd::Pre; });
  ASSERT_NE(pre, log.end());
  EXPECT_EQ(pre->at, std::max(act + t.tRAS, last_rd + t.tRTP));
}

TEST_F(OneChannel, PartialSectorMaskMovesOnlyThoseBursts) {
  build(test::one_channel_params());
  driver.plan(0, DramReq{line(0, 0, 5), 1, false, 0x5});
  ASSERT_TRUE(driver.run());
  EXPECT_EQ(std::count_if(log.begin(), log.end(), [](auto& c) { return c.cmd == Cmd::Rd; }), 2);
  EXPECT_EQ(dram->totals().read_bytes, 64u);
}

TEST_F(OneChannel, WriteIsAnsweredWhenItsDataIsWritten) {
  build(test::one_channel_params());
  const DramTiming& t = params.t;
  driver.plan(0, write(line(0, 0, 5), 1));
  ASSERT_TRUE(driver.run());
  ASSERT_EQ(log.size(), 5u);
  EXPECT_EQ(log[1].cmd, Cmd::Wr);
  EXPECT_EQ(log[1].at, 1 + t.tRCD_wr);
  EXPECT_EQ(driver.find(1)->at,
            1 + t.tRCD_wr + 3 * t.tCCD_L + t.tCWL + t.tBL + params.ctrl_latency);
  EXPECT_EQ(dram->totals().write_bytes, 128u);
}

TEST_F(OneChannel, FrFcfsServesYoungerRowHitBeforeOlderConflict) {
  build(test::one_channel_params());
  driver.plan(0, read(line(0, 0, 5, 0), 1));
  driver.plan(100, read(line(0, 0, 6, 0), 2));  // older: conflicts with the open row 5
  driver.plan(100, read(line(0, 0, 5, 1), 3));  // younger: hits row 5
  ASSERT_TRUE(driver.run());
  const auto cmds = commands_after(100);
  ASSERT_FALSE(cmds.empty());
  EXPECT_EQ(cmds[0].cmd, Cmd::Rd);
  EXPECT_EQ(cmds[0].row, 5u);
  EXPECT_LT(driver.find(3)->at, driver.find(2)->at);
}

TEST_F(OneChannel, FcfsServesTheOlderConflictFirst) {
  DramParams p = test::one_channel_params();
  p.scheduler = "fcfs";
  build(p);
  driver.plan(0, read(line(0, 0, 5, 0), 1));
  driver.plan(100, read(line(0, 0, 6, 0), 2));
  driver.plan(100, read(line(0, 0, 5, 1), 3));
  ASSERT_TRUE(driver.run());
  EXPECT_EQ(commands_after(100)[0].cmd, Cmd::Pre);
  EXPECT_LT(driver.find(2)->at, driver.find(3)->at);
}

TEST_F(OneChannel, FrFcfsServesYoungerRowHitBeforeOlderClosedBankMiss) {
  build(test::one_channel_params());
  driver.plan(0, read(line(0, 0, 5, 0), 1));
  driver.plan(100, read(line(0, 4, 9, 0), 2));  // older: bank 4 is closed
  driver.plan(100, read(line(0, 0, 5, 1), 3));  // younger: hits bank 0's open row
  ASSERT_TRUE(driver.run());
  const auto cmds = commands_after(100);
  // Both start at the first edge on their own command buses; the hit's data comes first.
  EXPECT_EQ(cmds[0].at, 101u);
  EXPECT_EQ(cmds[1].at, 101u);
  EXPECT_LT(driver.find(3)->at, driver.find(2)->at);
}

TEST_F(OneChannel, PseudoChannelsShareTheColumnBusOldestFirst) {
  build(test::one_channel_params());
  // Open a row in each pseudo-channel, then send one hit to each in the same cycle.
  driver.plan(0, read(line(0, 0, 5, 0), 1));
  driver.plan(0, read(line(1, 0, 5, 0), 2));
  driver.plan(200, read(line(1, 0, 5, 1), 3));  // older
  driver.plan(200, read(line(0, 0, 5, 1), 4));
  ASSERT_TRUE(driver.run());
  const auto cmds = commands_after(200);
  ASSERT_GE(cmds.size(), 2u);
  EXPECT_EQ(cmds[0].at, 201u);
  EXPECT_EQ(cmds[0].pc, 1u);
  EXPECT_EQ(cmds[1].at, 202u);  // the other pseudo-channel gets the bus one cycle later
  EXPECT_EQ(cmds[1].pc, 0u);
}

TEST_F(OneChannel, WritesDrainAboveTheHighWatermarkThenReadsResume) {
  build(test::one_channel_params());
  // Reads first in the plan, but 24 queued writes reach the high watermark in the same cycle.
  for (std::uint32_t i = 0; i < 4; ++i) driver.plan(0, read(line(0, 1, 3, i), 100 + i));
  for (std::uint32_t i = 0; i < 24; ++i) driver.plan(0, write(line(0, i % 16, 7, i / 16), i));
  ASSERT_TRUE(driver.run());
  const auto first_rd =
      std::find_if(log.begin(), log.end(), [](auto& c) { return c.cmd == Cmd::Rd; });
  const auto writes_before =
      std::count_if(log.begin(), first_rd, [](auto& c) { return c.cmd == Cmd::Wr; });
  // Draining stops once at most 8 writes are queued: at least 16 whole writes went first.
  EXPECT_GE(writes_before, 16 * 4);
  EXPECT_LT(writes_before, 24 * 4);
  EXPECT_EQ(driver.responses.size(), 28u);
}

TEST_F(OneChannel, ReadsGoFirstBelowTheHighWatermark) {
  build(test::one_channel_params());
  for (std::uint32_t i = 0; i < 8; ++i) driver.plan(0, write(line(0, 2 + i, 7), i));
  driver.plan(0, read(line(0, 1, 3), 100));
  ASSERT_TRUE(driver.run());
  const auto first_col =
      std::find_if(log.begin(), log.end(), [](auto& c) { return is_column(c.cmd); });
  EXPECT_EQ(first_col->cmd, Cmd::Rd);
}

}  // namespace
}  // namespace simfa::mem
