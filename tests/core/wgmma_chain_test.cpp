// The WGMMA timing rules against the H200 measurement they come from: every point of
// data/measured/h200/ubench/wgmma_chain.csv (a WarpGroup issues c WGMMAs m64nNk16 back to back,
// then commit and wait_group 0) replayed as a trace. The issue time of the c-th WGMMA (when the
// WarpGroup can issue its next instruction) and the release of the wait are compared with the
// measured clock64 readings. Also: the RS slowdown and the CUDA-core slowdown while the tensor pipe
// runs, on hand-computed traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "helpers.h"

namespace simfa::test {
namespace {

struct ChainPoint {
  int n = 0;
  bool rs = false;
  int chain = 0;
  double issue = 0, complete = 0;
};

std::vector<ChainPoint> read_chain_csv() {
  const std::string path = std::string(SIMFA_SOURCE_DIR) + "/data/measured/h200/ubench/wgmma_chain.csv";
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::vector<ChainPoint> v;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // n,mode,acc,chain,issue_cycles,complete_cycles,clock_mhz
      EXPECT_EQ(line.rfind("n,mode,acc,chain,issue_cycles,complete_cycles", 0), 0u) << line;
      header = false;
      continue;
    }
    std::stringstream ss(line);
    std::string f[7];
    for (auto& x : f) std::getline(ss, x, ',');
    if (f[2] != "dep") continue;
    v.push_back({std::stoi(f[0]), f[1] == "RS", std::stoi(f[3]), std::stod(f[4]), std::stod(f[5])});
  }
  return v;
}

Instr wgmma_mode(std::uint16_t n, bool rs) {
  return Instr::wgmma(0, 0, 0, 64, n, 16, DType::F16, true, rs ? MmaMode::RS : MmaMode::SS, false, 0);
}

TEST(WgmmaChain, ReplaysTheH200Measurement) {
  const auto pts = read_chain_csv();
  ASSERT_EQ(pts.size(), 77u);  // 7 configurations x 11 chain lengths
  double sum_err = 0;
  for (const ChainPoint& p : pts) {
    std::vector<Instr> code;
    for (int i = 0; i < p.chain; ++i) code.push_back(wgmma_mode(static_cast<std::uint16_t>(p.n), p.rs));
    code.push_back(Instr::wgmma_commit(0));
    code.push_back(Instr::wgmma_wait(0, 0));
    Recorder rec;
    run(make_trace({{code}}), small_gpu(), true, &rec);
    const auto waits = rec.of(core::SpanKind::WaitWgmma);
    ASSERT_EQ(waits.size(), 1u);
    const double issue = static_cast<double>(waits[0].start) - 1;  // COMMIT took the cycle before
    const double complete = static_cast<double>(waits[0].end);
    const std::string what = std::to_string(p.n) + (p.rs ? " RS" : " SS") + " chain " + std::to_string(p.chain);
    EXPECT_NEAR(issue, p.issue, 4.0) << what;
    EXPECT_NEAR(complete, p.complete, 4.0) << what;
    sum_err += std::abs(issue - p.issue) + std::abs(complete - p.complete);
  }
  const double mean = sum_err / (2.0 * static_cast<double>(pts.size()));
  std::printf("wgmma_chain.csv replay: mean |error| %.2f cycles over %zu points\n", mean, pts.size());
  EXPECT_LT(mean, 1.5);  // mean |error| in cycles
}

TEST(WgmmaChain, OutstandingLimitStallsTheEighthIssue) {
  // n256 SS: issue cycles 11 + 28 k; the 8th WGMMA's issue ends at 11 + 7 x 28 = 207 unless it must
  // wait for the 1st to retire: pipe 1..129, slot free at 129 + 38 = 167 < 207, so no stall; the
  // 9th would end at 235 but needs the 2nd's slot: pipe 129..257, free at 295.
  Recorder rec;
  std::vector<Instr> code(9, wgmma_mode(256, false));
  code.push_back(Instr::wgmma_commit(0));
  code.push_back(Instr::wgmma_wait(0, 0));
  run(make_trace({{code}}), small_gpu(), true, &rec);
  const auto stalls = rec.of(core::SpanKind::WaitWgmmaBuffer);
  ASSERT_EQ(stalls.size(), 1u);
  EXPECT_EQ(stalls[0].start, 235u);
  EXPECT_EQ(stalls[0].end, 295u);
  // Without the limit the WarpGroup never waits.
  Recorder rec2;
  run(make_trace({{code}}), small_gpu({"tensor.max_outstanding=64"}), true, &rec2);
  EXPECT_TRUE(rec2.of(core::SpanKind::WaitWgmmaBuffer).empty());
}

