// FA3's persistent tile schedulers: static order and mapping, the dynamic scheduler's LPT +
// L2-section mapping and its predicted claim order.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

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

// Blocks per CTA under schedule `s` (every tile assigned exactly once), each tile counted with
// `per_tile` more (the claim-order prediction's fa3.dynamic_overhead_blocks).
std::vector<std::int64_t> blocks_per_cta(const Fa3Kernel& k, const TileSchedule& s, std::int64_t per_tile = 0) {
  std::set<std::int64_t> seen;
  std::vector<std::int64_t> blocks(k.grid, 0);
  for (std::uint32_t c = 0; c < k.grid; ++c) {
    Tile t;
    for (std::int64_t i = 0; s.tile(c, i, t); ++i) {
      EXPECT_TRUE(seen.insert(t.index).second);
      blocks[c] += block_range(k, t.m_block).count() + per_tile;
    }
  }
  EXPECT_EQ(std::int64_t(seen.size()), k.total_tiles());
  return blocks;
}

TEST(TileSchedule, CounterClaimsInFinishOrderWithTheStaticMapping) {
  // Original release, causal 128 x 128, 4 M-blocks (1..4 KV blocks), 2 heads, grid 4: the
  // static order would give CTA c every tile of M-block c (c+1 blocks each, 2 tiles).
  const Fa3Kernel k = resolve_fa3(shape(512, 512, 2, 1, 128, true), config({"fa3.version=original", "fa3.grid=4"}), 132);
  ASSERT_EQ(k.scheduler, SchedKind::Counter);
  ASSERT_EQ(k.m_blocks, 4);
  const TileSchedule s(k);
  // Indices map as in the static scheduler: M fastest, no LPT reversal, no sections.
  for (std::int64_t idx = 0; idx < k.total_tiles(); ++idx) {
    EXPECT_EQ(s.map(idx).m_block, idx % 4);
    EXPECT_EQ(s.map(idx).head, idx / 4);
  }
  // Costs are blocks + 1 (fa3.dynamic_overhead_blocks). CTAs 0..3 start with tiles 0..3 and
  // finish at 2, 3, 4, 5; CTA 0 claims 4 (2 -> 4), then CTA 1 claims 5 (3 -> 6), CTA 0 claims 6
  // (4 -> 8, tie with CTA 2 to the lower id), CTA 2 claims 7 (4 -> 9).
  Tile t;
  std::vector<std::vector<std::int64_t>> got(4);
  for (std::uint32_t c = 0; c < 4; ++c)
    for (std::int64_t i = 0; s.tile(c, i, t); ++i) got[c].push_back(t.index);
  EXPECT_EQ(got[0], (std::vector<std::int64_t>{0, 4, 6}));
  EXPECT_EQ(got[1], (std::vector<std::int64_t>{1, 5}));
  EXPECT_EQ(got[2], (std::vector<std::int64_t>{2, 7}));
  EXPECT_EQ(got[3], (std::vector<std::int64_t>{3}));
}

TEST(TileSchedule, CounterBalancesCausalTilesTheStaticOrderCannot) {
  // Causal head dim 64 in the original release: 192 x 128 tiles, 22 M-blocks at L 4096, and
  // 132 = 6 x 22, so the static order gives every CTA one M-block forever: M-block m visits
  // min(32, ceil(1.5 (m + 1))) KV blocks, 2 to 32.
  const spec::AttentionShape sh = shape(4096, 4096, 8, 1, 64, true, 4);
  const Fa3Kernel st = resolve_fa3(sh, config({"fa3.version=original", "fa3.scheduler=static"}), 132);
  const Fa3Kernel ct = resolve_fa3(sh, config({"fa3.version=original"}), 132);
  ASSERT_EQ(ct.scheduler, SchedKind::Counter);
  ASSERT_EQ(st.m_blocks, 22);
  const auto a = blocks_per_cta(st, TileSchedule(st)), b = blocks_per_cta(ct, TileSchedule(ct), 1);
  const auto [amin, amax] = std::minmax_element(a.begin(), a.end());
  const auto [bmin, bmax] = std::minmax_element(b.begin(), b.end());
  // 704 tiles = 5 x 132 + 44: CTAs 0..43 get 6 tiles, the rest 5. Static CTA 21 (M-block 21) gets
  // 6 tiles of 32 blocks, CTA 44 (M-block 0) 5 tiles of 2.
  EXPECT_EQ(*amax, 192);
  EXPECT_EQ(*amin, 10);
  // Counter: list scheduling keeps the predicted costs (blocks + 1 per tile) within one tile.
  EXPECT_LE(*bmax - *bmin, 33);
}

}  // namespace
}  // namespace simfa::workload
