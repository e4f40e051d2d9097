// Semantics of every instruction and every stall/wake path, observed through spans and stats.
#include <gtest/gtest.h>

#include "helpers.h"
#include "sim/error.h"

namespace simfa::test {
namespace {

using core::SpanKind;

TEST(Semantics, AcquireBlocksUntilBothConsumersRelease) {
  trace::KernelInfo k;
  k.stages = 1;
  k.stage_arrivals = 2;
  // Consumer A releases at ~t1, consumer B after a 500-cycle bubble; the producer's second
  // ACQUIRE must wait for B.
  auto t = make_trace({{{Instr::acquire(0, 0), Instr::acquire(0, 0), Instr::bubble(1)},
                        {Instr::mb_wait(0), Instr::release(0)},
                        {Instr::mb_wait(0), Instr::bubble(500), Instr::release(0)}}},
                      k);
  Recorder rec;
  auto r = run(std::move(t), small_gpu(), true, &rec);
  auto waits = rec.of(SpanKind::WaitAcquire);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].wg, 0);
  EXPECT_GE(waits[0].end, 500u);  // released only by the second consumer
  EXPECT_GT(r.stat("gpu.sm[0].wait_cycles.acquire"), 490);
}

TEST(Semantics, WgmmaWaitOneReturnsWhileNewestGroupInFlight) {
  // Group 0 (n64: 32 cycles) then group 1 (n64). t0 WGMMA (11 issue cycles; pipe 1..33, visible
  // 33 + 53 = 86), t11 COMMIT, t12 WGMMA (after a COMMIT: 11 again; pipe 33..65, visible 118), t23
  // COMMIT, t24 WGMMA_WAIT 1 1 blocks and passes when group 0 is visible (86) while group 1 is not.
  auto t = make_trace({{{wgmma(64, 0), Instr::wgmma_commit(0), wgmma(64, 1), Instr::wgmma_commit(1),
                         Instr::wgmma_wait(1, 1), Instr::bubble(1)}}});
  Recorder rec;
  auto r = run(std::move(t), small_gpu(), true, &rec);
  auto waits = rec.of(SpanKind::WaitWgmma);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(waits[0].start, 24u);
  EXPECT_EQ(waits[0].end, 86u);
  auto groups = rec.of(SpanKind::WgmmaGroup);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1].end, 118u);
  EXPECT_EQ(r.cycles, 118u);  // the CTA retires when its last WGMMA is visible
}

TEST(Semantics, BarWaitReleasedByKthArrival) {
  // WG0 waits for 3 arrivals; WG1..3 arrive at t1, t11, t21 (after bubbles). Released at the third.
  auto t = make_trace({{{Instr::bar_wait(5, 3), Instr::bubble(1)},
                        {Instr::bar_arrive(5)},
                        {Instr::bubble(10), Instr::bar_arrive(5)},
                        {Instr::bubble(20), Instr::bar_arrive(5)}}});
  Recorder rec;
  run(std::move(t), small_gpu(), true, &rec);
  auto waits = rec.of(SpanKind::WaitBarrier);
  ASSERT_EQ(waits.size(), 1u);
  // Third arrival: WG2's bubble (t2) runs alone for a cycle, then shares the CUDA-core pipes with
  // WG3's (t3) at 1/1.70 each: its 9 cycles left end at 3 + ceil(15.3) = 19; WG3 has done
  // 16 / 1.7 = 9.41 of its 20 by then and needs 10.59 more alone: it ends and arrives at 30.
  EXPECT_EQ(waits[0].end, 30u);
}

TEST(Semantics, BarrierGenerationsCarryExtraArrivals) {
  // Two arrivals before the waiter: the first generation completes with one, the second is kept
  // for the next BAR_WAIT (the FA3 ping-pong's pending arrival across tiles).
  auto t = make_trace({{{Instr::bubble(10), Instr::bar_wait(0, 1), Instr::bar_wait(0, 1)},
                        {Instr::bar_arrive(0), Instr::bar_arrive(0)}}});
  auto r = run(std::move(t), small_gpu());
  EXPECT_EQ(r.stat("gpu.sm[0].wait_cycles.barrier"), 0);
}

TEST(Semantics, TmaDeduplicatesLines) {
  // A box of 16 x 4 FP16 with a 64-byte row stride: rows at 0, 64, 128, 192 share 2 lines.
  trace::KernelInfo k;
  trace::TensorMap m;
  m.rank = 2;
  m.dims = {32, 16};
  m.strides = {2, 64};
  m.box = {16, 4};
  m.esz = 2;
  k.define_tmap(m);
  auto mk = [&] { return make_trace({{{Instr::acquire(0), Instr::tma_tensor(0, 0, 0, 0), Instr::mb_wait(0)}}}, k); };
  auto r = run(mk(), small_gpu());
  EXPECT_EQ(r.stat("gpu.sm[0].tma.lines"), 2);
  auto r2 = run(mk(), small_gpu({"tma.dedup=false"}));
  EXPECT_EQ(r2.stat("gpu.sm[0].tma.lines"), 64);  // one request per element
}

