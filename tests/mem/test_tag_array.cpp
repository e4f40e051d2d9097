// Tag array: set indexing behind a slice hash, LRU victims, dirty victims, shadow accounting.
#include <gtest/gtest.h>

#include "mem/tag_array.h"

namespace simfa::mem {
namespace {

TEST(TagArray, LruEvictsTheLeastRecentlyUsedWay) {
  TagArray t(1, 2, 1, make_replacement("lru", 2, 0, ""));
  TagArray::Victim v;
  t.insert(10, 0xF, 0, false, v);
  t.insert(11, 0xF, 0x1, false, v);
  EXPECT_FALSE(v.valid);
  t.touch(t.find(10));  // 11 is now least recently used
  t.insert(12, 0xF, 0, false, v);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.line, 11u);
  EXPECT_EQ(v.dirty, 0x1);
  EXPECT_NE(t.find(10), TagArray::kMiss);
  EXPECT_EQ(t.find(11), TagArray::kMiss);
}

TEST(TagArray, SetIndexSkipsTheSliceHashBits) {
  // With a divisor of 80, lines 0..79 share set 0 and line 80 is in set 1.
  TagArray t(2, 1, 80, make_replacement("lru", 2, 0, ""));
  TagArray::Victim v;
  t.insert(0, 0xF, 0, false, v);
  t.insert(80, 0xF, 0, false, v);
  EXPECT_FALSE(v.valid);
  t.insert(79, 0xF, 0, false, v);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.line, 0u);
}

TEST(TagArray, CountsShadowLines) {
  TagArray t(4, 2, 1, make_replacement("lru", 8, 0, ""));
  TagArray::Victim v;
  t.insert(1, 0xF, 0, true, v);
  t.insert(2, 0xF, 0, false, v);
  EXPECT_EQ(t.shadow_lines(), 1u);
  EXPECT_EQ(t.valid_lines(), 2u);
  t.set_shadow(t.find(1), false);
  EXPECT_EQ(t.shadow_lines(), 0u);
  t.set_shadow(t.find(2), true);
  t.invalidate(t.find(2));
  EXPECT_EQ(t.shadow_lines(), 0u);
  EXPECT_EQ(t.valid_lines(), 1u);
}

}  // namespace
}  // namespace simfa::mem
