// Tiny traces whose cycle counts are computed by hand from the documented timing rules
// (docs/architecture.md, "Timing rules"): every instruction takes one issue cycle; an async
// operation issued at t reaches its engine at t + 1; a wait satisfied at t re-issues at t; a
// kernel ends when its last CTA retires.
#include <gtest/gtest.h>

#include "helpers.h"

namespace simfa::test {
namespace {

TEST(Timing, BubblesOccupyTheirThread) {
  // t0 BUBBLE 10 -> next issue at 10; BUBBLE 5 -> the thread's work ends at 15.
  auto r = run(make_trace({{{Instr::bubble(10), Instr::bubble(5)}}}), small_gpu());
  EXPECT_EQ(r.cycles, 15u);
}

TEST(Timing, WgmmaTakesHalfNCyclesBackToBack) {
  // t0 WGMMA n128 (first of a chain: 11 issue cycles) enters the buffer; the pipe starts it at t1
  // and frees at 1 + 64 = 65. t11 WGMMA n256 (after a WGMMA: 256/8 - 4 = 28 issue cycles) starts
  // in the pipe at 65, leaves it at 65 + 128 = 193 and is visible to wait_group 54 - 1 = 53 later,
  // at 246. t39 COMMIT, t40 the wait blocks, re-issues at 246; the thread ends at 247.
  auto r = run(make_trace({{{wgmma(128, 0), wgmma(256, 0), Instr::wgmma_commit(0), Instr::wgmma_wait(0, 0)}}}),
               small_gpu());
  EXPECT_EQ(r.cycles, 247u);
  EXPECT_EQ(r.stat("gpu.sm[0].tensor.busy_cycles"), 64 + 128);
  EXPECT_EQ(r.stat("gpu.tensor.flops"), 2.0 * 64 * 128 * 16 + 2.0 * 64 * 256 * 16);
}

TEST(Timing, BulkCopyPaysLaunchLatencyOnly) {
  // t0 ACQUIRE arms 256 bytes; t1 TMA_BULK; t2 setup starts (40 launch) -> lines sent at 42,
  // answered at 142 (memory latency 100); MB_WAIT re-issues at 142; the kernel ends at 143.
  auto r = run(make_trace({{{Instr::acquire(0, 256), Instr::tma_bulk(0, 0, 256, 0), Instr::mb_wait(0)}}}),
               small_gpu());
  EXPECT_EQ(r.cycles, 143u);
  EXPECT_EQ(r.stat("gpu.sm[0].tma.lines"), 2);
}

trace::KernelInfo one_map_kernel() {
  trace::KernelInfo k;
  trace::TensorMap m;
  m.id = 0;
  m.rank = 2;
  m.dims = {128, 64};
  m.strides = {2, 256};
  m.box = {64, 2};  // 2 rows of 128 bytes = 2 lines
  m.esz = 2;
  k.define_tmap(m);
  return k;
}

TEST(Timing, TensorCopyAddsTensorMapSetupAndDescriptorMiss) {
  // As the bulk case, but setup = 40 launch + 65 TensorMap + 258 descriptor miss:
  // lines sent at 2 + 363 = 365, answered at 465, the kernel ends at 466.
  auto t = make_trace({{{Instr::acquire(0, 256), Instr::tma_tensor(0, 0, 0, 0), Instr::mb_wait(0)}}},
                      one_map_kernel());
  EXPECT_EQ(run(t, small_gpu()).cycles, 466u);
  // Without the descriptor miss: 466 - 258.
  auto t2 = make_trace({{{Instr::acquire(0, 256), Instr::tma_tensor(0, 0, 0, 0), Instr::mb_wait(0)}}},
                       one_map_kernel());
  EXPECT_EQ(run(t2, small_gpu({"tma.descriptor_miss_cycles=0"})).cycles, 208u);
}

TEST(Timing, PingPongBarrier) {
  // WG0: BAR_WAIT 1 1 (t0, blocks); WG1: BUBBLE 3 (t1), BAR_ARRIVE 1 (t4) releases WG0.
  // GTO keeps WG1 at t5 (BAR_WAIT 2 1 blocks); WG0 re-issues at t6, BUBBLE 10 at t7,
  // BAR_ARRIVE 2 at t17 releases WG1, which re-issues at t18; the kernel ends at 19.
  auto t = make_trace({{{Instr::bar_wait(1, 1), Instr::bubble(10), Instr::bar_arrive(2)},
                        {Instr::bubble(3), Instr::bar_arrive(1), Instr::bar_wait(2, 1)}}});
  EXPECT_EQ(run(t, small_gpu()).cycles, 19u);
}

TEST(Timing, ProducerAndTwoConsumersShareAStage) {
  // Hand trace in docs/architecture.md ("worked example"): 369 cycles.
  trace::KernelInfo k;
  k.stages = 1;
  k.stage_arrivals = 2;
  auto t = make_trace({{{Instr::acquire(0, 128), Instr::tma_bulk(0, 0, 128, 0), Instr::acquire(0, 128),
                         Instr::tma_bulk(0, 0x1000, 128, 0)},
                        {Instr::mb_wait(0), Instr::bubble(50), Instr::release(0), Instr::mb_wait(0)},
                        {Instr::mb_wait(0), Instr::bubble(80), Instr::release(0), Instr::mb_wait(0)}}},
                      k);
  // The worked example treats bubbles as plain delays (it predates the CUDA-core interference
  // model; Interference.* cover that): sm.interference=false.
  EXPECT_EQ(run(t, small_gpu({"sm.interference=false"})).cycles, 369u);
}

TEST(Timing, TmaStoreWaitFullAndReadOnly) {
  // Store of 2 lines: issued t0, setup starts t1 (40 + 65 + 258), lines sent at 364, acked at 464.
  auto full = make_trace({{{Instr::tma_store(0, 0, 0, 0), Instr::tma_commit(0), Instr::tma_wait(0, 0)}}},
                         one_map_kernel());
  auto r = run(full, small_gpu());
  EXPECT_EQ(r.cycles, 465u);
  EXPECT_EQ(r.stat("gpu.sm[0].wait_cycles.tma_store"), 464 - 2);
  // read=1 returns once the lines have left shared memory (364); the CTA still retires at the ack.
  auto read = make_trace({{{Instr::tma_store(0, 0, 0, 0), Instr::tma_commit(0), Instr::tma_wait(0, 0, true)}}},
                         one_map_kernel());
  auto r2 = run(read, small_gpu());
  EXPECT_EQ(r2.stat("gpu.sm[0].wait_cycles.tma_store"), 364 - 2);
  EXPECT_EQ(r2.cycles, 464u);
}

TEST(Timing, BlockingLoad) {
  // LDG at t0 is answered at 100; the thread ends there.
  auto r = run(make_trace({{{Instr::ldg(0x1000, 4)}}}), small_gpu());
  EXPECT_EQ(r.cycles, 100u);
}

TEST(Timing, TwoCtasShareAnSmWhenResourcesAllow) {
  // Both fit (2 x 100 KiB <= 228 KiB): CTA0 issues its bubble at t0, CTA1 at t1 -> 101.
  trace::KernelInfo fit;
  fit.smem = 100 * 1024;
  // Both resident: CTA 0's bubble runs alone for a cycle, then the two share the SM's CUDA-core
  // pipes (each at 1/1.70): CTA 0's 99 cycles left take 168.3, so it ends at 1 + 169 = 170; CTA 1 has
  // done 169 / 1.7 = 99.4 of its 100 by then and ends at 171. One after the other: 201.
  auto r = run(make_trace({{{Instr::bubble(100)}}, {{Instr::bubble(100)}}}, fit), small_gpu());
  EXPECT_EQ(r.cycles, 171u);
  // 2 x 120 KiB do not fit: CTA1 starts when CTA0 retires (t100) plus one dispatch cycle -> 201.
  trace::KernelInfo big;
  big.smem = 120 * 1024;
  auto r2 = run(make_trace({{{Instr::bubble(100)}}, {{Instr::bubble(100)}}}, big), small_gpu());
  EXPECT_EQ(r2.cycles, 201u);
}

}  // namespace
}  // namespace simfa::test
