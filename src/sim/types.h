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

}  // namespace simfa
