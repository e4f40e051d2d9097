// A pseudo-random bijection of [0, n) that is never materialized: a 4-round Feistel network on the
// smallest even power of two >= n, with cycle walking back into [0, n). Visiting sigma(0),
// sigma(1), ..., sigma(n-1), sigma(0), ... is a random cyclic order of all n elements, which is
// what the pointer chase of microbench-methods.md walks; a 2.7 GB chase needs no 84 MB table.
#pragma once
#include <cstdint>

namespace simfa::microbench {

class Permutation {
 public:
  Permutation(std::uint64_t n, std::uint64_t seed) : n_(n ? n : 1) {
    half_ = 1;
    while ((std::uint64_t{1} << (2 * half_)) < n_) ++half_;
    mask_ = (std::uint64_t{1} << half_) - 1;
    std::uint64_t x = seed ^ 0x5DEECE66DULL;
    for (auto& k : keys_) k = x = mix(x + 0x9E3779B97F4A7C15ULL);
  }
  std::uint64_t size() const { return n_; }
  std::uint64_t operator()(std::uint64_t i) const {
    std::uint64_t v = i % n_;
    do v = round_trip(v);
    while (v >= n_);
    return v;
  }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t round_trip(std::uint64_t v) const {
    std::uint64_t l = v >> half_, r = v & mask_;
    for (std::uint64_t k : keys_) {
      const std::uint64_t f = mix(r ^ k) & mask_;
      const std::uint64_t nl = r;
      r = l ^ f;
      l = nl;
    }
    return (l << half_) | r;
  }
  std::uint64_t n_, mask_ = 0;
  int half_ = 0;
  std::uint64_t keys_[4] = {};
};

}  // namespace simfa::microbench
