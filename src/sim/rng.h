// Deterministic per-component random streams (xoshiro256**, seeded by splitmix64 from a global
// seed and the component's name), so results never depend on construction order or wall clock.
#pragma once
#include <cstdint>
#include <string_view>

namespace simfa {

class Rng {
 public:
  Rng(std::uint64_t seed, std::string_view stream) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a of the stream name
    for (char c : stream) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    std::uint64_t x = seed ^ h;
    for (auto& w : s_) w = splitmix(x);
  }
  std::uint64_t next() {
    const std::uint64_t r = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t s_[4];
};

}  // namespace simfa
