// Slice hashes: range for any slice count, spread of FA3-like strides, and the naive hash's
// concentration that the ablation relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mem/slice_hash.h"
#include "sim/error.h"

namespace simfa::mem {
namespace {

// Lines of a K/V-like tile walk: `rows` rows of `row_bytes` at a stride of `stride` bytes.
std::vector<std::uint64_t> strided_lines(std::uint64_t rows, std::uint64_t row_bytes,
                                         std::uint64_t stride) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t b = 0; b < row_bytes; b += 128) v.push_back((r * stride + b) / 128);
  return v;
}

std::vector<int> histogram(const SliceHash& h, const std::vector<std::uint64_t>& lines, int n) {
  std::vector<int> c(n, 0);
  for (auto l : lines) ++c[h.slice(l)];
  return c;
}

TEST(SliceHash, StaysInRangeForAnySliceCount) {
  for (std::uint32_t n : {1u, 7u, 40u, 64u, 80u, 96u, 132u}) {
    for (const char* name : {"xor", "last-bits"}) {
      auto h = make_slice_hash(name, n);
      std::vector<int> seen(n, 0);
      for (std::uint64_t l = 0; l < 100000; ++l) {
        const auto s = h->slice(l * 7919);
        ASSERT_LT(s, n) << name;
        seen[s] = 1;
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(n)) << name << " " << n;
    }
  }
}

TEST(SliceHash, XorSpreadsTwoKibStridesOverAllSlices) {
  // FA3 K/V rows: 256-byte rows (head dim 128, FP16) at a 2048-byte stride (§5.4).
  const auto lines = strided_lines(80 * 64, 256, 2048);
  auto c = histogram(*make_slice_hash("xor", 80), lines, 80);
  const double mean = static_cast<double>(lines.size()) / 80;
  EXPECT_EQ(std::count(c.begin(), c.end(), 0), 0);
  EXPECT_LE(*std::max_element(c.begin(), c.end()), 1.5 * mean);
}

TEST(SliceHash, XorBalancesContiguousBuffers) {
  const auto lines = strided_lines(1, 80 * 128 * 256, 0);
  auto c = histogram(*make_slice_hash("xor", 80), lines, 80);
  const double mean = static_cast<double>(lines.size()) / 80;
  EXPECT_LE(*std::max_element(c.begin(), c.end()), 1.05 * mean);
  EXPECT_GE(*std::min_element(c.begin(), c.end()), 0.95 * mean);
}

TEST(SliceHash, LastBitsConcentratesTwoKibStrides) {
  const auto lines = strided_lines(80 * 64, 256, 2048);
  auto c = histogram(*make_slice_hash("last-bits", 80), lines, 80);
  const auto used = 80 - std::count(c.begin(), c.end(), 0);
  EXPECT_LE(used, 16);  // 16 lines per stride: only lines 0 and 1 of each 16 are touched
}

TEST(SliceHash, UnknownNameIsAUserError) {
  EXPECT_THROW(make_slice_hash("modulo", 80), UserError);
}

}  // namespace
}  // namespace simfa::mem
