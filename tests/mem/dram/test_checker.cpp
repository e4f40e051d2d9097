// An independent protocol checker replays the command log of random and streaming runs and checks
// every JEDEC constraint, the row state, the command buses and the data bus, pair by pair. It
// shares no code with PcTiming, so a scheduler bug that PcTiming's bookkeeping misses shows here.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dram_test_util.h"
#include "sim/rng.h"

namespace simfa::mem {
namespace {

std::vector<std::string> check_protocol(const std::vector<CmdRecord>& log, const DramParams& p) {
  const DramTiming& t = p.t;
  std::vector<std::string> errors;
  auto fail = [&](const CmdRecord& a, const CmdRecord& b, const char* rule) {
    if (errors.size() < 20)
      errors.push_back(fmt::format("ch{} pc{}: {} bank {} at {} after {} bank {} at {}: {}",
                                   b.channel, b.pc, cmd_name(b.cmd), b.bank, b.at, cmd_name(a.cmd),
                                   a.bank, a.at, rule));
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<CmdRecord>> by_pc;
  std::map<std::pair<std::uint32_t, DCycle>, int> row_bus, col_bus;
  for (const CmdRecord& c : log) {
    auto& bus = is_column(c.cmd) ? col_bus : row_bus;
    if (++bus[{c.channel, c.at}] > 1) fail(c, c, "two commands on one command bus in a cycle");
    by_pc[{c.channel, c.pc}].push_back(c);
  }
  const std::uint32_t bpg = p.banks_per_group;
  // No constraint spans more than this, so older commands need not be compared.
  const DCycle horizon = std::max({t.tRC, t.tRFC, t.tRFCpb, t.tCWL + t.tBL + t.tWR,
                                   t.tCL + t.tBL + t.tRTRS, t.tCWL + t.tBL + t.tWTR_L}) +
                         1;
  for (auto& [key, cmds] : by_pc) {
    std::vector<std::uint32_t> open(p.banks(), kNoRow);
    std::vector<DCycle> acts;
    for (std::size_t j = 0; j < cmds.size(); ++j) {
      const CmdRecord& b = cmds[j];
      // Row state.
      switch (b.cmd) {
        case Cmd::Act:
          if (open[b.bank] != kNoRow) fail(b, b, "ACT to an open bank");
          open[b.bank] = b.row;
          acts.push_back(b.at);
          if (acts.size() >= 5 && b.at < acts[acts.size() - 5] + t.tFAW) fail(b, b, "tFAW");
          break;
        case Cmd::Pre:
          if (open[b.bank] == kNoRow) fail(b, b, "PRE to a closed bank");
          open[b.bank] = kNoRow;
          break;
        case Cmd::Rd:
        case Cmd::Wr:
          if (open[b.bank] != b.row) fail(b, b, "column command to a row that is not open");
          break;
        case Cmd::RefAb:
          for (std::uint32_t x = 0; x < p.banks(); ++x)
            if (open[x] != kNoRow) fail(b, b, "REFab with an open bank");
          break;
        case Cmd::RefPb:
          if (open[b.bank] != kNoRow) fail(b, b, "REFpb to an open bank");
          break;
      }
      // Pairwise gaps against earlier commands of this pseudo-channel.
      for (std::size_t i = j; i-- > 0;) {
        const CmdRecord& a = cmds[i];
        if (b.at - a.at > horizon) break;
        const DCycle gap = b.at - a.at;
        const bool bank = a.bank == b.bank, group = a.bank / bpg == b.bank / bpg;
        const Cmd x = a.cmd, y = b.cmd;
        auto need = [&](bool applies, DCycle min, const char* rule) {
          if (applies && gap < min) fail(a, b, rule);
        };
        need(x == Cmd::Act && y == Cmd::Act && bank, t.tRC, "tRC");
        need(x == Cmd::Act && y == Cmd::Act && group, t.tRRD_L, "tRRD_L");
        need(x == Cmd::Act && y == Cmd::Act, t.tRRD_S, "tRRD_S");
        need(x == Cmd::Act && y == Cmd::Pre && bank, t.tRAS, "tRAS");
        need(x == Cmd::Act && y == Cmd::Rd && bank, t.tRCD_rd, "tRCD_rd");
        need(x == Cmd::Act && y == Cmd::Wr && bank, t.tRCD_wr, "tRCD_wr");
        need(x == Cmd::Pre && y == Cmd::Act && bank, t.tRP, "tRP");
        need(x == Cmd::Pre && (y == Cmd::RefAb || (y == Cmd::RefPb && bank)), t.tRP, "tRP to REF");
        need(x == Cmd::Rd && y == Cmd::Pre && bank, t.tRTP, "tRTP");
        need(x == Cmd::Wr && y == Cmd::Pre && bank, t.tCWL + t.tBL + t.tWR, "tWR");
        need(is_column(x) && x == y && group, t.tCCD_L, "tCCD_L");
        need(is_column(x) && x == y, t.tCCD_S, "tCCD_S");
        need(x == Cmd::Wr && y == Cmd::Rd && group, t.tCWL + t.tBL + t.tWTR_L, "tWTR_L");
        need(x == Cmd::Wr && y == Cmd::Rd, t.tCWL + t.tBL + t.tWTR_S, "tWTR_S");
        need(x == Cmd::RefAb && (y == Cmd::Act || y == Cmd::RefAb), t.tRFC, "tRFC");
        need(x == Cmd::RefPb && y == Cmd::Act && bank, t.tRFCpb, "tRFCpb");
        // Data bus: read data [RD + tCL, + tBL), write data [WR + tCWL, + tBL), tRTRS between a
        // read burst and a following write burst.
        if (is_column(x) && is_column(y)) {
          const DCycle a0 = a.at + (x == Cmd::Rd ? t.tCL : t.tCWL);
          const DCycle b0 = b.at + (y == Cmd::Rd ? t.tCL : t.tCWL);
          const DCycle sep = x == Cmd::Rd && y == Cmd::Wr ? t.tRTRS : 0;
          if (b0 < a0 + t.tBL + sep && a0 < b0 + t.tBL + sep) fail(a, b, "data-bus overlap");
        }
      }
    }
  }
  return errors;
}

std::vector<CmdRecord> random_run(const DramParams& p, std::uint64_t seed, int n) {
  Engine engine;
  test::Driver driver(engine);
  driver.per_cycle = 4;
  HbmDram dram(p, engine, &driver);
  driver.attach(&dram);
  std::vector<CmdRecord> log;
  dram.set_command_log(&log);
  Rng rng(seed, "checker");
  Cycle at = 0;
  Addr base = 0;
  for (int i = 0; i < n; ++i) {
    if (rng.next() % 16 == 0) at += rng.next() % 200;
    if (rng.next() % 3 == 0) base = (rng.next() % (1ULL << 28)) / 128 * 128;
    const Addr line = base + (rng.next() % 256) * 128;
    driver.plan(at, DramReq{line, static_cast<std::uint32_t>(i), rng.next() % 3 == 0,
                            static_cast<std::uint8_t>(rng.next() % 5 == 0 ? 0x6 : 0xF)});
  }
  EXPECT_TRUE(driver.run());
  EXPECT_EQ(driver.responses.size(), static_cast<std::size_t>(n));
  return log;
}

TEST(DramProtocol, RandomTrafficObeysEveryConstraint) {
  for (RefreshMode mode : {RefreshMode::AllBank, RefreshMode::PerBank}) {
    for (const char* sched : {"frfcfs", "fcfs"}) {
      DramParams p = test::default_params();
      p.channels = 2;
      p.refresh = mode;
      p.scheduler = sched;
      const auto log = random_run(p, 17, 6000);
      ASSERT_GT(log.size(), 6000u);
      const auto errors = check_protocol(log, p);
      for (const auto& e : errors) ADD_FAILURE() << e;
    }
  }
}

TEST(DramProtocol, StreamingObeysEveryConstraint) {
  DramParams p = test::default_params();
  p.channels = 4;
  Engine engine;
  test::Streamer s(engine, 12000, p.line_bytes, 2048, 16);
  HbmDram dram(p, engine, &s);
  s.attach(&dram);
  std::vector<CmdRecord> log;
  dram.set_command_log(&log);
  engine.wake(&s, 0);
  ASSERT_TRUE(engine.run([&] { return s.done(); }));
  const auto errors = check_protocol(log, p);
  for (const auto& e : errors) ADD_FAILURE() << e;
}

TEST(DramProtocol, TheCheckerCatchesAViolation) {
  const DramParams p = test::default_params();
  std::vector<CmdRecord> log = {{0, 0, 0, Cmd::Act, 0, 5}, {p.t.tRCD_rd - 1, 0, 0, Cmd::Rd, 0, 5}};
  EXPECT_FALSE(check_protocol(log, p).empty());
  log[1].at = p.t.tRCD_rd;
  EXPECT_TRUE(check_protocol(log, p).empty());
}

}  // namespace
}  // namespace simfa::mem
