// Scheduling policies, the reference (no-skip) mode and determinism.
#include <gtest/gtest.h>

#include "helpers.h"

namespace simfa::test {
namespace {

std::vector<Instr> busy_thread(int n) {
  std::vector<Instr> v;
  for (int i = 0; i < n; ++i) v.push_back(Instr::bar_arrive(static_cast<std::uint16_t>(15)));
  return v;
}

TEST(Scheduler, GreedyThenOldestKeepsTheSameThread) {
  // Two threads of 3 one-cycle instructions: GTO runs WG0 to the end first.
  Recorder rec;
  auto t = make_trace({{busy_thread(3), {Instr::bubble(1)}}});
  auto r = run(std::move(t), small_gpu({"sm.scheduler=gto"}), true, &rec);
  // WG1's bubble starts at t3 under GTO.
  auto b = rec.of(core::SpanKind::Bubble);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].start, 3u);
}

TEST(Scheduler, LooseRoundRobinAlternates) {
  Recorder rec;
  auto t = make_trace({{busy_thread(3), {Instr::bubble(1)}}});
  run(std::move(t), small_gpu({"sm.scheduler=lrr"}), true, &rec);
  auto b = rec.of(core::SpanKind::Bubble);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].start, 1u);
}

TEST(Scheduler, IssueWidthTwoIssuesTwoThreadsPerCycle) {
  auto t = make_trace({{busy_thread(10), busy_thread(10)}});
  auto r = run(std::move(t), small_gpu({"sm.issue_width=2"}));
  EXPECT_EQ(r.cycles, 10u);
  auto r1 = run(make_trace({{busy_thread(10), busy_thread(10)}}), small_gpu());
  EXPECT_EQ(r1.cycles, 20u);
}

// A pipeline with everything in it: TMA, stages, WGMMA groups, barriers, bubbles, stores, LDG,
// several CTAs on several SMs with a cluster.
trace::MemoryTrace mixed_trace() {
  trace::KernelInfo k;
  k.stages = 2;
  k.stage_arrivals = 2;
  k.cluster = 2;
  k.smem = 80 * 1024;
  trace::TensorMap m;
  m.rank = 2;
  m.dims = {128, 4096};
  m.strides = {2, 256};
  m.box = {64, 64};
  m.esz = 2;
  k.define_tmap(m);
  std::vector<std::vector<std::vector<Instr>>> ctas;
  for (int c = 0; c < 8; ++c) {
    std::vector<Instr> prod, c1, c2;
    for (int i = 0; i < 6; ++i) {
      const std::uint16_t s = i % 2;
      prod.push_back(Instr::acquire(s, 8192 * 2));
      prod.push_back(Instr::tma_tensor(0, (c * 6 + i) * 64 * 256ULL, 0, s, 0x3));
      for (auto* cw : {&c1, &c2}) {
        const bool first = cw == &c1;
        cw->push_back(Instr::mb_wait(s));
        cw->push_back(Instr::bar_wait(first ? 1 : 2, 1));
        for (int w = 0; w < 4; ++w) cw->push_back(wgmma(176, static_cast<std::uint16_t>(i % 2)));
        cw->push_back(Instr::wgmma_commit(static_cast<std::uint16_t>(i % 2)));
        cw->push_back(Instr::bar_arrive(first ? 2 : 1));
        cw->push_back(Instr::wgmma_wait(15, 0));
        cw->push_back(Instr::release(s, 0x3));
        cw->push_back(Instr::bubble(first ? 300 : 280));
      }
    }
    c1.insert(c1.begin(), Instr::bar_arrive(1));
    c2.push_back(Instr::ldg(0x100000 + c * 128, 4));
    c2.push_back(Instr::tma_store(0, 0x200000 + c * 128 * 256ULL, 0, 0));
    c2.push_back(Instr::tma_commit(0));
    c2.push_back(Instr::tma_wait(0, 0));
    // A symmetric cluster pipeline: every stage receives both CTAs' halves and 4 releases.
    ctas.push_back({prod, c1, c2});
  }
  k.stage_arrivals = 4;
  auto t = make_trace(ctas, k);
  return t;
}

TEST(Engine, SkipAndNoSkipGiveIdenticalStats) {
  auto sets = small_gpu({"gpu.num_sms=4", "mem.fixed.bytes_per_cycle=64"});
  auto a = run(mixed_trace(), sets, true);
  auto b = run(mixed_trace(), sets, false);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.stats.dump(), b.stats.dump());
  EXPECT_GT(a.cycles, 1000u);
}

TEST(Engine, EveryTimingTraceIdenticalWithoutSkipping) {
  // The hand-timed traces of timing_test.cpp, run both ways.
  std::vector<trace::MemoryTrace> traces;
  traces.push_back(make_trace({{{Instr::bubble(10), Instr::bubble(5)}}}));
  traces.push_back(make_trace({{{wgmma(128, 0), wgmma(256, 0), Instr::wgmma_commit(0), Instr::wgmma_wait(0, 0)}}}));
  traces.push_back(make_trace({{{Instr::acquire(0, 256), Instr::tma_bulk(0, 0, 256, 0), Instr::mb_wait(0)}}}));
  traces.push_back(make_trace({{{Instr::bar_wait(1, 1), Instr::bubble(10), Instr::bar_arrive(2)},
                                {Instr::bubble(3), Instr::bar_arrive(1), Instr::bar_wait(2, 1)}}}));
  traces.push_back(make_trace({{{Instr::ldg(0x1000, 4)}}}));
  for (auto& t : traces) {
    auto copy = t;
    auto a = run(std::move(t), small_gpu(), true);
    auto b = run(std::move(copy), small_gpu(), false);
    EXPECT_EQ(a.cycles, b.cycles);
    EXPECT_EQ(a.stats.dump(), b.stats.dump());
  }
}

// The memory hierarchy hands most TMA responses to the SM ahead of their arrival (no engine
// message; MemClient::defer_response) in the skipping mode only: the reference mode delivers each
// at its cycle. With a slow ejection port (responses queue at the SM) and few sectors in flight
// (generation waits for responses), both give the same cycles and statistics.
TEST(Engine, ResponsesTakenAheadOfTimeChangeNothing) {
  for (const char* sectors : {"tma.max_inflight_sectors=512", "tma.max_inflight_sectors=12"}) {
    auto sets = small_gpu({"gpu.num_sms=4", "mem.model=hierarchy", "mem.xbar.sm_bytes_per_cycle=16", sectors});
    auto a = run(mixed_trace(), sets, true);
    auto b = run(mixed_trace(), sets, false);
    EXPECT_EQ(a.cycles, b.cycles) << sectors;
    EXPECT_EQ(a.stats.dump(), b.stats.dump()) << sectors;
    EXPECT_LT(a.events, b.events) << sectors;  // responses were taken ahead of time
  }
}

TEST(Engine, TwoRunsGiveIdenticalResults) {
  auto sets = small_gpu({"gpu.num_sms=4", "mem.fixed.bytes_per_cycle=64"});
  Config cfg = make_config("h800", sets);
  auto t1 = mixed_trace(), t2 = mixed_trace();
  auto a = run_trace(t1, cfg), b = run_trace(t2, cfg);
  auto ja = result_json(a, cfg), jb = result_json(b, cfg);
  for (auto* j : {&ja, &jb}) j->erase("sim_wall_s"), j->erase("sim_cycles_per_s");
  EXPECT_EQ(ja.dump(), jb.dump());
}

}  // namespace
}  // namespace simfa::test
