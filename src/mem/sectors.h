// Sector-mask helpers: a table popcount for 8-bit masks (the build targets baseline x86-64, where
// std::popcount is a library call).
#pragma once
#include <array>
#include <cstdint>

namespace simfa::mem {

inline constexpr std::array<std::uint8_t, 256> kSectorCount = [] {
  std::array<std::uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i) t[i] = static_cast<std::uint8_t>((i & 1) + t[i >> 1]);
  return t;
}();

inline unsigned sector_count(std::uint8_t mask) { return kSectorCount[mask]; }

}  // namespace simfa::mem
