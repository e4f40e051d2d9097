// Host-side emulator of the device logger (cuda/include/simfa/evlog.cuh): the same per-warp
// buffers, the same capacity and overflow rule, the same file. Tests and the trace translator use
// it to produce logs for a synthetic run with caller-chosen timestamps.
//
// Contract: record() for (block, warp) appends one entry while the warp's buffer has room and
// returns true; once full it records nothing, sets the warp's overflow flag and returns false,
// exactly as lane 0 does on the device. Timestamps are stored as given (not checked).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instr/event_log.h"

namespace simfa::instr {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

class LoggerEmulator {
 public:
  // Throws UserError on zero dimensions or a bad clock kind.
  LoggerEmulator(Dim3 grid, Dim3 block, uint32_t entries_per_warp,
                 uint32_t clock_kind = SIMFA_CLOCK_CLOCK64);

  const FileHeader& header() const { return header_; }
  uint64_t num_blocks() const { return evlog::num_blocks(header_); }
  uint32_t warps_per_block() const { return header_.warps_per_block; }

  void set_clock_rate_hz(uint64_t hz) { header_.clock_rate_hz = hz; }
  // Same checks as EvlogHost::add_tensormap (rank 1..5, unique id); throws UserError.
  void add_tensormap(const simfa_tensormap_desc& t);

  // `block` is the linear block index (x + gx * (y + gy * z)); `warp` the warp within the block.
  bool record(uint64_t block, uint32_t warp, uint64_t timestamp, uint16_t event, uint16_t stage,
              uint16_t payload);
  // Records the same entry for the four warps of WarpGroup `wg` (warps 4wg .. 4wg+3), as when
  // every warp of a WarpGroup passes the call site. Returns false if any warp overflowed.
  bool record_warpgroup(uint64_t block, uint32_t wg, uint64_t timestamp, uint16_t event,
                        uint16_t stage, uint16_t payload);

  uint32_t count(uint64_t block, uint32_t warp) const { return counts_.at(index(block, warp)); }
  bool overflowed(uint64_t block, uint32_t warp) const {
    return overflow_.at(index(block, warp)) != 0;
  }

  std::vector<unsigned char> encode() const;
  void write(const std::string& path) const;  // throws UserError on I/O failure

 private:
  uint64_t index(uint64_t block, uint32_t warp) const;

  FileHeader header_;
  std::vector<simfa_tensormap_desc> tensormaps_;
  std::vector<uint32_t> counts_, overflow_;
  std::vector<Entry> entries_;  // [warp * entries_per_warp + i], as on the device
};

}  // namespace simfa::instr
