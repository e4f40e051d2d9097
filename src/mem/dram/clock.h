// Crossing between the core clock (engine cycles) and the DRAM command clock. Exact rational
// arithmetic: with core/DRAM frequency ratio p/q, DRAM edge d happens at core time d*p/q and is
// processed in the first core cycle at or after it.
#pragma once
#include <cstdint>
#include <numeric>

#include "mem/dram/timing.h"
#include "sim/types.h"

namespace simfa::mem {

class ClockDomain {
 public:
  ClockDomain() = default;
  // Frequencies in Hz, rounded to integers (1830 MHz, 1562.5 MHz are exact).
  ClockDomain(std::uint64_t core_hz, std::uint64_t dram_hz) {
    const std::uint64_t g = std::gcd(core_hz, dram_hz);
    p_ = core_hz / g;
    q_ = dram_hz / g;
    // Largest value whose products with p and q, plus q, fit in 64 bits.
    const std::uint64_t m = p_ > q_ ? p_ : q_;
    lim_ = (~std::uint64_t{0} - m) / m;
  }
  // Core cycle in which DRAM edge d is processed: ceil(d * p / q).
  Cycle to_core(DCycle d) const {
    if (d <= lim_) return static_cast<Cycle>((d * p_ + q_ - 1) / q_);  // no 64-bit overflow
    const unsigned __int128 n = static_cast<unsigned __int128>(d) * p_;
    return static_cast<Cycle>((n + q_ - 1) / q_);
  }
  // Last DRAM edge at or before core cycle c: floor(c * q / p).
  DCycle last_edge(Cycle c) const {
    if (c <= lim_) return static_cast<DCycle>(c * q_ / p_);
    return static_cast<DCycle>(static_cast<unsigned __int128>(c) * q_ / p_);
  }
  // Core cycles per DRAM cycle, for rates and formulas.
  double ratio() const { return static_cast<double>(p_) / static_cast<double>(q_); }

 private:
  std::uint64_t p_ = 1, q_ = 1;
  std::uint64_t lim_ = ~std::uint64_t{0} / 2 - 1;  // for p = q = 1
};

}  // namespace simfa::mem
