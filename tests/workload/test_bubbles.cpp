// The bubble cost models: the paper §5.2 formula and the pipe model, from tile shape and rates.
#include <gtest/gtest.h>

#include "workload/bubbles.h"
#include "workload/fa3_kernel.h"
#include "workload/pipe_use.h"
#include "workload_test_util.h"

namespace simfa::workload {
namespace {

TEST(Bubbles, PaperH800Tile64x176Gives988) {
  // 64 rows x 176 columns, D 128, H800 rates (128 FP32, 256 FP16, 16 MUFU per SM per cycle).
  const BubbleCosts b = compute_bubbles(64, 176, 128, 2, 2, 2.0, UnitRates{});
  EXPECT_EQ(b.rowmax, 88u);
  EXPECT_EQ(b.exp, 704u);
  EXPECT_EQ(b.rowsum, 88u);
  EXPECT_EQ(b.convert_p, 44u);
  EXPECT_EQ(b.rescale_o, 64u);
  EXPECT_EQ(b.paper_total(), 988u);
}

TEST(Bubbles, ScaleWithUnitRates) {
  UnitRates r;
  r.mufu_ops = 32;  // twice the MUFU throughput halves the exp term only
  const BubbleCosts b = compute_bubbles(64, 176, 128, 2, 2, 2.0, r);
  EXPECT_EQ(b.exp, 352u);
  EXPECT_EQ(b.paper_total(), 988u - 352u);
}

TEST(Bubbles, MaskAndEpilogueTerms) {
  const BubbleCosts b = compute_bubbles(64, 128, 128, 2, 2, 2.0, UnitRates{});
  EXPECT_EQ(b.mask, 128u);       // 2 * 64 * 128 / 128
  EXPECT_EQ(b.convert_o, 32u);   // 64 * 128 / 256
  EXPECT_EQ(b.stsm_o, 128u);     // 64 * 128 * 2 B / 128 B per cycle
  EXPECT_EQ(b.zero_o, 64u);
}

TEST(Bubbles, KernelTakesRatesFromConfig) {
  auto cfg = testing::config({"sm.mufu_ops_per_cycle=8", "fa3.bubble_costs=paper"});
  const Fa3Kernel k = resolve_fa3(testing::shape(256, 1024), cfg, 132);
  EXPECT_EQ(k.bubbles.exp, 1408u);
  EXPECT_EQ(k.bubbles.paper_total(), 988u + 704u);
  // The pipe model (the default) takes the same key: a MUFU warp instruction occupies 32 / (8 / 4)
  // = 16 cycles of a sub-partition, (88 + 2) exps per thread: 1440.
  const Fa3Kernel kp = resolve_fa3(testing::shape(256, 1024), testing::config({"sm.mufu_ops_per_cycle=8"}), 132);
  EXPECT_EQ(kp.bubbles.exp, 1440u);
}

TEST(Bubbles, PipeModelTile64x176) {
  // One consumer WarpGroup, 64 x 176 block, D 128, the default (H200, pipes.csv) rates of the sm.*
  // keys, as resolve_fa3 reads them: e = 44 scores per row per thread, 88 per thread.
  const BubbleCosts b = resolve_fa3(testing::shape(256, 1024), testing::config(), 132).bubbles;
  EXPECT_EQ(b.rowmax, 243u);    // max(44 x 4.22, 88 x 2) + 2 x (24 + 4.22) = 242.1
  EXPECT_EQ(b.exp, 720u);       // (88 + 2) x 8
  EXPECT_EQ(b.rowsum, 22u);     // 17 + 4.22
  EXPECT_EQ(b.convert_p, 88u);  // 44 F2FP x 2
  EXPECT_EQ(b.rescale_o, 64u);  // 64 FMUL x 1
  EXPECT_EQ(b.mask, 176u);      // 2 x 88 x 1
  EXPECT_EQ(b.zero_o, 64u);
  EXPECT_EQ(b.convert_o, 64u);  // 32 F2FP x 2
  EXPECT_EQ(b.stsm_o, 128u);    // as the paper formula: 64 x 128 x 2 B / 128 B per cycle
  // Within 10% of the measured softmax + convert + rescale of this block (1034-1081 cycles,
  // docs/fa3-workload.md "Bubble costs").
  EXPECT_EQ(b.softmax() + b.convert_p + b.rescale_o, 1137u);
}

TEST(PipeUse, OneTileHandCounted) {
  // L 128, S 176, D 128, current: one tile, one (masked: first) block, two consumers. Per consumer
  // thread: s = 88 scores, o = 64 O elements, 2 rows. ALU: 88 + 4 FMNMX + 44 F2FP + 32 F2FP (O) =
  // 168 x 2 cycles; MUFU: 90 x 8; FP32: 176 + 2 (exp argument, sum, row-sum rescale) + 176 (mask)
  // + 64 (final rescale) + 64 (clearing O) = 482 x 1 (128 lanes per SM: 1 cycle per warp).
  const Fa3Kernel k = resolve_fa3(testing::shape(128, 176), testing::config({"fa3.cluster=1"}), 132);
  ASSERT_EQ(k.tile_n, 176);
  const PipeCycles pc = kernel_pipe_cycles(k);
  EXPECT_DOUBLE_EQ(pc.alu, 2 * 168 * 2.0);
  EXPECT_DOUBLE_EQ(pc.mufu, 2 * 90 * 8.0);
  EXPECT_DOUBLE_EQ(pc.fp32, 2 * 482 * 1.0);
  // Two blocks (S 352): the second adds its block counts and the O rescale, not the mask.
  const PipeCycles two = kernel_pipe_cycles(resolve_fa3(testing::shape(128, 352), testing::config({"fa3.cluster=1"}), 132));
  EXPECT_DOUBLE_EQ(two.mufu, 2 * 180 * 8.0);
  EXPECT_DOUBLE_EQ(two.fp32, 2 * (482 + 178 + 64) * 1.0);
}

}  // namespace
}  // namespace simfa::workload
