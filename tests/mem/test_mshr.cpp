// MSHR table: lookups stay right through many allocations and releases (backward-shift deletion).
#include <gtest/gtest.h>

#include <map>

#include "mem/mshr.h"
#include "sim/rng.h"

namespace simfa::mem {
namespace {

TEST(MshrTable, MatchesAReferenceMapUnderRandomTraffic) {
  MshrTable t(256);
  std::map<std::uint64_t, std::uint32_t> ref;
  Rng rng(7, "mshr-test");
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t line = rng.below(1000) * 80 + 3;
    const std::uint32_t e = t.find(line);
    auto it = ref.find(line);
    ASSERT_EQ(e == MshrTable::kNone, it == ref.end());
    if (it != ref.end()) {
      ASSERT_EQ(e, it->second);
      if (rng.below(2)) {
        t.release(e);
        ref.erase(it);
      }
    } else {
      const std::uint32_t n = t.allocate(line);
      if (ref.size() == 256) {
        ASSERT_EQ(n, MshrTable::kNone);
      } else {
        ASSERT_NE(n, MshrTable::kNone);
        ref[line] = n;
      }
    }
    ASSERT_EQ(t.used(), ref.size());
  }
}

TEST(MshrTable, ReportsFullAtCapacity) {
  MshrTable t(3);
  EXPECT_NE(t.allocate(1), MshrTable::kNone);
  EXPECT_NE(t.allocate(2), MshrTable::kNone);
  EXPECT_NE(t.allocate(3), MshrTable::kNone);
  EXPECT_TRUE(t.full());
  EXPECT_EQ(t.allocate(4), MshrTable::kNone);
  t.release(t.find(2));
  EXPECT_FALSE(t.full());
  EXPECT_EQ(t.find(2), MshrTable::kNone);
  EXPECT_NE(t.find(3), MshrTable::kNone);
}

}  // namespace
}  // namespace simfa::mem
