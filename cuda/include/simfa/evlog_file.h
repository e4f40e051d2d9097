// simfa event-log file encoder (host C++17, header-only). The single definition of the on-disk
// layout, shared by simfa::EvlogHost (nvcc, real GPU buffers) and simfa::instr::LogWriter (the
// host-side emulator), so both write byte-identical files. Layout: docs/instrumentation.md.
//
// All integers are little-endian and written field by field (never by memcpy of a struct), so
// the file does not depend on the host's struct padding or byte order.
#ifndef SIMFA_EVLOG_FILE_H
#define SIMFA_EVLOG_FILE_H

#include <stdint.h>

#include <cstddef>
#include <ostream>
#include <vector>

#include "simfa/evlog_format.h"

namespace simfa::evlog {

// Byte sizes and offsets of version 1 (see docs/instrumentation.md, "File layout").
inline constexpr uint32_t kHeaderSize = 80;
inline constexpr uint32_t kEntrySize = 16;
inline constexpr uint32_t kTensorMapRecordSize = 120;
inline constexpr uint32_t kWarpRecordSize = 8;  // u32 count, u32 overflow flag

// Everything the fixed header holds besides magic, version and the derived sizes.
struct FileHeader {
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t warps_per_block = 1;
  uint32_t entries_per_warp = 0;
  uint32_t clock_kind = SIMFA_CLOCK_GLOBALTIMER_NS;
  uint64_t clock_rate_hz = 0;  // 0 = unknown; 1e9 for the globaltimer
};

inline uint64_t num_blocks(const FileHeader& h) {
  return uint64_t{h.grid[0]} * h.grid[1] * h.grid[2];
}
inline uint64_t num_warps(const FileHeader& h) { return num_blocks(h) * h.warps_per_block; }
inline uint32_t warps_for_threads(uint64_t threads) {
  return static_cast<uint32_t>((threads + 31) / 32);
}

// Little-endian appenders.
inline void put_u16(std::vector<unsigned char>& b, uint16_t v) {
  b.push_back(static_cast<unsigned char>(v));
  b.push_back(static_cast<unsigned char>(v >> 8));
}
inline void put_u32(std::vector<unsigned char>& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
}
inline void put_u64(std::vector<unsigned char>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// The in-memory image the device (or the emulator) produced: per-warp counts and overflow flags
// and a flat entry array where warp w's buffer starts at w * entries_per_warp. Alternatively
// `warp_entries` gives one pointer per warp (used to re-encode a parsed log without
// materialising num_warps x entries_per_warp entries); it takes precedence when set.
struct BufferView {
  const uint32_t* counts = nullptr;    // [num_warps]
  const uint32_t* overflow = nullptr;  // [num_warps]
  const simfa_evlog_entry* entries = nullptr;
  const simfa_evlog_entry* const* warp_entries = nullptr;  // [num_warps], optional
};

// Writes the whole file to `out`. Counts above entries_per_warp (impossible from the logger) are
// clamped so the file always stays self-consistent. Returns false if the stream failed.
inline bool write_file(std::ostream& out, const FileHeader& h,
                       const std::vector<simfa_tensormap_desc>& tensormaps, const BufferView& buf) {
  const uint64_t warps = num_warps(h);
  std::vector<unsigned char> b;
  b.reserve(kHeaderSize + tensormaps.size() * kTensorMapRecordSize);
  for (int i = 0; i < SIMFA_EVLOG_MAGIC_SIZE; ++i)
    b.push_back(static_cast<unsigned char>(SIMFA_EVLOG_MAGIC[i]));
  put_u32(b, SIMFA_EVLOG_VERSION);
  put_u32(b, kHeaderSize);
  for (uint32_t g : h.grid) put_u32(b, g);
  for (uint32_t t : h.block) put_u32(b, t);
  put_u32(b, h.warps_per_block);
  put_u32(b, h.entries_per_warp);
  put_u32(b, h.clock_kind);
  put_u32(b, kEntrySize);
  put_u64(b, h.clock_rate_hz);
  put_u32(b, static_cast<uint32_t>(tensormaps.size()));
  put_u32(b, kTensorMapRecordSize);
  put_u64(b, warps);
  for (const simfa_tensormap_desc& t : tensormaps) {
    put_u32(b, t.id);
    put_u32(b, t.rank);
    put_u64(b, t.base);
    for (uint64_t d : t.dims) put_u64(b, d);
    for (uint64_t s : t.strides_bytes) put_u64(b, s);
    for (uint32_t x : t.box) put_u32(b, x);
    put_u32(b, t.elem_bytes);
  }
  auto count_of = [&](uint64_t w) {
    const uint32_t c = buf.counts ? buf.counts[w] : 0;
    return c > h.entries_per_warp ? h.entries_per_warp : c;
  };
  for (uint64_t w = 0; w < warps; ++w) {
    put_u32(b, count_of(w));
    put_u32(b, (buf.overflow && buf.overflow[w]) ? 1u : 0u);
  }
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  for (uint64_t w = 0; w < warps; ++w) {  // entries, warp by warp, flushed per warp
    b.clear();
    const simfa_evlog_entry* e =
        buf.warp_entries ? buf.warp_entries[w] : buf.entries + w * h.entries_per_warp;
    for (uint32_t i = 0, n = count_of(w); i < n; ++i) {
      put_u64(b, e[i].timestamp);
      put_u16(b, e[i].event);
      put_u16(b, e[i].stage);
      put_u16(b, e[i].payload);
      put_u16(b, 0);
    }
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  out.flush();
  return static_cast<bool>(out);
}

}  // namespace simfa::evlog

#endif  // SIMFA_EVLOG_FILE_H