TEST(Semantics, TmaQueueFullStallsIssue) {
  trace::KernelInfo k;
  k.stages = 3;
  auto t = make_trace({{{Instr::acquire(0, 128), Instr::tma_bulk(0, 0, 128, 0), Instr::acquire(1, 128),
                         Instr::tma_bulk(0, 128, 128, 1), Instr::acquire(2, 128), Instr::tma_bulk(0, 256, 128, 2),
                         Instr::mb_wait(0), Instr::mb_wait(1), Instr::mb_wait(2)}}},
                      k);
  auto r = run(std::move(t), small_gpu({"tma.queue_depth=1"}));
  EXPECT_GT(r.stat("gpu.sm[0].wait_cycles.tma_queue"), 0);
  EXPECT_EQ(r.stat("gpu.sm[0].tma.loads"), 3);
}

TEST(Semantics, WgmmaBufferFullStallsIssue) {
  std::vector<Instr> code;
  for (int i = 0; i < 4; ++i) code.push_back(wgmma(256, 0));
  code.push_back(Instr::wgmma_commit(0));
  code.push_back(Instr::wgmma_wait(0, 0));
  auto r = run(make_trace({{code}}), small_gpu({"tensor.issue_buffer=2"}));
  EXPECT_GT(r.stat("gpu.sm[0].wait_cycles.wgmma_buffer"), 0);
  EXPECT_EQ(r.stat("gpu.sm[0].tensor.busy_cycles"), 4 * 128);
}

TEST(Semantics, MulticastFillsBothCtasOfACluster) {
  // Cluster of 2 on 2 SMs: each CTA loads half and multicasts to both; each stage expects both halves.
  trace::KernelInfo k;
  k.cluster = 2;
  k.stages = 1;
  auto cta = [](std::uint64_t addr) {
    return std::vector<std::vector<Instr>>{
        {Instr::acquire(0, 256), Instr::tma_bulk(0, addr, 128, 0, 0x3), Instr::mb_wait(0)}};
  };
  auto t = make_trace({cta(0), cta(128)}, k);
  auto r = run(std::move(t), small_gpu({"gpu.num_sms=2"}));
  EXPECT_EQ(r.stat("gpu.sm[0].ctas") + r.stat("gpu.sm[1].ctas"), 2);
  EXPECT_EQ(r.stat("gpu.sm[0].tma.lines") + r.stat("gpu.sm[1].tma.lines"), 2);
}

TEST(Semantics, MissingReleaseIsADeadlockWithAReport) {
  trace::KernelInfo k;
  k.stages = 1;
  k.stage_arrivals = 1;
  auto t = make_trace({{{Instr::acquire(0, 0), Instr::acquire(0, 0)}, {Instr::mb_wait(0)}}}, k);
  try {
    run(std::move(t), small_gpu());
    FAIL() << "expected a deadlock";
  } catch (const DeadlockError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos);
    EXPECT_NE(e.report().find("ACQUIRE_STAGE 0"), std::string::npos) << e.report();
    EXPECT_NE(e.report().find("0 of 1 RELEASE_STAGEs"), std::string::npos) << e.report();
  }
}

TEST(Semantics, WaitForAFillThatNeverComesIsADeadlock) {
  auto t = make_trace({{{Instr::mb_wait(0)}}});
  EXPECT_THROW(run(std::move(t), small_gpu()), DeadlockError);
}

TEST(Semantics, GeneratedInstructionsAreValidatedWhenFetched) {
  // A source that was not validated up front (like a generator): the core checks each instruction.
  struct Src : trace::TraceSource {
    trace::KernelInfo k;
    Src() { k.ctas = 1; k.threads = 128; }
    const trace::KernelInfo& kernel() const override { return k; }
    std::uint32_t wgs_per_cta(std::uint32_t) const override { return 1; }
    trace::CtaProgram open(std::uint32_t) override {
      trace::CtaProgram p;
      p.wgs.push_back({"gen", std::make_unique<trace::VectorStream>(std::vector<Instr>{wgmma(12, 0)}, "gen")});
      return p;
    }
  } src;
  Config cfg = make_config("h800", small_gpu());
  try {
    run_trace(src, cfg);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("WGMMA N = 12"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simfa::test

namespace simfa::test {
namespace {
TEST(Semantics, AReleaseCountsAsConsumingThePhase) {
  // FA3's second consumer releases stages it never waited on; its next MB_WAIT must wait for the
  // following fill, not pass on the one it released.
  trace::KernelInfo k;
  k.stages = 1;
  k.stage_arrivals = 1;
  auto t = make_trace({{{Instr::acquire(0, 128), Instr::tma_bulk(0, 0, 128, 0), Instr::bubble(500),
                         Instr::acquire(0, 128), Instr::tma_bulk(0, 128, 128, 0)},
                        {Instr::bubble(200), Instr::release(0), Instr::mb_wait(0)}}},
                      k);
  Recorder rec;
  run(std::move(t), small_gpu(), true, &rec);
  auto waits = rec.of(core::SpanKind::WaitStage);
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_GT(waits[0].end, 500u);
}
TEST(RunResult, AnUnknownStatisticIsAnErrorNeverZero) {
  const RunResult r = run(make_trace({{{Instr::bubble(5)}}}), small_gpu());
  EXPECT_GT(r.stat("gpu.instructions"), 0);
  EXPECT_THROW(r.stat("gpu.no_such_statistic"), InternalError);
  // The fixed memory has no L2: find_stat says so instead of a 0.
  EXPECT_FALSE(r.find_stat("lts__t_bytes.sum").has_value());
  EXPECT_THROW(r.stat("lts__t_bytes.sum"), InternalError);
}

}  // namespace
}  // namespace simfa::test
