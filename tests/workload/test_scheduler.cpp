// FA3's persistent tile schedulers: static order and mapping, the dynamic scheduler's LPT +
// L2-section mapping and its predicted claim order.
#include <gtest/gtest.h>

#include <set>

#include "workload/tile_scheduler.h"
#include "workload_test_util.h"

namespace simfa::workload {
namespace {

using testing::config;
using testing::shape;

TEST(TileSchedule, StaticIsMFastestThenHeadThenBatchStridedByGrid) {
  // 3 M-blocks (L 384, no cluster: odd), 2 query heads, 2 batches = 12 tiles on a grid of 5.
  const Fa3Kernel k = resolve_fa3(shape(384, 512, 2, 1, 128, false, 2), config({"fa3.grid=5"}), 132);
  ASSERT_EQ(k.grid, 5u);
  const TileSchedule s(k);
  Tile t;
  ASSERT_TRUE(s.tile(1, 1, t));  // CTA 1's second tile: index 6
  EXPECT_EQ(t.index, 6);
  EXPECT_EQ(t.m_block, 0);
  EXPECT_EQ(t.head, 0);
  EXPECT_EQ(t.batch, 1);
  ASSERT_TRUE(s.tile(4, 1, t));  // index 9: m 0, head 1, batch 1
  EXPECT_EQ(t.m_block, 0);
  EXPECT_EQ(t.head, 1);
  EXPECT_EQ(t.batch, 1);
  EXPECT_EQ(s.tiles_of(0), 3);  // 0, 5, 10
  EXPECT_EQ(s.tiles_of(2), 2);  // 2, 7
  EXPECT_FALSE(s.tile(2, 2, t));
}

TEST(TileSchedule, SurplusCtasGetNoTile) {
  const Fa3Kernel k = resolve_fa3(shape(128, 512), config(), 132);
  const TileSchedule s(k);
  EXPECT_EQ(s.tiles_of(0), 1);
  EXPECT_EQ(s.tiles_of(1), 0);
  EXPECT_EQ(s.tiles_of(131), 0);
}

TEST(TileSchedule, DynamicSectionWidthFollowsL2Budget) {
  // S 8192, D 128, FP16: 4 MB of K+V per head -> 8 heads per 32 MB section, times G = 4.
  const Fa3Kernel k = resolve_fa3(shape(1024, 8192, 8, 4, 128, true), config(), 132);
  EXPECT_EQ(TileSchedule(k).swizzle(), 32);
  // 12 MB per head: two heads (the largest power of two that fits), times G.
  const Fa3Kernel mid = resolve_fa3(shape(1024, 24576, 8, 4, 128, true), config(), 132);
  EXPECT_EQ(TileSchedule(mid).swizzle(), 8);
  // 64 MB per head: one head per section (times G).
  const Fa3Kernel big = resolve_fa3(shape(1024, 131072, 8, 4, 128, true), config(), 132);
  EXPECT_EQ(TileSchedule(big).swizzle(), 4);
}

TEST(TileSchedule, DynamicMapsLongestTilesFirstWithHeadsFastest) {
  const Fa3Kernel k = resolve_fa3(shape(512, 512, 2, 1, 128, true), config(), 132);
  const TileSchedule s(k);  // both heads fit one section
  // Index 0, 1: last M-block of heads 0, 1; index 2: M-block 2 of head 0.
  EXPECT_EQ(s.map(0).m_block, 3);
  EXPECT_EQ(s.map(0).head, 0);
  EXPECT_EQ(s.map(1).m_block, 3);
  EXPECT_EQ(s.map(1).head, 1);
  EXPECT_EQ(s.map(2).m_block, 2);
  EXPECT_EQ(s.map(2).head, 0);
}

TEST(TileSchedule, DynamicResidualSectionUsesRemainderWidth) {
  // 3 heads of 12 MB, swizzle 2: the second section holds only head 2.
  const Fa3Kernel k = resolve_fa3(shape(256, 24576, 3, 1, 128, true), config(), 132);
  const TileSchedule s(k);
  ASSERT_EQ(s.swizzle(), 2);
  ASSERT_EQ(k.m_blocks, 2);
  EXPECT_EQ(s.map(4).head, 2);
  EXPECT_EQ(s.map(4).m_block, 1);
  EXPECT_EQ(s.map(5).head, 2);
  EXPECT_EQ(s.map(5).m_block, 0);
}

TEST(TileSchedule, DynamicAssignsEveryTileOnceAndBalancesWork) {
  const Fa3Kernel k = resolve_fa3(shape(4096, 4096, 4, 2, 128, true), config({"fa3.grid=16"}), 132);
  const TileSchedule s(k);
  std::set<std::int64_t> seen;
  std::int64_t max_blocks = 0, min_blocks = 1 << 30;
  for (std::uint32_t c = 0; c < k.grid; ++c) {
    std::int64_t blocks = 0;
    Tile t;
    for (std::int64_t i = 0; s.tile(c, i, t); ++i) {
      EXPECT_TRUE(seen.insert(t.index).second);
      blocks += block_range(k, t.m_block).count();
    }
    max_blocks = std::max(max_blocks, blocks);
    min_blocks = std::min(min_blocks, blocks);
  }
  EXPECT_EQ(std::int64_t(seen.size()), k.total_tiles());
  // LPT list scheduling: the imbalance is at most about one tile (32 blocks) plus overheads.
  EXPECT_LE(max_blocks - min_blocks, 34);
}

}  // namespace
}  // namespace simfa::workload
