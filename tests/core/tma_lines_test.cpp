// TMA address generation.
#include <gtest/gtest.h>

#include <random>

#include "core/tma_lines.h"

namespace simfa::core {
namespace {

trace::TensorMap map2d(std::uint64_t d0, std::uint64_t d1, std::uint64_t stride, std::uint32_t b0, std::uint32_t b1,
                       std::uint32_t esz = 2) {
  trace::TensorMap m;
  m.rank = 2;
  m.dims = {d0, d1};
  m.strides = {esz, stride};
  m.box = {b0, b1};
  m.esz = esz;
  return m;
}

TEST(TmaLines, SectorMask) {
  EXPECT_EQ(sector_mask(0, 0, 128, 128), 0xF);
  EXPECT_EQ(sector_mask(0, 32, 64, 128), 0x2);
  EXPECT_EQ(sector_mask(128, 100, 200, 128), 0x7);  // bytes 128..199 of line 128: sectors 0-2
}

TEST(TmaLines, Fa3KTileHalfIsOneLinePerRow) {
  // 64 (d) x 176 rows of FP16 with a 256-byte row stride (D = 128): 176 distinct full lines.
  std::vector<LineReq> out;
  tensor_box_lines(map2d(128, 8192, 256, 64, 176), 0x10000, true, 128, out);
  ASSERT_EQ(out.size(), 176u);
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].line, 0x10000 + i * 256);
    EXPECT_EQ(out[i].sectors, 0xF);
  }
}

TEST(TmaLines, OverlappingRowsAreMerged) {
  std::vector<LineReq> out;
  tensor_box_lines(map2d(32, 16, 64, 16, 4), 0, true, 128, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (LineReq{0, 0x5}));
  EXPECT_EQ(out[1], (LineReq{128, 0x5}));
}

TEST(TmaLines, NoDedupIsOneRequestPerElement) {
  std::vector<LineReq> out;
  tensor_box_lines(map2d(32, 16, 64, 16, 4), 0, false, 128, out);
  EXPECT_EQ(out.size(), 64u);
}

TEST(TmaLines, RowsOutsideTheTensorAreNotFetched) {
  auto m = map2d(64, 10, 128, 64, 8);
  m.base = 0x1000;
  std::vector<LineReq> out;
  // Origin at row 6: rows 6..9 exist, 10..13 are zero-filled.
  tensor_box_lines(m, 0x1000 + 6 * 128, true, 128, out);
  EXPECT_EQ(out.size(), 4u);
}

TEST(TmaLines, ThreeDimensionalBox) {
  trace::TensorMap m;
  m.rank = 3;
  m.dims = {64, 8, 4};
  m.strides = {4, 256, 4096};
  m.box = {32, 2, 2};  // 128-byte rows
  m.esz = 4;
  std::vector<LineReq> out;
  tensor_box_lines(m, 0, true, 128, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[2].line, 4096u);
}

TEST(TmaLines, BulkCopyPartialLines) {
  std::vector<LineReq> out;
  bulk_lines(96, 64, 128, out);  // bytes 96..159
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (LineReq{0, 0x8}));
  EXPECT_EQ(out[1], (LineReq{128, 0x1}));
}

// A copy read through a shared pattern requests exactly what tensor_box_lines lists for it: random
// maps of rank 1-3, origins anywhere (inside, across and beyond the tensor's edges when it has a
// base), with and without deduplication, power-of-two lines and others.
TEST(TmaLines, SharedPatternsGiveEveryCopyItsOwnLines) {
  std::mt19937_64 rng(7);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng); };
  BoxPatterns patterns;
  std::size_t copies = 0;
  for (int trial = 0; trial < 300; ++trial) {
    trace::TensorMap m;
    m.id = static_cast<std::uint16_t>(trial);
    m.rank = static_cast<std::uint8_t>(pick(1, 3));
    m.esz = static_cast<std::uint32_t>(1u << pick(0, 2));
    std::uint64_t stride = m.esz;
    for (int d = 0; d < m.rank; ++d) {
      m.dims[d] = pick(1, 40);
      m.box[d] = static_cast<std::uint32_t>(pick(1, 24));
      m.strides[d] = stride;
      stride *= m.dims[d] + pick(0, 3);  // padded rows sometimes
    }
    if (pick(0, 1)) m.base = pick(0, 4) * 64;
    const bool dedup = pick(0, 3) != 0;
    const std::uint32_t line = pick(0, 3) ? 128 : 96;
    for (int c = 0; c < 40; ++c) {
      const Addr origin = (m.base ? *m.base : 0) + pick(0, stride + 256);
      std::vector<LineReq> want, got;
      tensor_box_lines(m, origin, dedup, line, want);
      BoxPattern p;
      ASSERT_TRUE(patterns.find(m, origin, dedup, line, p));
      for (std::uint32_t i = 0; i < p.size; ++i) got.push_back({p.base + p.lines[i].line, p.lines[i].sectors});
      ASSERT_EQ(got, want) << "trial " << trial << " origin " << origin;
      ++copies;
    }
  }
  EXPECT_LT(patterns.patterns(), copies);  // copies share patterns
}

TEST(TmaLines, PatternsBeyondTheBudgetAreRefused) {
  const auto m = map2d(64, 64, 128, 64, 8);  // 8 lines a copy
  BoxPatterns patterns(12);
  BoxPattern p;
  EXPECT_TRUE(patterns.find(m, 0, true, 128, p));
  EXPECT_TRUE(patterns.find(m, 128 * 8, true, 128, p));  // the same pattern
  EXPECT_FALSE(patterns.find(m, 64, true, 128, p));      // a second one would hold 16 lines
  EXPECT_TRUE(patterns.find(m, 128 * 16, true, 128, p));  // the first is still served
  auto other = m;  // the same id and clipping, another map (another kernel's): its own lines
  other.strides = {2, 256};
  EXPECT_FALSE(patterns.find(other, 0, true, 128, p));
  BoxPatterns roomy;
  ASSERT_TRUE(roomy.find(m, 0, true, 128, p));
  EXPECT_FALSE(roomy.find(other, 0, true, 128, p));
}

}  // namespace
}  // namespace simfa::core
