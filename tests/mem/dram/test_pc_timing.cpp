// Timing-contract tests of PcTiming: every constraint, with values chosen so that it is the
// binding one, gives exactly the expected earliest cycle (so one cycle earlier would violate it).
#include <gtest/gtest.h>

#include "mem/dram/pc_timing.h"

namespace simfa::mem {
namespace {

// Distinct values so each test isolates one constraint (tRC > tRAS + tRP, tFAW > 4 tRRD_S, ...).
DramTiming distinct() {
  DramTiming t;
  t.tCL = 10;
  t.tCWL = 6;
  t.tRCD_rd = 12;
  t.tRCD_wr = 7;
  t.tRP = 9;
  t.tRAS = 20;
  t.tRC = 35;
  t.tCCD_S = 2;
  t.tCCD_L = 5;
  t.tRRD_S = 3;
  t.tRRD_L = 6;
  t.tFAW = 25;
  t.tWR = 11;
  t.tRTP = 4;
  t.tWTR_S = 3;
  t.tWTR_L = 5;
  t.tRTRS = 2;
  t.tREFI = 1000;
  t.tRFC = 100;
  t.tRFCpb = 50;
  t.tBL = 2;
  return t;
}

// Banks 0-3 are bank group 0, 4-7 group 1, and so on.
class PcTimingTest : public ::testing::Test {
 protected:
  DramTiming t = distinct();
  PcTiming pc{t, 4, 4};
};

TEST_F(PcTimingTest, FreshStateAllowsEverythingAtZero) {
  for (Cmd c : {Cmd::Act, Cmd::Pre, Cmd::Rd, Cmd::Wr, Cmd::RefAb, Cmd::RefPb})
    EXPECT_EQ(pc.earliest(c, 0), 0u) << cmd_name(c);
}

TEST_F(PcTimingTest, ActToReadIsTRCDrd) {
  pc.issue(Cmd::Act, 0, 7, 100);
  EXPECT_EQ(pc.earliest(Cmd::Rd, 0), 100 + t.tRCD_rd);
}

TEST_F(PcTimingTest, ActToWriteIsTRCDwr) {
  pc.issue(Cmd::Act, 0, 7, 100);
  EXPECT_EQ(pc.earliest(Cmd::Wr, 0), 100 + t.tRCD_wr);
}

TEST_F(PcTimingTest, ActToPreIsTRAS) {
  pc.issue(Cmd::Act, 0, 7, 100);
  EXPECT_EQ(pc.earliest(Cmd::Pre, 0), 100 + t.tRAS);
}

TEST_F(PcTimingTest, ActToActSameBankIsTRC) {
  pc.issue(Cmd::Act, 0, 7, 100);
  pc.issue(Cmd::Pre, 0, 7, 100 + t.tRAS);  // PRE + tRP = 129 < ACT + tRC = 135
  EXPECT_EQ(pc.earliest(Cmd::Act, 0), 100 + t.tRC);
}

TEST_F(PcTimingTest, PreToActIsTRP) {
  pc.issue(Cmd::Act, 0, 7, 100);
  pc.issue(Cmd::Pre, 0, 7, 130);
  EXPECT_EQ(pc.earliest(Cmd::Act, 0), 130 + t.tRP);
}

TEST_F(PcTimingTest, ActToActSameGroupIsTRRDL) {
  pc.issue(Cmd::Act, 0, 7, 100);
  EXPECT_EQ(pc.earliest(Cmd::Act, 1), 100 + t.tRRD_L);
}

TEST_F(PcTimingTest, ActToActOtherGroupIsTRRDS) {
  pc.issue(Cmd::Act, 0, 7, 100);
  EXPECT_EQ(pc.earliest(Cmd::Act, 4), 100 + t.tRRD_S);
}

TEST_F(PcTimingTest, FifthActWaitsForTFAW) {
  pc.issue(Cmd::Act, 0, 1, 0);
  pc.issue(Cmd::Act, 4, 1, 3);
  pc.issue(Cmd::Act, 8, 1, 6);
  pc.issue(Cmd::Act, 12, 1, 9);
  // tRRD alone would allow bank 1 (group 0) at max(0 + 6, 9 + 3) = 12.
  EXPECT_EQ(pc.earliest(Cmd::Act, 1), 0 + t.tFAW);
  pc.issue(Cmd::Act, 1, 1, 25);
  // The window slides: the sixth ACT waits for the second one + tFAW.
  EXPECT_EQ(pc.earliest(Cmd::Act, 5), 3 + t.tFAW);
}

TEST_F(PcTimingTest, ReadToReadSameGroupIsTCCDL) {
  pc.issue(Cmd::Rd, 0, 7, 200);
  EXPECT_EQ(pc.earliest(Cmd::Rd, 1), 200 + t.tCCD_L);
  EXPECT_EQ(pc.earliest(Cmd::Rd, 0), 200 + t.tCCD_L);
}

TEST_F(PcTimingTest, ReadToReadOtherGroupIsTCCDS) {
  pc.issue(Cmd::Rd, 0, 7, 200);
  EXPECT_EQ(pc.earliest(Cmd::Rd, 4), 200 + t.tCCD_S);
}

TEST_F(PcTimingTest, WriteToWriteIsTCCD) {
  pc.issue(Cmd::Wr, 0, 7, 200);
  EXPECT_EQ(pc.earliest(Cmd::Wr, 1), 200 + t.tCCD_L);
  EXPECT_EQ(pc.earliest(Cmd::Wr, 4), 200 + t.tCCD_S);
}

TEST_F(PcTimingTest, ReadToPreIsTRTP) {
  pc.issue(Cmd::Act, 0, 7, 0);
  pc.issue(Cmd::Rd, 0, 7, 30);
  EXPECT_EQ(pc.earliest(Cmd::Pre, 0), 30 + t.tRTP);
}

TEST_F(PcTimingTest, WriteToPreIsWriteRecovery) {
  pc.issue(Cmd::Act, 0, 7, 0);
  pc.issue(Cmd::Wr, 0, 7, 30);
  EXPECT_EQ(pc.earliest(Cmd::Pre, 0), 30 + t.tCWL + t.tBL + t.tWR);
}

TEST_F(PcTimingTest, WriteToReadSameGroupIsTWTRL) {
  pc.issue(Cmd::Wr, 0, 7, 30);
  EXPECT_EQ(pc.earliest(Cmd::Rd, 1), 30 + t.tCWL + t.tBL + t.tWTR_L);
}

TEST_F(PcTimingTest, WriteToReadOtherGroupIsTWTRS) {
  pc.issue(Cmd::Wr, 0, 7, 30);
  EXPECT_EQ(pc.earliest(Cmd::Rd, 4), 30 + t.tCWL + t.tBL + t.tWTR_S);
}

TEST_F(PcTimingTest, ReadToWriteClearsTheDataBus) {
  pc.issue(Cmd::Rd, 0, 7, 30);
  // Write data (at WR + tCWL) starts tRTRS after read data (RD + tCL .. + tBL) ends.
  const DCycle expect = 30 + t.tCL + t.tBL + t.tRTRS - t.tCWL;
  EXPECT_EQ(pc.earliest(Cmd::Wr, 4), expect);
  EXPECT_EQ(pc.earliest(Cmd::Wr, 1), expect);  // exceeds tCCD_L as well
}

TEST_F(PcTimingTest, AllBankRefreshWaitsTRPAfterPrechargeAndBlocksTRFC) {
  pc.issue(Cmd::Act, 3, 7, 0);
  pc.issue(Cmd::Pre, 3, 7, 40);
  EXPECT_EQ(pc.earliest(Cmd::RefAb, 0), 40 + t.tRP);
  pc.issue(Cmd::RefAb, 0, kNoRow, 49);
  for (std::uint32_t b = 0; b < 16; ++b) EXPECT_EQ(pc.earliest(Cmd::Act, b), 49 + t.tRFC) << b;
  EXPECT_EQ(pc.earliest(Cmd::RefAb, 0), 49 + t.tRFC);
}

TEST_F(PcTimingTest, PerBankRefreshBlocksOnlyItsBankForTRFCpb) {
  pc.issue(Cmd::RefPb, 3, kNoRow, 10);
  EXPECT_EQ(pc.earliest(Cmd::Act, 3), 10 + t.tRFCpb);
  EXPECT_EQ(pc.earliest(Cmd::Act, 2), 0u);
  EXPECT_EQ(pc.earliest(Cmd::RefPb, 3), 10 + t.tRFCpb);
}

TEST_F(PcTimingTest, PerBankRefreshWaitsTRPAfterPrecharge) {
  pc.issue(Cmd::Act, 3, 7, 0);
  pc.issue(Cmd::Pre, 3, 7, 40);
  EXPECT_EQ(pc.earliest(Cmd::RefPb, 3), 40 + t.tRP);
}

TEST_F(PcTimingTest, RowStateFollowsActAndPre) {
  EXPECT_TRUE(pc.all_closed());
  pc.issue(Cmd::Act, 5, 42, 0);
  EXPECT_EQ(pc.bank(5).open_row, 42u);
  EXPECT_FALSE(pc.all_closed());
  pc.issue(Cmd::Rd, 5, 42, 20);
  EXPECT_EQ(pc.bank(5).columns_since_act, 1u);
  pc.issue(Cmd::Pre, 5, 42, 30);
  EXPECT_EQ(pc.bank(5).open_row, kNoRow);
  EXPECT_TRUE(pc.all_closed());
}

}  // namespace
}  // namespace simfa::mem
