#include <gtest/gtest.h>

#include "sim/units.h"

namespace simfa::units {
TEST(Units, Frequency) {
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1830MHz"), 1.83e9);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1.98 GHz"), 1.98e9);
  EXPECT_FALSE(parse_frequency_hz("fast"));
  EXPECT_FALSE(parse_frequency_hz("10MB"));
}
TEST(Units, Size) {
  EXPECT_DOUBLE_EQ(*parse_size_bytes("50MiB"), 50.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_size_bytes("50MB"), 50e6);
  EXPECT_DOUBLE_EQ(*parse_size_bytes("128"), 128);
}
TEST(Units, Bandwidth) {
  EXPECT_DOUBLE_EQ(*parse_bandwidth_bps("3.35TB/s"), 3.35e12);
  EXPECT_FALSE(parse_bandwidth_bps("3.35TB"));
}
TEST(Units, Formatting) {
  EXPECT_EQ(format_frequency(1.83e9), "1830MHz");
  EXPECT_EQ(format_size(228 * 1024), "228KiB");
}
}  // namespace simfa::units
