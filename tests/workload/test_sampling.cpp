// Sampled simulation (workload/sampler.h, docs/sampling.md): a sampled run agrees with the full-
// detail run of the same kernel, says what it did, and falls back to full detail when there is no
// steady state to fast-forward. Small grids (fa3.grid) keep the full-detail references fast.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/run.h"
#include "sim/error.h"
#include "workload/emitter.h"
#include "workload/fa3_kernel.h"
#include "workload/fa3_source.h"
#include "workload/sampler.h"
#include "workload_test_util.h"

namespace simfa::workload {
namespace {

using testing::shape;

struct Pair {
  RunResult full, sampled;
};

Pair run_both(const spec::AttentionShape& s, std::vector<std::string> sets) {
  sets.push_back("sample.mode=off");
  const Config off = make_config("h100", sets);
  sets.back() = "sample.mode=on";
  const Config on = make_config("h100", sets);
  Fa3Source a(s, off, 132), b(s, on, 132);
  return {run_trace(a, off), run_trace(b, on)};
}

double rel(double sampled, double full) { return std::abs(sampled - full) / full; }

// The report's wall time per phase: none negative, together inside the run's (they are measured
// from the sampler's start to the kernel's end, within sim_wall_s); a run without a span has none
// in spans or checks (its time after a steady state found too late to skip anything is its tail).
void expect_phase_walls(const RunResult& r) {
  const trace::SamplingReport& s = r.sampling;
  for (double w : {s.wall_search_s, s.wall_spans_s, s.wall_checks_s, s.wall_tail_s}) EXPECT_GE(w, 0);
  EXPECT_LE(s.wall_search_s + s.wall_spans_s + s.wall_checks_s + s.wall_tail_s, r.sim_wall_s);
  EXPECT_GT(s.wall_search_s, 0);
  if (s.spans == 0) {
    EXPECT_EQ(s.wall_spans_s, 0);
    EXPECT_EQ(s.wall_checks_s, 0);
    return;
  }
  EXPECT_GT(s.wall_spans_s, 0);
  EXPECT_GT(s.wall_tail_s, 0);
  if (!s.check_errors.empty()) {
    EXPECT_GT(s.wall_checks_s, 0);
  }
}

TEST(Sampling, AShortKernelRunsInFullDetailAndSaysWhy) {
  // 2 tiles of 6 blocks per CTA: no steady state before the tail.
  const Pair p = run_both(shape(1024, 1024, 16, 1, 128), {});
  EXPECT_FALSE(p.sampled.sampling.sampled);
  EXPECT_TRUE(p.sampled.sampling.requested);
  EXPECT_NE(p.sampled.sampling.note.find("full detail: "), std::string::npos) << p.sampled.sampling.note;
  EXPECT_DOUBLE_EQ(p.sampled.sampling.detail_fraction, 1.0);
  // Watching the run (one step per read, the sampler's marks) changes nothing.
  EXPECT_EQ(p.sampled.cycles, p.full.cycles);
  EXPECT_EQ(p.sampled.stat("lts__t_bytes.sum"), p.full.stat("lts__t_bytes.sum"));
  EXPECT_EQ(p.full.sampling.note, "full detail");
  expect_phase_walls(p.sampled);
}

struct Case {
  const char* name;
  spec::AttentionShape s;
  std::vector<std::string> sets;
};

class SampledAgainstFull : public ::testing::TestWithParam<Case> {};

TEST_P(SampledAgainstFull, LatencyAndWorkAgree) {
  const Case& c = GetParam();
  std::vector<std::string> sets = c.sets;
  // 16 CTAs (fast references) with short windows and few checks. With so few CTAs the block cost
  // changes from tile to tile (how many CTAs share a head's K/V): a harder case than a full grid.
  // Frozen offsets (sample.drift=false): on 16 CTAs the drift overshoots where the CTAs stay
  // together (D64_original: L2 bytes +24% with it, +33% before session 18, +5% without;
  // docs/sampling.md "Limits").
  // Sampling.SpansLetTheCTAsDriftWithinTheTileStartBurst tests the drift, the accuracy table of
  // docs/sampling.md its effect on full grids. Uniform spans (sample.first_reads=false): with
  // 4-block windows on 16 CTAs a period's counts per block move by a few percent with where the CTAs
  // resume (sample.tail_blocks=12 instead of 8 already takes D128_causal_dynamic's FLOPs 0.7% off),
  // and first reads, which move the resume points, took them 1.8% off there (latency -0.35%);
  // Sampling.SpansPlanWhoReadsTheKVFirst tests first reads. The replay when the last cluster is cut
  // (sample.replay_after_drain=false, the default until session 22): these grids' data fits in the
  // L2, so their few write-backs come from set conflicts, and with the pre-sleep O tiles replayed
  // before the span D128_current_cluster writes back 812 KB against 557 KB in full detail (3.0% of
  // O); Sampling.TheReplayWaitsForThePreSleepTraffic tests the drain, docs/sampling.md ("Accuracy and
  // speed", session 22) its effect on full grids.
  for (const char* kv : {"fa3.grid=16", "sample.window_blocks=4", "sample.min_windows=3", "sample.checks=2",
                         "sample.tail_blocks=8", "sample.min_skip_blocks=8", "sample.drift=false",
                         "sample.first_reads=false", "sample.replay_after_drain=false"})
    sets.push_back(kv);
  const Pair p = run_both(c.s, sets);
  const trace::SamplingReport& r = p.sampled.sampling;
  ASSERT_TRUE(r.sampled) << r.note;
  EXPECT_LT(r.detail_fraction, 0.5) << r.note;
  EXPECT_GE(r.spans, 1);
  EXPECT_EQ(r.check_errors.size(), 2u);
  EXPECT_LT(rel(p.sampled.latency_us, p.full.latency_us), 0.02)
      << "sampled " << p.sampled.latency_us << " us, full " << p.full.latency_us << " us; " << r.note;
  // Work per block is exact: the extrapolated FLOPs and instructions match.
  EXPECT_LT(rel(p.sampled.stat("gpu.tensor.flops"), p.full.stat("gpu.tensor.flops")), 0.005);
  EXPECT_LT(rel(p.sampled.stat("gpu.instructions"), p.full.stat("gpu.instructions")), 0.01);
  // L2 bytes within 6% here (a full grid does better: docs/sampling.md).
  EXPECT_LT(rel(p.sampled.stat("lts__t_bytes.sum"), p.full.stat("lts__t_bytes.sum")), 0.06);
  // DRAM bytes come from the span replay (1/8 of the L2's sets, spread over every slice, run the
  // skipped lines through their tags): the skipped work's traffic was replayed and counted.
  EXPECT_GT(r.replay_lines, 0);
  EXPECT_GT(r.replay_read_bytes, 0);
  const double rd_s = p.sampled.stat("dram__bytes_read.sum"), rd_f = p.full.stat("dram__bytes_read.sum");
  EXPECT_LT(rel(rd_s, rd_f), 0.05) << "DRAM reads: sampled " << rd_s << ", full " << rd_f << "; " << r.note;
  // Write-backs are the O bytes stored less what is still dirty at the end; these grids store a
  // few MB into a 50 MB L2, so most of it stays: the error is measured against the stored bytes.
  // O is 16-bit for every case here (FP16 inputs).
  const double o_bytes = static_cast<double>(c.s.batch * c.s.heads_q() * c.s.seqlen_q * c.s.head_dim * 2);
  const double wr_s = p.sampled.stat("dram__bytes_write.sum"), wr_f = p.full.stat("dram__bytes_write.sum");
  EXPECT_LT(std::abs(wr_s - wr_f), 0.02 * o_bytes) << "DRAM writes: sampled " << wr_s << ", full " << wr_f
                                                   << ", O stored " << o_bytes << "; " << r.note;
  // Every O byte stored is written back or still dirty at the end, in both runs: the sampled run
  // scales its replay slices' write-backs and dirty lines alike (docs/sampling.md, step 5), so
  // what it moves between the two (as the pre-sleep stores do, "Limits") it cannot lose or add.
  // Measured: within 16 bytes here, 0.004% at 64K tokens (set stride 8).
  const double dirty_s = p.sampled.stat("gpu.l2.dirty_bytes"), dirty_f = p.full.stat("gpu.l2.dirty_bytes");
  EXPECT_NEAR(wr_f + dirty_f, o_bytes, 1e-3 * o_bytes) << "full: written back " << wr_f << ", dirty " << dirty_f;
  EXPECT_NEAR(wr_s + dirty_s, o_bytes, 1e-3 * o_bytes) << "sampled: written back " << wr_s << ", dirty " << dirty_s
                                                       << "; " << r.note;
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, SampledAgainstFull,
    ::testing::Values(Case{"D128_current_cluster", shape(8192, 8192, 4, 1, 128), {}},
                      Case{"D64_original", shape(8192, 8192, 4, 1, 64), {"fa3.version=original"}},
                      Case{"D128_causal_dynamic", shape(8192, 8192, 8, 1, 128, true), {}}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// A detail period's rates leave out the windows at its edges that a tile boundary's traffic spills
// into (docs/sampling.md step 7): hand-made windows, 132 CTAs crossing a boundary together.
TEST(Sampling, PeriodRatesLeaveOutTheEdgesATileBoundarySpillsInto) {
  // Window 0 follows a window with tile starts (a dropped one after a wake-up), window 2 holds a tile
  // boundary and window 3 takes its spill, both inside; window 4 holds tile starts whose spill falls
  // after the period.
  const std::vector<double> tiles = {0, 0, 132, 0, 45}, before = {132, 0, 0, 132, 0};
  EXPECT_EQ(rate_windows(tiles, before, 0, 5), std::make_pair(std::size_t{1}, std::size_t{4}));
  EXPECT_EQ(rate_windows(tiles, before, 1, 99), std::make_pair(std::size_t{1}, std::size_t{4}));  // to clamped
  EXPECT_EQ(rate_windows(tiles, before, 2, 4), std::make_pair(std::size_t{2}, std::size_t{4}));
  // Nothing left (each window follows a boundary or holds one): the whole period.
  EXPECT_EQ(rate_windows(tiles, before, 3, 5), std::make_pair(std::size_t{3}, std::size_t{5}));
  EXPECT_EQ(rate_windows({45, 0}, {87, 45}, 0, 2), std::make_pair(std::size_t{0}, std::size_t{2}));
  // No tile start anywhere near: every window.
  EXPECT_EQ(rate_windows({0, 0, 0}, {0, 0, 0}, 0, 3), std::make_pair(std::size_t{0}, std::size_t{3}));
  EXPECT_EQ(rate_windows({}, {}, 0, 0), std::make_pair(std::size_t{0}, std::size_t{0}));
}

// A span charges every tile start it skips, at the cost the block marks measured around tile
// boundaries, and takes the measured resume overhead off its sleep (docs/sampling.md step 4). The
// development set's h100 D256 4K MHA (batch 4, original kernel), here on 32 CTAs and clocked as
// `simfa run --clock-mhz 1830` clocks it: when the resumed tile's prologue cancelled one skipped
// tile start (until session 15) it came out 2.7% fast (the development set's run, 132 CTAs at a
// fixed 1830 MHz: 2.5%); now within 1.5%.
TEST(Sampling, SpansChargeEveryTileStartTheySkip) {
  const spec::AttentionShape s = shape(4096, 4096, 8, 1, 256, false, 4);
  auto config = [](const char* mode) {
    // SampledAgainstFull's settings on 32 CTAs.
    Config c = make_config("h100", {"fa3.version=original", "fa3.grid=32", "sample.window_blocks=4",
                                    "sample.min_windows=3", "sample.checks=2", "sample.tail_blocks=8",
                                    "sample.min_skip_blocks=8", mode});
    set_clock_mhz(c, 1830, "test", "test");
    apply_clock_model(c);
    return c;
  };
  const Config off = config("sample.mode=off"), on = config("sample.mode=on");
  Fa3Source a(s, off, 132), b(s, on, 132);
  const RunResult full = run_trace(a, off), sampled = run_trace(b, on);
  const trace::SamplingReport& r = sampled.sampling;
  ASSERT_TRUE(r.sampled) << r.note;
  EXPECT_LT(rel(sampled.latency_us, full.latency_us), 0.015)
      << "sampled " << sampled.latency_us << " us, full " << full.latency_us << " us; " << r.note;
  ASSERT_EQ(r.span_costs.size(), static_cast<std::size_t>(r.spans));
  bool resumed = false;
  for (std::size_t i = 0; i < r.span_costs.size(); ++i) {
    const trace::SpanCost& c = r.span_costs[i];
    EXPECT_GT(c.block_cycles, 0);
    EXPECT_GT(c.tile_start_cycles, 0);  // a D256 tile boundary costs more than a block (4,000-10,000)
    // Nothing measured before the first wake-up; after it a resume costs less than a block.
    if (i == 0) {
      EXPECT_EQ(c.resume_cycles, 0);
    }
    EXPECT_LT(std::abs(c.resume_cycles), c.block_cycles);
    resumed |= c.resume_cycles != 0;
  }
  EXPECT_TRUE(resumed);
}

// The settings of SampledAgainstFull, on a 16-CTA grid.
std::vector<std::string> small_grid(std::vector<std::string> sets) {
  for (const char* kv : {"fa3.grid=16", "sample.window_blocks=4", "sample.min_windows=3", "sample.checks=2",
                         "sample.tail_blocks=8", "sample.min_skip_blocks=8"})
    sets.push_back(kv);
  return sets;
}

// A sampled run reads the counters at every window; the SMs' TMA units apply most responses
// after their arrival (taken ahead of time, without an engine message) and bring their counts up
// to date before such a read. The reference mode (every component ticks every cycle) delivers
// every response at its cycle: both give the same run.
TEST(Sampling, ResponsesTakenAheadOfTimeChangeNoWindow) {
  const spec::AttentionShape s = shape(4096, 4096, 2, 2, 64);
  const Config on = make_config("h100", small_grid({"sample.mode=on", "gpu.num_sms=16"}));
  Fa3Source a(s, on, 16), b(s, on, 16);
  RunOptions reference;
  reference.skip_idle = false;
  const RunResult x = run_trace(a, on), y = run_trace(b, on, reference);
  ASSERT_TRUE(x.sampling.sampled) << x.sampling.note;
  EXPECT_EQ(x.cycles, y.cycles);
  EXPECT_EQ(x.stats.dump(), y.stats.dump());
  EXPECT_EQ(x.sampling.check_errors, y.sampling.check_errors);
  EXPECT_LT(x.events, y.events);
}

// Skip-idle against reference mode (as the test above) for a whole run where the DRAM's command
// clock is faster than the core clock (H800 PCIe: HBM2e at 1,562.5 MHz, cores at 1,425 MHz
// power-limited), so that some core cycles hold two DRAM edges, and a request accepted in one is
// visible at neither. A channel that skipped ahead across
// such an edge (a trial of session 22 that took the look at the edge after a command early) made
// this run 21 cycles shorter than the reference; the DRAM-only tests did not see it.
TEST(EngineModes, SkipIdleMatchesTheReferenceWhereDramEdgesOutpaceTheCore) {
  const spec::AttentionShape s = shape(256, 256, 8, 4, 128);
  Config c = make_config("h800-pcie", {});
  apply_clock_model(c);  // as simfa run: the power-limited clock
  const auto sms = static_cast<int>(c.i("gpu.num_sms"));  // 114
  Fa3Source a(s, c, sms), b(s, c, sms);
  RunOptions reference;
  reference.skip_idle = false;
  const RunResult x = run_trace(a, c), y = run_trace(b, c, reference);
  EXPECT_EQ(x.cycles, y.cycles);
  EXPECT_TRUE(x.stats.dump() == y.stats.dump()) << "the statistics differ";
}

// Tiles much longer than the windows that find the steady state (here 64 blocks, Llama-3 405B at
// 64K tokens 372): one limited span skips inside every CTA's first tile before the tile starts
// have been seen, then the regular spans and checks follow, and the run still agrees with full
// detail (SampledAgainstFull.D64_original checks the same kernel's accuracy).
TEST(Sampling, LongTilesTakeALimitedFirstSpan) {
  const Config on = make_config("h100", small_grid({"sample.mode=on", "fa3.version=original"}));
  Fa3Source a(shape(8192, 8192, 4, 1, 64), on, 132);
  const RunResult r = run_trace(a, on);
  ASSERT_TRUE(r.sampling.sampled) << r.sampling.note;
  EXPECT_EQ(r.sampling.spans, 4);  // the limited one, then sample.checks (2) + 1
  EXPECT_EQ(r.sampling.check_errors.size(), 2u);
  expect_phase_walls(r);  // every phase, the search twice (before and after the limited span)
}

// The counters of the skipped work: each span's at the per-block rates of the detail periods on
// both sides of it, every L2 slice counter extrapolated (evictions and shadow copies from the span
// replay), the write-backs as many as the replayed DRAM writes (one DRAM write per dirty line
// evicted), and a maximum (the MSHR peak) not extrapolated at all. A 4 MiB L2 so that lines are
// evicted and written back.
TEST(Sampling, SkippedWorkCountsLikeTheDetailAroundIt) {
  const spec::AttentionShape s = shape(8192, 8192, 2, 4, 64);
  const Config full = make_config("h100", small_grid({"sample.mode=off", "mem.l2.size=4MiB"}));
  const Config on = make_config("h100", small_grid({"sample.mode=on", "mem.l2.size=4MiB"}));
  Fa3Source a(s, full, 132), b(s, on, 132);
  const RunResult f = run_trace(a, full), y = run_trace(b, on);
  ASSERT_TRUE(y.sampling.sampled) << y.sampling.note;
  ASSERT_LT(y.sampling.detail_fraction, 0.5);
  auto near = [&](const char* k, double tol) {
    ASSERT_GT(f.stat(k), 0) << k;
    EXPECT_LT(rel(y.stat(k), f.stat(k)), tol) << k << ": sampled " << y.stat(k) << ", full " << f.stat(k);
  };
  near("gpu.l2.evictions", 0.05);
  near("gpu.l2.shadow_inserts", 0.05);  // RemoteCopy's shadow copies, as the replay made them
  near("gpu.l2.writebacks", 0.03);
  near("dram__bytes_write.sum", 0.03);
  near("gpu.dram.writes", 0.03);
  // The write-backs and the DRAM writes agree as in detail (one per dirty line evicted).
  EXPECT_NEAR(y.stat("gpu.l2.writebacks") / y.stat("gpu.dram.writes"),
              f.stat("gpu.l2.writebacks") / f.stat("gpu.dram.writes"), 0.01);
  // The MSHR peak is the detailed parts' (extrapolated like a count, it exceeded the entries there are).
  EXPECT_GT(y.stat("gpu.l2.mshr_peak"), 0);
  EXPECT_LE(y.stat("gpu.l2.mshr_peak"), static_cast<double>(on.i("mem.l2.mshrs")));
}

// sample.replay_after_drain (on by default since session 22): the span replay waits until every cut
// WarpGroup sleeps and the memory system is empty, so that the O tiles stored just before the
// sleeps reach the L2 before the span's traffic, age through it and are written back there, as in
// the real kernel, instead of coming after it and staying dirty (docs/sampling.md step 5). Every O
// byte is still written back or dirty at the end, and the timing hardly moves.
TEST(Sampling, TheReplayWaitsForThePreSleepTraffic) {
  const spec::AttentionShape s = shape(8192, 8192, 4, 1, 128);
  const Config now = make_config("h100", small_grid({"sample.mode=on", "sample.replay_after_drain=false"}));
  const Config drained = make_config("h100", small_grid({"sample.mode=on"}));
  ASSERT_TRUE(drained.b("sample.replay_after_drain"));
  Fa3Source a(s, now, 132), b(s, drained, 132);
  const RunResult x = run_trace(a, now), y = run_trace(b, drained);
  ASSERT_TRUE(x.sampling.sampled && y.sampling.sampled) << x.sampling.note;
  ASSERT_GE(y.sampling.spans, 2);
  const double o_bytes = static_cast<double>(s.batch * s.heads_q() * s.seqlen_q * s.head_dim * 2);
  const double wr_x = x.stat("dram__bytes_write.sum"), wr_y = y.stat("dram__bytes_write.sum");
  EXPECT_NEAR(wr_y + y.stat("gpu.l2.dirty_bytes"), o_bytes, 1e-3 * o_bytes);
  EXPECT_GT(wr_y, wr_x) << "the pre-sleep O lines are written back in the spans";
  EXPECT_LT(rel(y.latency_us, x.latency_us), 0.01);
}

// Set sampling (sample.replay_set_stride, sample.replay_lines): counting every set of every slice,
// the default (every 8th set class of every slice), and a budget too small for either (a larger
// k) replay about 1/k of the lines and estimate the same DRAM traffic.
TEST(Sampling, SetSamplingCountsWhatEverySetCounts) {
  const spec::AttentionShape s = shape(8192, 8192, 4, 1, 128);
  const Config every = make_config("h100", small_grid({"sample.mode=on", "sample.replay_set_stride=1"}));
  const Config some = make_config("h100", small_grid({"sample.mode=on", "sample.replay_lines=1000"}));
  const Config dflt = make_config("h100", small_grid({"sample.mode=on"}));
  Fa3Source a(s, every, 132), b(s, some, 132), c(s, dflt, 132);
  const RunResult x = run_trace(a, every), y = run_trace(b, some), z = run_trace(c, dflt);
  ASSERT_TRUE(x.sampling.sampled && y.sampling.sampled && z.sampling.sampled) << x.sampling.note;
  EXPECT_EQ(x.sampling.replay_set_stride, 1u);
  EXPECT_EQ(z.sampling.replay_set_stride, 8u);
  ASSERT_GT(y.sampling.replay_set_stride, 8u);
  EXPECT_NEAR(x.sampling.replay_lines / z.sampling.replay_lines, 8.0, 0.15 * 8.0);
  EXPECT_LT(rel(z.stat("dram__bytes_read.sum"), x.stat("dram__bytes_read.sum")), 0.03);
  const double k = y.sampling.replay_set_stride;
  EXPECT_NEAR(x.sampling.replay_lines / y.sampling.replay_lines, k, 0.15 * k);
  EXPECT_LT(rel(y.stat("dram__bytes_read.sum"), x.stat("dram__bytes_read.sum")), 0.03);
  const double o_bytes = static_cast<double>(s.batch * s.heads_q() * s.seqlen_q * s.head_dim * 2);
  EXPECT_LT(std::abs(y.stat("dram__bytes_write.sum") - x.stat("dram__bytes_write.sum")), 0.02 * o_bytes);
  // Timing sees the same L2 contents but for the warming of the replay slices' other sets.
  EXPECT_LT(rel(y.latency_us, x.latency_us), 0.005);
}

// The set classes are counted in powers of two (64 classes): any other stride is a user error
// naming the key, before anything runs.
TEST(Sampling, ReplaySetStrideMustBeAPowerOfTwo) {
  for (const char* bad : {"sample.replay_set_stride=3", "sample.replay_set_stride=48"}) {
    const Config cfg = make_config("h100", small_grid({"sample.mode=on", bad}));
    try {
      Fa3Source src(shape(2048, 2048, 1, 1, 128), cfg, 132);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("sample.replay_set_stride"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(make_config("h100", {"sample.replay_set_stride=128"}), UserError);  // above the range
}

// A span that ends inside a tile leaves the CTA to run that tile's prologue again when it wakes,
// Q load included; the real kernel loaded that Q at the tile's start, inside the span. So the
// warming gives the other slices that Q (they serve the woken CTAs' loads instead of DRAM, where
// all of them would arrive at once), while the replay slices do not count it: their detailed load
// at the wake is the one that counts. Seen through a tap on the replay: Q copies that are warmed
// but never counted, one set per CTA and span at most.
class QTap final : public trace::CopyReplay {
 public:
  QTap(trace::CopyReplay& in, const Engine& e) : in_(in), engine_(e) {}
  void replay(const trace::Instr& c, std::uint32_t cta, bool warm) override {
    if (c.op == trace::Op::TMA_TENSOR && c.map == ids::kMapQ) (warm ? warmed : counted).insert(c.gmem);
    if (!warm) note_counted();
    in_.replay(c, cta, warm);
  }
  double dram_peak_bytes_per_cycle() const override { return in_.dram_peak_bytes_per_cycle(); }
  std::uint32_t prepare(const trace::Instr& c) override { return in_.prepare(c); }
  void replay_prepared(std::uint32_t id, std::uint32_t cta) override {
    note_counted();
    in_.replay_prepared(id, cta);
  }
  std::size_t prepared_lines() const override { return in_.prepared_lines(); }
  void forget() override { in_.forget(); }
  void quiet_until(Cycle t) override {
    quiet = t;
    in_.quiet_until(t);
  }
  void call_at(EventTarget* target, std::uint32_t tag, Cycle t) override {
    ++wake_calls;
    in_.call_at(target, tag, t);
  }
  std::uint64_t bytes(const trace::Instr& c) const override { return in_.bytes(c); }
  Counts counts() const override { return in_.counts(); }
  void set_set_stride(std::uint32_t k) override { in_.set_set_stride(k); }
  double replay_sets() const override { return in_.replay_sets(); }
  std::uint32_t line_bytes() const override { return in_.line_bytes(); }
  std::set<std::uint64_t> warmed, counted;
  Cycle quiet = 0;  // the latest quiet_until: the first wake of the latest span
  // Counted copies replayed before / at or after that first wake (while some cluster runs).
  std::uint64_t counted_asleep = 0, counted_awake = 0;
  std::uint64_t wake_calls = 0;  // wake-ups at which the sampler asked to replay what it held

 private:
  void note_counted() { ++(engine_.now() >= quiet && quiet > 0 ? counted_awake : counted_asleep); }
  trace::CopyReplay& in_;
  const Engine& engine_;
};

class TapSource final : public trace::TraceSource {
 public:
  explicit TapSource(trace::TraceSource& in) : in_(in) {}
  const trace::KernelInfo& kernel() const override { return in_.kernel(); }
  std::uint32_t wgs_per_cta(std::uint32_t cta) const override { return in_.wgs_per_cta(cta); }
  trace::CtaProgram open(std::uint32_t cta) override { return in_.open(cta); }
  bool prevalidated() const override { return in_.prevalidated(); }
  void run_started(const Engine& e, Stats& s, trace::CopyReplay* r) override {
    if (r) tap_ = std::make_unique<QTap>(*r, e);
    in_.run_started(e, s, tap_.get());
  }
  void run_finished(Cycle end, Stats& s) override { in_.run_finished(end, s); }
  trace::SamplingReport sampling() const override { return in_.sampling(); }
  std::unique_ptr<QTap> tap_;

 private:
  trace::TraceSource& in_;
};

// A sampled run of `s` with a tap on its replay.
struct TappedRun {
  TappedRun(const spec::AttentionShape& s, const Config& c) : src(s, c, 132), tap(src), r(run_trace(tap, c)) {}
  Fa3Source src;
  TapSource tap;
  RunResult r;
};

TEST(Sampling, WokenCTAsFindTheQOfTheirResumedTileInTheL2) {
  const Config on = make_config("h100", small_grid({"sample.mode=on"}));
  const spec::AttentionShape s = shape(8192, 8192, 4, 1, 128);
  const TappedRun run(s, on);
  const RunResult& r = run.r;
  ASSERT_TRUE(r.sampling.sampled) << r.sampling.note;
  ASSERT_TRUE(run.tap.tap_);
  const QTap& t = *run.tap.tap_;
  std::size_t warmed_only = 0;
  for (std::uint64_t g : t.warmed) warmed_only += t.counted.count(g) == 0;
  // At most one Q load (its column slabs) per CTA and span.
  const Fa3Kernel k = resolve_fa3(s, on, 132);
  const auto slabs = static_cast<std::size_t>((s.head_dim + k.tma_cols - 1) / k.tma_cols);
  const auto ctas = static_cast<std::size_t>(on.i("fa3.grid"));
  EXPECT_GT(warmed_only, 0u);
  EXPECT_LE(warmed_only, ctas * static_cast<std::size_t>(r.sampling.spans) * slabs);
}

// A span's replay runs when every cluster has been cut, ahead of time, but a cluster that wakes
// before the others (near its end, where a cut leaves sample.tail_blocks) runs in detail while they
// still sleep: the blocks they skip after its wake-up are held back and replayed as the detailed
// run reaches their predicted time, so that its requests and theirs meet the L2 in time order
// (the dirty O lines it writes then meet the evictions the others' later K/V loads cause); a
// cluster that wakes gets whatever is held for before its wake-up first (CopyReplay::call_at). Here
// 260 tiles on 16 CTAs: 4 CTAs run a 17th tile, so the other 12 end a tile earlier.
TEST(Sampling, TheReplayWaitsForTheDetailedRunWhereAClusterWakesEarly) {
  const Config on = make_config("h100", small_grid({"sample.mode=on"}));
  const TappedRun run(shape(8320, 8320, 4, 1, 128), on);
  ASSERT_TRUE(run.r.sampling.sampled) << run.r.sampling.note;
  ASSERT_TRUE(run.tap.tap_);
  EXPECT_GT(run.tap.tap_->counted_awake, 0u);
  EXPECT_GT(run.tap.tap_->counted_asleep, 10 * run.tap.tap_->counted_awake);
  // The later clusters get their own held blocks at their wake-up, before their first request,
  // even where no block mark of an awake cluster comes in between.
  EXPECT_GT(run.tap.tap_->wake_calls, 0u);
}

// CTAs that share K/V (here the four query heads of a KV head, and the m-blocks of each) start in
// lock-step and drift apart in the real run, so that fewer of their requests merge. The report shows
// the L2 sectors per block rising over the detail periods and warns; a kernel whose traffic per
// block holds (cluster multicast, no GQA) gets no warning. Without sample.drift a span keeps the
// CTAs' offsets as they were, and the sampled L2 traffic is low, as the warning says it may be.
TEST(Sampling, WarnsWhenTheL2TrafficPerBlockRises) {
  const Pair p = run_both(shape(4096, 4096, 2, 4, 64), small_grid({}));
  const trace::SamplingReport& r = p.sampled.sampling;
  ASSERT_TRUE(r.sampled) << r.note;
  ASSERT_GE(r.l2_sectors_per_block.size(), 2u);
  const double threshold = make_config("h100", {}).f("sample.drift_warning");
  EXPECT_GT(r.l2_sectors_per_block.back(), (1 + threshold) * r.l2_sectors_per_block.front());
  EXPECT_NE(r.warning.find("L2 request bytes"), std::string::npos) << r.warning;
  EXPECT_TRUE(p.full.sampling.warning.empty());

  const Config frozen = make_config("h100", small_grid({"sample.mode=on", "sample.drift=false"}));
  Fa3Source lock(shape(4096, 4096, 2, 4, 64), frozen, 132);
  const RunResult z = run_trace(lock, frozen);
  ASSERT_TRUE(z.sampling.sampled) << z.sampling.note;
  EXPECT_NE(z.sampling.warning.find("L2 request bytes"), std::string::npos) << z.sampling.warning;
  EXPECT_GT(p.full.stat("lts__t_bytes.sum"), 1.05 * z.stat("lts__t_bytes.sum"));  // 7% here

  const Config on = make_config("h100", small_grid({"sample.mode=on"}));
  Fa3Source steady(shape(8192, 8192, 4, 1, 128), on, 132);
  const RunResult y = run_trace(steady, on);
  ASSERT_TRUE(y.sampling.sampled) << y.sampling.note;
  ASSERT_GE(y.sampling.l2_sectors_per_block.size(), 2u);
  EXPECT_TRUE(y.sampling.warning.empty()) << y.sampling.warning;
}

// sample.drift: at each cut a cluster's wake-up moves by the span's time times its measured pace,
// the moves summed over the spans held within the DRAM burst of the tile starts (the bytes a tile
// start reads from DRAM, fitted, times the running CTAs, at the DRAM's peak bandwidth). The bound
// scales with the DRAM bandwidth: twice the data rate, half the burst. A burst shorter than the
// coalescer's window sets no bound: a CTA it delays still merges into its partner's in-flight
// requests and catches up. Without sample.drift the spans freeze the offsets and report no bounds.
// Single-CTA clusters, one CTA per SM: the two CTAs of an SM pair (one coalescer) move at the
// pair's pace, and their own offset grows as measured, within half a block (pair_offsets).
TEST(Sampling, SpansLetTheCTAsDriftWithinTheTileStartBurst) {
  auto run = [&](const spec::AttentionShape& s, std::vector<std::string> sets) {
    sets.push_back("sample.mode=on");
    const Config c = make_config("h100", small_grid(sets));
    Fa3Source src(s, c, 132);
    return run_trace(src, c);
  };
  const double window = static_cast<double>(make_config("h100", {}).u("mem.lrc.window"));
  // Head dim 64, original kernel: 16 CTAs' tile starts read about 1.5 MB, a burst of about 1,500
  // cycles, longer than the window.
  const spec::AttentionShape d64 = shape(8192, 8192, 4, 1, 64);
  const RunResult on = run(d64, {"fa3.version=original"});
  const RunResult off = run(d64, {"fa3.version=original", "sample.drift=false"});
  const double rate = make_config("h100", {}).f("dram.data_rate");
  const RunResult fast = run(d64, {"fa3.version=original", fmt::format("dram.data_rate={}", 4 * rate)});
  ASSERT_TRUE(on.sampling.sampled && off.sampling.sampled && fast.sampling.sampled);
  ASSERT_EQ(on.sampling.drift_bounds.size(), static_cast<std::size_t>(on.sampling.spans));
  EXPECT_GT(on.sampling.drift_bounds.front(), window);
  for (double b : off.sampling.drift_bounds) EXPECT_EQ(b, 0);
  EXPECT_NE(on.cycles, off.cycles);  // the wake-ups moved
  ASSERT_EQ(on.sampling.pair_offsets.size(), on.sampling.drift_bounds.size());
  ASSERT_EQ(on.sampling.span_costs.size(), on.sampling.pair_offsets.size());
  double grown = 0;
  for (std::size_t i = 0; i < on.sampling.pair_offsets.size(); ++i) {
    EXPECT_GE(on.sampling.pair_offsets[i], 0);
    EXPECT_LE(on.sampling.pair_offsets[i], 0.5 * on.sampling.span_costs[i].block_cycles + 1e-6);
    grown = std::max(grown, on.sampling.pair_offsets[i]);
  }
  EXPECT_GT(grown, 0);
  for (double o : off.sampling.pair_offsets) EXPECT_EQ(o, 0);
  // Head dim 128, current kernel: clusters of two CTAs, each on one SM pair, move as one.
  const RunResult clustered = run(shape(8192, 8192, 4, 1, 128), {});
  ASSERT_TRUE(clustered.sampling.sampled);
  ASSERT_FALSE(clustered.sampling.pair_offsets.empty());
  for (double o : clustered.sampling.pair_offsets) EXPECT_EQ(o, 0);
  // Twice the bandwidth: about half the burst (the fitted bytes move a little with the timing);
  // four times: a quarter, below the window.
  const RunResult twice = run(d64, {"fa3.version=original", fmt::format("dram.data_rate={}", 2 * rate)});
  ASSERT_FALSE(twice.sampling.drift_bounds.empty());
  const double ratio = twice.sampling.drift_bounds.front() / on.sampling.drift_bounds.front();
  EXPECT_GT(ratio, 0.4);
  EXPECT_LT(ratio, 0.6);
  ASSERT_FALSE(fast.sampling.drift_bounds.empty());
  EXPECT_EQ(fast.sampling.drift_bounds.front(), 0);
  // GQA head dim 64 on 16 CTAs: the tile starts read about 0.3 MB, a burst of about 150 cycles.
  const spec::AttentionShape gqa = shape(4096, 4096, 2, 4, 64);
  const RunResult locked = run(gqa, {}), frozen = run(gqa, {"sample.drift=false"});
  ASSERT_TRUE(locked.sampling.sampled);
  for (double b : locked.sampling.drift_bounds) EXPECT_EQ(b, 0);
  for (double o : locked.sampling.pair_offsets) EXPECT_EQ(o, 0);
  EXPECT_EQ(locked.cycles, frozen.cycles);
  EXPECT_EQ(locked.stat("lts__t_bytes.sum"), frozen.stat("lts__t_bytes.sum"));
}

// sample.first_reads (docs/sampling.md step 4): every cluster's span is planned at once, in time
// order, each block at the measured time of its kind: a block whose K/V no CTA has read within the
// L2's residency (or read less than the DRAM latency earlier) waits for DRAM; one whose K/V another
// CTA brought into the L2 does not. Head dim 256, causal: a first read costs about 3,250 cycles, a
// hit 2,620, and the planned spans agree with full detail (+0.3% here). A compute-bound kernel costs
// both kinds alike (within sample.tolerance) and plans nothing: the same run as without.
TEST(Sampling, SpansPlanWhoReadsTheKVFirst) {
  const spec::AttentionShape d256 = shape(8192, 8192, 8, 1, 256, true);
  const Pair p = run_both(d256, small_grid({}));
  const trace::SamplingReport& r = p.sampled.sampling;
  ASSERT_TRUE(r.sampled) << r.note;
  ASSERT_EQ(r.first_reads.size(), static_cast<std::size_t>(r.spans));
  bool planned = false;
  for (const trace::FirstReadSpan& f : r.first_reads) {
    EXPECT_GT(f.first_read_cycles, 1.1 * f.hit_cycles);
    EXPECT_GE(f.planned_first_share, 0);
    EXPECT_LE(f.planned_first_share, 1);
    planned = planned || f.planned_first_share > 0;
  }
  EXPECT_TRUE(planned);
  EXPECT_LT(rel(p.sampled.latency_us, p.full.latency_us), 0.02)
      << "sampled " << p.sampled.latency_us << " us, full " << p.full.latency_us << " us; " << r.note;

  auto run = [&](const spec::AttentionShape& s, std::vector<std::string> sets) {
    sets.push_back("sample.mode=on");
    const Config c = make_config("h100", small_grid(sets));
    Fa3Source src(s, c, 132);
    return run_trace(src, c);
  };
  const RunResult off = run(d256, {"sample.first_reads=false"});
  ASSERT_TRUE(off.sampling.sampled) << off.sampling.note;
  EXPECT_TRUE(off.sampling.first_reads.empty());
  EXPECT_NE(off.cycles, p.sampled.cycles);

  const spec::AttentionShape d64 = shape(8192, 8192, 4, 1, 64);
  const RunResult alike = run(d64, {"fa3.version=original"});
  const RunResult without = run(d64, {"fa3.version=original", "sample.first_reads=false"});
  ASSERT_TRUE(alike.sampling.sampled) << alike.sampling.note;
  ASSERT_FALSE(alike.sampling.first_reads.empty());
  for (const trace::FirstReadSpan& f : alike.sampling.first_reads) EXPECT_EQ(f.planned_first_share, 0);
  EXPECT_EQ(alike.cycles, without.cycles);
  EXPECT_EQ(alike.stat("lts__t_bytes.sum"), without.stat("lts__t_bytes.sum"));
  EXPECT_EQ(alike.stat("dram__bytes_read.sum"), without.stat("dram__bytes_read.sum"));
}

}  // namespace
}  // namespace simfa::workload
