// Whole-DRAM properties: unloaded latency against its formula, conservation under back-pressure,
// skip-idle vs reference mode, determinism, idle cost, statistics, streaming bandwidth.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <tuple>

#include "dram_test_util.h"
#include "sim/rng.h"
#include "sim/stats.h"

namespace simfa::mem {
namespace {

using test::Driver;

// Random reads and writes in bursts, with some row locality, over a few channels.
void random_plan(Driver& d, std::uint64_t seed, int n, std::uint32_t line_bytes) {
  Rng rng(seed, "dram-plan");
  Cycle t = 0;
  Addr base = 0;
  for (int i = 0; i < n; ++i) {
    if (rng.next() % 8 == 0) t += rng.next() % 300;  // idle gaps, so skipping matters
    if (rng.next() % 4 == 0) base = (rng.next() % (1ULL << 30)) / line_bytes * line_bytes;
    const Addr line = base + (rng.next() % 64) * line_bytes;
    const bool w = rng.next() % 3 == 0;
    const std::uint8_t sectors =
        static_cast<std::uint8_t>(rng.next() % 4 == 0 ? 1 + rng.next() % 15 : 0xF);
    d.plan(t, DramReq{line, static_cast<std::uint32_t>(i), w, sectors});
  }
}

DramParams small_system(RefreshMode mode) {
  DramParams p = test::default_params();
  p.channels = 3;
  p.refresh = mode;
  p.read_queue = 6;
  p.write_queue = 6;
  p.write_high = 4;
  p.write_low = 1;
  return p;
}

struct RunResult {
  std::vector<std::tuple<std::uint32_t, Cycle, Addr, bool>> responses;
  std::vector<std::tuple<DCycle, std::uint32_t, std::uint32_t, int, std::uint32_t, std::uint32_t>>
      cmds;
  ChannelCounters totals;
  std::uint64_t retries = 0, refused = 0, ticks = 0;
  bool finished = false;
};

RunResult run_random(const DramParams& p, bool skip, std::uint64_t seed, int n) {
  Engine engine(skip);
  Driver driver(engine);
  driver.per_cycle = 3;
  HbmDram dram(p, engine, &driver);
  driver.attach(&dram);
  std::vector<CmdRecord> log;
  dram.set_command_log(&log);
  random_plan(driver, seed, n, p.line_bytes);
  RunResult r;
  r.finished = driver.run();
  for (const auto& x : driver.responses)
    r.responses.emplace_back(x.req.tag, x.at, x.req.line, x.req.write);
  for (const auto& c : log)
    r.cmds.emplace_back(c.at, c.channel, c.pc, static_cast<int>(c.cmd), c.bank, c.row);
  r.totals = dram.totals();
  r.retries = driver.retries;
  r.refused = driver.refused;
  r.ticks = engine.ticks_processed();
  EXPECT_EQ(dram.in_flight(), 0u);
  return r;
}

TEST(DramSystem, UnloadedLatencyMatchesTheFormulaOnClockEdges) {
  DramParams p = test::default_params();  // 1830 MHz core, 1300 MHz DRAM: edges align every 183
  p.refresh = RefreshMode::Off;
  Engine engine;
  Driver driver(engine);
  HbmDram dram(p, engine, &driver);
  driver.attach(&dram);
  const DramTiming& t = p.t;
  const double r = 1830.0 / 1300.0;
  const Cycle formula =
      p.ctrl_latency +
      static_cast<Cycle>(std::ceil((1 + t.tRCD_rd + t.tCL + 3 * t.tCCD_L + t.tBL) * r - 1e-9));
  EXPECT_EQ(dram.unloaded_read_latency(), formula);
  for (std::uint32_t k = 0; k < 8; ++k)  // different channels and banks, all closed
    driver.plan(183 * 10 * k, DramReq{static_cast<Addr>(k) * 128, k, false, 0xF});
  ASSERT_TRUE(driver.run());
  for (std::uint32_t k = 0; k < 8; ++k) EXPECT_EQ(driver.find(k)->at - 183 * 10 * k, formula) << k;
}

TEST(DramSystem, UnloadedLatencyBetweenEdgesIsWithinOneDramCycleOfTheFormula) {
  DramParams p = test::default_params();
  p.refresh = RefreshMode::Off;
  Engine engine;
  Driver driver(engine);
  HbmDram dram(p, engine, &driver);
  driver.attach(&dram);
  for (std::uint32_t k = 0; k < 40; ++k)
    driver.plan(1000 * k + k, DramReq{static_cast<Addr>(k) * 128, k, false, 0xF});
  ASSERT_TRUE(driver.run());
  const Cycle f = dram.unloaded_read_latency();
  for (std::uint32_t k = 0; k < 40; ++k) {
    const Cycle lat = driver.find(k)->at - (1000 * k + k);
    EXPECT_LE(lat, f) << k;
    EXPECT_GE(lat + 2, f) << k;  // ceil(1830 / 1300) = 2
  }
}

TEST(DramSystem, UnloadedLatencyWithDefaultRefreshAtCycleZero) {
  Engine engine;
  Driver driver(engine);
  HbmDram dram(test::default_params(), engine, &driver);
  driver.attach(&dram);
  driver.plan(0, DramReq{0, 1, false, 0xF});
  ASSERT_TRUE(driver.run());
  EXPECT_EQ(driver.responses.at(0).at, dram.unloaded_read_latency());
}

TEST(DramSystem, EveryRequestIsAnsweredExactlyOnceUnderBackPressure) {
  for (RefreshMode mode : {RefreshMode::PerBank, RefreshMode::AllBank}) {
    const int n = 4000;
    const RunResult r = run_random(small_system(mode), true, 7, n);
    ASSERT_TRUE(r.finished);
    EXPECT_GT(r.refused, 0u);  // the queues did push back
    EXPECT_GE(r.retries, r.refused);
    std::vector<int> seen(n, 0);
    for (const auto& [tag, at, line, w] : r.responses) ++seen.at(tag);
    for (int i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "tag " << i;
    EXPECT_EQ(r.totals.reads + r.totals.writes, static_cast<std::uint64_t>(n));
    EXPECT_EQ(r.totals.row_hits + r.totals.row_misses + r.totals.row_conflicts,
              static_cast<std::uint64_t>(n));
  }
}

TEST(DramSystem, SkipIdleAndReferenceModeAreIdentical) {
  for (RefreshMode mode : {RefreshMode::PerBank, RefreshMode::AllBank, RefreshMode::Off}) {
    for (const char* sched : {"frfcfs", "fcfs"}) {
      DramParams p = small_system(mode);
      p.scheduler = sched;
      const RunResult skip = run_random(p, true, 11, 1500);
      const RunResult ref = run_random(p, false, 11, 1500);  // also asserts no early command
      ASSERT_TRUE(skip.finished);
      ASSERT_TRUE(ref.finished);
      EXPECT_EQ(skip.responses, ref.responses) << sched;
      EXPECT_EQ(skip.cmds, ref.cmds) << sched;
      EXPECT_EQ(skip.retries, ref.retries);
      EXPECT_LT(skip.ticks * 5, ref.ticks);  // and skipping did skip
    }
  }
}

TEST(DramSystem, SkipIdleAndReferenceModeAreIdenticalWhenTheDramClockIsFaster) {
  for (std::uint64_t seed : {5, 6, 7, 8, 9, 10, 12, 13}) {
    for (const bool small : {true, false}) {
      DramParams p = small ? small_system(RefreshMode::PerBank) : test::default_params();
      if (!small) p.channels = 2;
      p.core_hz = 1.1e9;  // below the 1.3 GHz command clock: several edges per core cycle
      const RunResult skip = run_random(p, true, seed, 3000);
      const RunResult ref = run_random(p, false, seed, 3000);
      EXPECT_EQ(skip.responses, ref.responses) << seed << " " << small;
      EXPECT_EQ(skip.cmds, ref.cmds) << seed << " " << small;
    }
  }
}

TEST(DramSystem, RunsAreDeterministic) {
  const DramParams p = small_system(RefreshMode::PerBank);
  const RunResult a = run_random(p, true, 3, 2000);
  const RunResult b = run_random(p, true, 3, 2000);
  EXPECT_EQ(a.responses, b.responses);
  EXPECT_EQ(a.cmds, b.cmds);
}

TEST(DramSystem, AnIdleDramCostsNoTicks) {
  DramParams p = test::default_params();
  p.refresh = RefreshMode::Off;
  Engine engine;
  Driver driver(engine);
  HbmDram dram(p, engine, &driver);
  driver.attach(&dram);
  driver.plan(0, DramReq{0, 1, false, 0xF});
  driver.plan(5'000'000, DramReq{128, 2, false, 0xF});
  ASSERT_TRUE(driver.run());
  EXPECT_LT(engine.ticks_processed(), 100u);
}

TEST(DramSystem, RefreshCostsAtMostTwoTicksPerRefreshCommand) {
  Engine engine;
  Driver driver(engine);
  DramParams p = test::default_params();
  p.refresh = RefreshMode::PerBank;  // the busier kind
  HbmDram dram(p, engine, &driver);
  driver.attach(&dram);
  engine.run([] { return false; }, 200'000);
  const std::uint64_t refs = dram.totals().refreshes;
  EXPECT_GT(refs, 10000u);
  EXPECT_LE(engine.ticks_processed(), 2 * refs + 160);  // the REF's edge and the one after
}

// Sampled simulation's spans (Dram::quiet_until): an idle DRAM told that no request comes before
// a cycle counts the refreshes due until shortly before it instead of simulating each, so the
// refresh count is the same, the ticks are far fewer, and a request after the quiet period is
// served exactly as without it (the last refreshes before it ran as usual).
TEST(DramSystem, AQuietPeriodCountsItsRefreshesWithoutSimulatingThem) {
  for (const RefreshMode mode : {RefreshMode::AllBank, RefreshMode::PerBank}) {
    struct Out {
      std::uint64_t refreshes, ticks;
      std::vector<std::pair<std::uint32_t, Cycle>> responses;
    };
    auto run = [&](bool quiet) {
      Engine engine;
      Driver driver(engine);
      DramParams p = test::default_params();
      p.refresh = mode;
      HbmDram dram(p, engine, &driver);
      driver.attach(&dram);
      driver.plan(0, DramReq{0, 1, false, 0xF});  // opens a row before the quiet period
      if (quiet) dram.quiet_until(1'000'000);
      driver.plan(1'000'000, DramReq{0, 2, false, 0xF});
      driver.plan(1'000'000, DramReq{1 << 20, 3, true, 0xF});
      EXPECT_TRUE(driver.run());
      Out o{dram.totals().refreshes, engine.ticks_processed(), {}};
      for (const auto& r : driver.responses) o.responses.emplace_back(r.req.tag, r.at);
      return o;
    };
    const Out slow = run(false), fast = run(true);
    EXPECT_EQ(fast.refreshes, slow.refreshes);
    EXPECT_GT(slow.refreshes, 1000u);
    EXPECT_LT(fast.ticks * 10, slow.ticks);
    EXPECT_EQ(fast.responses, slow.responses);
  }
}

TEST(DramSystem, StatisticsIncludeNsightComputeNames) {
  Engine engine;
  Driver driver(engine);
  HbmDram dram(test::default_params(), engine, &driver);
  driver.attach(&dram);
  Stats s;
  dram.register_stats(s);
  driver.plan(0, DramReq{0, 1, false, 0xF});
  driver.plan(0, DramReq{128, 2, false, 0x3});
  driver.plan(0, DramReq{256, 3, true, 0xF});
  ASSERT_TRUE(driver.run());
  EXPECT_EQ(s.value("dram__bytes_read.sum"), 128 + 64);
  EXPECT_EQ(s.value("dram__bytes_write.sum"), 128);
  EXPECT_EQ(s.value("dram__sectors_read.sum"), 6);
  EXPECT_EQ(s.value("gpu.dram.reads"), 2);
  EXPECT_EQ(s.value("gpu.dram.writes"), 1);
  EXPECT_EQ(s.value("gpu.dram.row_hit_rate"), 0);
  EXPECT_GT(s.value("gpu.dram.avg_read_latency"), 0);
  EXPECT_TRUE(s.has("gpu.dram.ch[79].utilization"));
}

TEST(DramSystem, PeakBandwidthFormula) {
  Engine engine;
  Driver driver(engine);
  HbmDram dram(test::default_params(), engine, &driver);
  // 80 channels x 2 pseudo-channels x 4 bytes x 5.2 GT/s / 1.83 GHz.
  EXPECT_NEAR(dram.peak_bytes_per_core_cycle(), 80 * 2 * 4 * 5.2e9 / 1.83e9, 1e-9);
}

}  // namespace
}  // namespace simfa::mem
