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

TEST(DramMapping, RoundTripsEveryField) {
  const DramParams p = default_params();
  const AddressMapping m(p);
  Rng rng(1, "mapping");
  const std::uint64_t capacity = 80ULL * 2 * 16 * 32768 * 1024;  // 80 GiB
  for (int i = 0; i < 20000; ++i) {
    const Addr line = (rng.next() % capacity) / 128 * 128;
    const DramCoord c = m.map(line);
    ASSERT_LT(c.channel, 80u);
    ASSERT_LT(c.pc, 2u);
    ASSERT_LT(c.bank, 16u);
    ASSERT_EQ(c.bank / 4, c.bg);
    ASSERT_LT(c.row, 32768u);
    ASSERT_LT(c.column, 8u);
    ASSERT_EQ(m.line_of(c), line);
  }
}

TEST(DramMapping, ConsecutiveLinesVisitEveryChannelOnce) {
  for (ChannelHash h : {ChannelHash::Xor, ChannelHash::None}) {
    DramParams p = default_params();
    p.channel_hash = h;
    const AddressMapping m(p);
    for (Addr group : {0ULL, 12345ULL}) {
      std::vector<int> seen(80, 0);
      for (Addr i = 0; i < 80; ++i) ++seen[m.map((group * 80 + i) * 128).channel];
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 80);
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
  const DramParams p = default_params();
  const AddressMapping m(p);
  for (int k = 0; k <= 16; ++k) {
    std::vector<int> count(80, 0);
    const int n = 80 * 64;
    for (int i = 0; i < n; ++i) ++count[m.map(static_cast<Addr>(i) << (7 + k)).channel];
    const int used =
        static_cast<int>(std::count_if(count.begin(), count.end(), [](int c) { return c > 0; }));
    const int most = *std::max_element(count.begin(), count.end());
    EXPECT_EQ(used, 80) << "stride 2^" << k << " lines";
    EXPECT_LE(most, 3 * n / 80) << "stride 2^" << k << " lines";
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
