#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/types.h"
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

// ceil_cycle (sim/types.h) is std::ceil, inline: on exact integers, just above and below them, on
// the fractions the crossbar's bytes-per-cycle rates produce, and where doubles stop having
// fractions (2^52 and up).
TEST(Units, CeilCycleIsCeil) {
  std::vector<double> xs = {0.0, 0.25, 0.5, 1.0, 1.0000001, 2.9999999, 3.0, 7.5, 1e9 + 0.5, 123456789.0};
  for (double b : {16.0, 32.0, 64.0, 33.0, 56.0, 96.0})
    for (double bytes : {8.0, 40.0, 136.0, 160.0})
      for (double k = 0; k < 200; k += 1) xs.push_back(k * bytes / b);
  for (double e : {52.0, 53.0, 60.0})
    for (double d : {-1.0, 0.0, 1.0}) xs.push_back(std::ldexp(1.0, static_cast<int>(e)) + d);
  for (double x : {0.1, 1.0, 1e6, 4.5e15}) {
    xs.push_back(std::nextafter(x, 0.0));
    xs.push_back(std::nextafter(x, 1e300));
  }
  for (double x : xs) EXPECT_EQ(ceil_cycle(x), static_cast<Cycle>(std::ceil(x))) << x;
}
}  // namespace simfa::units
