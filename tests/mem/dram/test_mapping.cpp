// Address mapping: a bijection, channels interleaved on the low line bits, strides spread.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "dram_test_util.h"
#include "mem/dram/mapping.h"
#include "sim/error.h"
#include "sim/rng.h"

namespace simfa::mem {
namespace {

using test::default_params;

// The organisations of the presets: HBM3 with 80 channels (h800, h100) and the H200's 94 channels
// (a 6016-bit bus, configs/gpu/h200.toml): neither is a power of two.
std::vector<DramParams> organisations() {
  DramParams h200 = default_params();
  h200.channels = 94;
  h200.rows = 49152;
  return {default_params(), h200};
}

TEST(DramMapping, RoundTripsEveryField) {
  for (const DramParams& p : organisations()) {
    const AddressMapping m(p);
    Rng rng(1, "mapping");
    const std::uint64_t capacity = std::uint64_t{p.channels} * 2 * 16 * p.rows * 1024;
    for (int i = 0; i < 20000; ++i) {
      const Addr line = (rng.next() % capacity) / 128 * 128;
      const DramCoord c = m.map(line);
      ASSERT_LT(c.channel, p.channels);
      ASSERT_LT(c.pc, 2u);
      ASSERT_LT(c.bank, 16u);
      ASSERT_EQ(c.bank / 4, c.bg);
      ASSERT_LT(c.row, p.rows);
      ASSERT_LT(c.column, 8u);
      ASSERT_EQ(m.line_of(c), line);
    }
  }
}

TEST(DramMapping, ConsecutiveLinesVisitEveryChannelOnce) {
  for (DramParams p : organisations()) {
    for (ChannelHash h : {ChannelHash::Xor, ChannelHash::None}) {
      p.channel_hash = h;
      const AddressMapping m(p);
      const Addr n = p.channels;
      for (Addr group : {0ULL, 12345ULL}) {
        std::vector<int> seen(n, 0);
        for (Addr i = 0; i < n; ++i) ++seen[m.map((group * n + i) * 128).channel];
        EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), static_cast<long>(n)) << n << " channels";
      }
    }
  }
}

TEST(DramMapping, DefaultOrderIsChannelThenPseudoChannelThenBankGroupThenColumn) {
  DramParams p = default_params();
  p.channel_hash = ChannelHash::None;
  const AddressMapping m(p);
  EXPECT_EQ(m.map(1 * 128).channel, 1u);
  EXPECT_EQ(m.map(80 * 128).pc, 1u);
  EXPECT_EQ(m.map(160 * 128).bg, 1u);
  EXPECT_EQ(m.map(640 * 128).column, 1u);
  EXPECT_EQ(m.map(640 * 8 * 128).bank, 1u);
  EXPECT_EQ(m.map(640ULL * 8 * 4 * 128).row, 1u);
}

TEST(DramMapping, CustomOrderIsHonoured) {
  DramParams p = default_params();
  p.mapping = "RoBaBgCoPcCh";
  p.channel_hash = ChannelHash::None;
  const AddressMapping m(p);
  EXPECT_EQ(m.map(160 * 128).column, 1u);
  EXPECT_EQ(m.map(160 * 8 * 128).bg, 1u);
}

// Power-of-two strides (FA3's K/V rows are 2^k bytes apart) must not collapse onto a few channels.
TEST(DramMapping, XorHashSpreadsPowerOfTwoStrides) {
  for (const DramParams& p : organisations()) {
    const AddressMapping m(p);
    const int ch = static_cast<int>(p.channels);
    for (int k = 0; k <= 16; ++k) {
      std::vector<int> count(ch, 0);
      const int n = ch * 64;
      for (int i = 0; i < n; ++i) ++count[m.map(static_cast<Addr>(i) << (7 + k)).channel];
      const int used =
          static_cast<int>(std::count_if(count.begin(), count.end(), [](int c) { return c > 0; }));
      const int most = *std::max_element(count.begin(), count.end());
      EXPECT_EQ(used, ch) << "stride 2^" << k << " lines, " << ch << " channels";
      EXPECT_LE(most, 3 * n / ch) << "stride 2^" << k << " lines, " << ch << " channels";
    }
  }
}

TEST(DramMapping, WithoutHashAStrideOfSixteenLinesUsesFiveChannels) {
  DramParams p = default_params();
  p.channel_hash = ChannelHash::None;
  const AddressMapping m(p);
  std::vector<int> count(80, 0);
  for (int i = 0; i < 4096; ++i) ++count[m.map(static_cast<Addr>(i) * 16 * 128).channel];
  EXPECT_EQ(std::count_if(count.begin(), count.end(), [](int c) { return c > 0; }), 5);
}

TEST(DramMapping, BadMappingStringsAreUserErrorsNamingTheKey) {
  for (const char* bad : {"RoBaBgCoPc", "RoBaBgCoPcXx", "RoRoBgCoPcCh", "robabgcopcch"}) {
    DramParams p = default_params();
    p.mapping = bad;
    try {
      AddressMapping::validate(p);
      FAIL() << bad;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("dram.mapping"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace simfa::mem
