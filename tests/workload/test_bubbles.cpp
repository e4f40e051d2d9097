// The paper §5.2 bubble formula from tile shape and unit throughputs.
#include <gtest/gtest.h>

#include "workload/bubbles.h"
#include "workload/fa3_kernel.h"
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
  auto cfg = testing::config({"sm.mufu_ops_per_cycle=8"});
  const Fa3Kernel k = resolve_fa3(testing::shape(256, 1024), cfg, 132);
  EXPECT_EQ(k.bubbles.exp, 1408u);
  EXPECT_EQ(k.bubbles.paper_total(), 988u + 704u);
}

}  // namespace
}  // namespace simfa::workload
