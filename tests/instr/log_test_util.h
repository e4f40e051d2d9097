// Helpers for the instrumentation tests: a small known log and byte patching.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instr/emulator.h"

namespace simfa::instr::test {

using Bytes = std::vector<unsigned char>;

// Offsets of the version-1 layout (docs/instrumentation.md).
inline constexpr std::size_t kOffVersion = 8, kOffHeaderSize = 12, kOffGrid = 16, kOffBlock = 28,
                             kOffWarpsPerBlock = 40, kOffEntriesPerWarp = 44, kOffClockKind = 48,
                             kOffEntrySize = 52, kOffClockRate = 56, kOffNumTmaps = 64,
                             kOffTmapRecord = 68, kOffNumWarps = 72, kHeader = 80, kTmap = 120;

// grid 2x1x1, block 64 threads (2 warps per block), 4 entries per warp, one tensormap; every warp
// records 1 + warp entries with increasing timestamps.
inline LoggerEmulator small_emulator() {
  LoggerEmulator e({2, 1, 1}, {64, 1, 1}, 4, SIMFA_CLOCK_CLOCK64);
  simfa_tensormap_desc k{};
  k.id = SIMFA_TMAP_K;
  k.rank = 3;
  k.base = 0x7f0000000000ull;
  k.dims[0] = 128, k.dims[1] = 4096, k.dims[2] = 8;
  k.strides_bytes[0] = 2, k.strides_bytes[1] = 256, k.strides_bytes[2] = 256 * 4096;
  k.box[0] = 128, k.box[1] = 176, k.box[2] = 1;
  k.elem_bytes = 2;
  e.add_tensormap(k);
  e.set_clock_rate_hz(1830000000ull);
  uint64_t t = 100;
  for (uint64_t b = 0; b < 2; ++b)
    for (uint32_t w = 0; w < 2; ++w)
      for (uint32_t i = 0; i < 1 + w; ++i)
        e.record(b, w, t += 10, SIMFA_EV_TMA_K_ISSUE, static_cast<uint16_t>(i),
                 static_cast<uint16_t>(b * 10 + i));
  return e;
}

inline void put32(Bytes& b, std::size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(off + i) = static_cast<unsigned char>(v >> (8 * i));
}
inline void put64(Bytes& b, std::size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.at(off + i) = static_cast<unsigned char>(v >> (8 * i));
}
inline uint32_t get32(const Bytes& b, std::size_t off) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{b.at(off + i)} << (8 * i);
  return v;
}

// Offsets in small_emulator()'s file.
inline constexpr std::size_t kSmallWarpTable = kHeader + kTmap;        // 4 warps x 8 bytes
inline constexpr std::size_t kSmallEntries = kSmallWarpTable + 4 * 8;  // 6 entries x 16 bytes

}  // namespace simfa::instr::test