TEST(Interference, BubbleSlowsWhileTheTensorPipeRuns) {
  // WG0: WGMMA n256 SS at t0 (pipe 1..129). WG1: BUBBLE 200 issued at t1: at 1/1.72 per cycle
  // while the pipe runs it has done 128 / 1.72 = 74.4 cycles of work at 129, the remaining 125.6
  // at full speed end at 129 + 126 = 255 (ceil). With sm.interference off it ends at 201.
  auto t = [] {
    return make_trace({{{wgmma_mode(256, false), Instr::wgmma_commit(0), Instr::wgmma_wait(0, 0)},
                        {Instr::bubble(200), Instr::bar_arrive(3)}}});
  };
  Recorder rec;
  auto r = run(t(), small_gpu(), true, &rec);
  const auto b = rec.of(core::SpanKind::Bubble);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].start, 1u);
  EXPECT_EQ(b[0].end, 255u);
  EXPECT_EQ(r.stat("gpu.sm[0].bubble_cycles"), 200);
  EXPECT_EQ(r.stat("gpu.sm[0].bubble_elapsed_cycles"), 254);
  Recorder rec2;
  run(t(), small_gpu({"sm.interference=false"}), true, &rec2);
  ASSERT_EQ(rec2.of(core::SpanKind::Bubble).size(), 1u);
  EXPECT_EQ(rec2.of(core::SpanKind::Bubble)[0].end, 201u);
}

TEST(Interference, FixedBubbleKeepsItsMeasuredLength) {
  // As BubbleSlowsWhileTheTensorPipeRuns, but the bubble is a measured duration: 1 + 200 = 201.
  auto t = make_trace({{{wgmma_mode(256, false), Instr::wgmma_commit(0), Instr::wgmma_wait(0, 0)},
                        {Instr::bubble(200, /*fixed=*/true), Instr::bar_arrive(3)}}});
  Recorder rec;
  run(std::move(t), small_gpu(), true, &rec);
  ASSERT_EQ(rec.of(core::SpanKind::Bubble).size(), 1u);
  EXPECT_EQ(rec.of(core::SpanKind::Bubble)[0].end, 201u);
}

TEST(Interference, ConcurrentBubblesShareThePipes) {
  // Two 170-cycle bubbles from t0 and t1: t0..t1 one alone (1 done), then both at 1/1.7: the first
  // ends at 1 + ceil(169 x 1.7) = 289, the second has done 288 / 1.7 = 169.4 and ends at 290.
  auto t = make_trace({{{Instr::bubble(170)}, {Instr::bubble(170)}}});
  Recorder rec;
  run(std::move(t), small_gpu(), true, &rec);
  auto b = rec.of(core::SpanKind::Bubble);
  ASSERT_EQ(b.size(), 2u);
  std::sort(b.begin(), b.end(), [](const core::Span& x, const core::Span& y) { return x.start < y.start; });
  EXPECT_EQ(b[0].end, 289u);
  EXPECT_EQ(b[1].end, 290u);
}

TEST(Interference, ThreeConcurrentBubblesUseTheTripleFactor) {
  // Three 225-cycle bubbles from t0, t1, t2 (sm.cuda_pair_slowdown 1.70, triple 2.25). t0..t1 the
  // first alone (224 left); t1..t2 two at 1/1.7 (223.412 and 224.412 left); from t2 all three at
  // 1/2.25: ends predicted at 2 + ceil(502.68) = 505, 2 + ceil(504.93) = 507, 2 + ceil(506.25) =
  // 509. At 505 the first ends: the others have done 503 / 2.25 = 223.556 (0.856 and 1.444 left)
  // and go on at 1/1.7: 505 + ceil(1.456) = 507, 505 + ceil(2.456) = 508. At 507 the second ends;
  // the third has 1.444 - 2 / 1.7 = 0.268 left alone: 508.
  auto t = make_trace({{{Instr::bubble(225)}, {Instr::bubble(225)}, {Instr::bubble(225)}}});
  Recorder rec;
  run(std::move(t), small_gpu(), true, &rec);
  auto b = rec.of(core::SpanKind::Bubble);
  ASSERT_EQ(b.size(), 3u);
  std::sort(b.begin(), b.end(), [](const core::Span& x, const core::Span& y) { return x.start < y.start; });
  EXPECT_EQ(b[0].end, 505u);
  EXPECT_EQ(b[1].end, 507u);
  EXPECT_EQ(b[2].end, 508u);
}

TEST(Interference, RsWgmmaSlowsNextToCudaCoreWork) {
  // WG1 starts BUBBLE 1000 at t0; WG0's RS WGMMA n128 issued at t1 starts at t2 with pipe time
  // (64 + 5.4) x 1.075 = 74.6 -> 74 cycles (0.6 carried), so it leaves the pipe at 76 and is
  // visible 46.6 - 1 -> 46 cycles later (rounded) at 122; WG0's wait re-issues at 122.
  auto t = make_trace({{{Instr::bubble(1000)},
                        {wgmma_mode(128, true), Instr::wgmma_commit(0), Instr::wgmma_wait(0, 0)}}});
  Recorder rec;
  run(std::move(t), small_gpu(), true, &rec);
  const auto waits = rec.of(core::SpanKind::WaitWgmma);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].end, 122u);
}

}  // namespace
}  // namespace simfa::test
