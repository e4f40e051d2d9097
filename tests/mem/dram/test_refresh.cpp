// Refresh: a scheduled deadline every tREFI (all-bank) or tREFI/banks (per-bank), blocking the
// pseudo-channel (or the bank) for tRFC (tRFCpb); open rows are precharged first.
#include <gtest/gtest.h>

#include <algorithm>

#include "dram_test_util.h"

namespace simfa::mem {
namespace {

using test::Driver;

class RefreshTest : public ::testing::Test {
 protected:
  void build(RefreshMode mode) {
    params = test::one_channel_params();
    params.refresh = mode;
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
  std::vector<CmdRecord> of(std::uint32_t pc, Cmd cmd) const {
    std::vector<CmdRecord> v;
    for (const auto& c : log)
      if (c.pc == pc && c.cmd == cmd) v.push_back(c);
    return v;
  }
  void idle_until(Cycle t) {
    engine.run([] { return false; }, t);
  }

  Engine engine;
  Driver driver{engine};
  DramParams params;
  std::unique_ptr<HbmDram> dram;
  std::vector<CmdRecord> log;
};

TEST_F(RefreshTest, AllBankRefreshEveryTREFIStaggeredOverPseudoChannels) {
  build(RefreshMode::AllBank);
  const DCycle refi = params.t.tREFI;
  idle_until(5 * refi + refi / 2 + 10);
  const auto pc0 = of(0, Cmd::RefAb), pc1 = of(1, Cmd::RefAb);
  ASSERT_EQ(pc0.size(), 5u);
  ASSERT_EQ(pc1.size(), 5u);
  for (std::size_t k = 0; k < 5; ++k) {
    EXPECT_EQ(pc0[k].at, (k + 1) * refi);
    EXPECT_EQ(pc1[k].at, (k + 1) * refi + refi / 2);  // stagger: index x interval / total
  }
  EXPECT_EQ(log.size(), 10u);  // nothing else happens in an idle DRAM
}

TEST_F(RefreshTest, AllBankRefreshBlocksActivatesForTRFC) {
  build(RefreshMode::AllBank);
  const DCycle refi = params.t.tREFI;
  driver.plan(refi, {line(0, 9, 3), 1, false, 0xF});  // arrives at the REF's cycle
  ASSERT_TRUE(driver.run());
  const auto act = of(0, Cmd::Act);
  ASSERT_EQ(act.size(), 1u);
  EXPECT_EQ(of(0, Cmd::RefAb)[0].at, refi);
  EXPECT_EQ(act[0].at, refi + params.t.tRFC);
}

TEST_F(RefreshTest, AllBankRefreshPrechargesOpenRowsFirst) {
  build(RefreshMode::AllBank);
  const DramTiming& t = params.t;
  const DCycle refi = t.tREFI;
  driver.plan(refi - 46, {line(0, 2, 3), 1, false, 0xF});  // ACT at refi - 45, last RD at refi - 7
  driver.plan(refi + 1, {line(0, 2, 3, 1), 2, false, 0xF});  // would hit, but refresh is pending
  ASSERT_TRUE(driver.run());
  const DCycle act = refi - 45;
  const auto pre = of(0, Cmd::Pre);
  ASSERT_EQ(pre.size(), 1u);
  // The refresh falls due at refi; its PRE also waits for tRAS and for tRTP after the last RD.
  EXPECT_EQ(pre[0].at, std::max({refi, act + t.tRAS, act + t.tRCD_rd + 3 * t.tCCD_L + t.tRTP}));
  const auto ref = of(0, Cmd::RefAb);
  EXPECT_EQ(ref[0].at, pre[0].at + t.tRP);
  const auto acts = of(0, Cmd::Act);
  ASSERT_EQ(acts.size(), 2u);  // the row was closed by the refresh: the second read re-opens it
  EXPECT_EQ(acts[1].at, ref[0].at + t.tRFC);
}

TEST_F(RefreshTest, PerBankRefreshVisitsBanksRoundRobinEveryTREFIOverBanks) {
  build(RefreshMode::PerBank);
  const DCycle interval = params.t.tREFI / 16;
  idle_until(40 * interval);
  const auto pc0 = of(0, Cmd::RefPb);
  ASSERT_GE(pc0.size(), 32u);
  for (std::size_t k = 0; k < pc0.size(); ++k) {
    EXPECT_EQ(pc0[k].at, (k + 1) * interval);
    EXPECT_EQ(pc0[k].bank, k % 16);
  }
}

TEST_F(RefreshTest, PerBankRefreshBlocksOnlyItsBankForTRFCpb) {
  build(RefreshMode::PerBank);
  const DCycle interval = params.t.tREFI / 16;
  // pc 0 refreshes bank 0 at `interval`; reads to bank 0 and bank 5 arrive at that cycle.
  driver.plan(interval, {line(0, 0, 3), 1, false, 0xF});
  driver.plan(interval, {line(0, 5, 3), 2, false, 0xF});
  ASSERT_TRUE(driver.run());
  const auto acts = of(0, Cmd::Act);
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[0].bank, 5u);
  EXPECT_EQ(acts[0].at, interval + 1);
  EXPECT_EQ(acts[1].bank, 0u);
  EXPECT_EQ(acts[1].at, interval + params.t.tRFCpb);
}

TEST_F(RefreshTest, OffMeansNoRefreshCommands) {
  build(RefreshMode::Off);
  idle_until(10 * params.t.tREFI);
  EXPECT_TRUE(log.empty());
}

}  // namespace
}  // namespace simfa::mem
