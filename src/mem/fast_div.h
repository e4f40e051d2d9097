// Exact division of 64-bit integers by a divisor fixed at construction, without a hardware divide
// on the hot path: q = floor(n * c / 2^64) with c = ceil(2^64 / d) is exact for every
// n < 2^64 / 2^ceil(log2 d) (Lemire, Kaser, Kurz, "Faster remainder by direct computation", 2019,
// Theorem 1 with F = 64); larger numerators fall back to the hardware divide. Same results as `/`
// and `%` for every input.
#pragma once
#include <bit>
#include <cstdint>

namespace simfa::mem {

class FastDiv {
 public:
  FastDiv() = default;
  explicit FastDiv(std::uint64_t d) : d_(d ? d : 1) {
    if (d_ == 1) return;
    // ceil(2^64 / d) = floor((2^64 - 1) / d) + 1 for d > 1 not a power of two; for a power of
    // two it is 2^64 / d exactly, which the same formula also gives (2^64 - 1 = d * k + d - 1).
    c_ = ~std::uint64_t{0} / d_ + 1;
    limit_ = std::uint64_t{1} << (64 - std::bit_width(d_ - 1));  // 2^(64 - ceil(log2 d))
  }
  std::uint64_t divisor() const { return d_; }
  std::uint64_t div(std::uint64_t n) const {
    if (d_ == 1) return n;
    if (n < limit_) [[likely]]
      return static_cast<std::uint64_t>((static_cast<unsigned __int128>(n) * c_) >> 64);
    return n / d_;
  }
  std::uint64_t mod(std::uint64_t n) const { return n - div(n) * d_; }

 private:
  std::uint64_t d_ = 1, c_ = 0, limit_ = 0;
};

}  // namespace simfa::mem
