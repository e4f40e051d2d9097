// Basic scalar types of the simulator: time in cycles of the SM clock, byte addresses, ids.
#pragma once
#include <cstdint>
#include <limits>

namespace simfa {

// Cycles of the SM (core) clock. Every component that runs in another clock domain (DRAM) converts
// at its boundary. Plain aliases rather than wrapper classes: the hot loops do a lot of arithmetic
// on these, and docs/architecture.md records this deviation from DESIGN.md's strong-type advice.
using Cycle = std::uint64_t;
using Addr = std::uint64_t;   // byte address in global memory
using Bytes = std::uint64_t;  // byte count

inline constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

// static_cast<Cycle>(std::ceil(x)) for a finite x >= 0, inline: without SSE4.1 the compiler calls
// libm's ceil, and the crossbar ports and L2 response ports round a fractional time on every line
// (about 20 instructions a call). Exact: below 2^52 the truncation and the comparison are exact,
// and at or above it every double is an integer.
constexpr Cycle ceil_cycle(double x) {
  const auto t = static_cast<Cycle>(x);
  return t + (static_cast<double>(t) < x ? 1 : 0);
}

// Every global byte a trace touches lies below 2^47 (128 TiB): the user half of x86-64's 48-bit
// virtual address space, where CUDA's unified addressing places device memory (logged TensorMap
// bases are near 0x7fc0'0000'0000). The trace validator rejects anything above before cycle 0; the
// caches' 32-bit tags cover it with the presets' geometry (a tiny cache that cannot is a UserError
// at the access, mem/tag_array.cpp).
inline constexpr Addr kGlobalAddressLimit = Addr{1} << 47;

}  // namespace simfa
