// In-memory form of a simfa event log (the binary file written by the device logger, the
// emulator and EvlogHost; layout in docs/instrumentation.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simfa/evlog_file.h"
#include "simfa/evlog_format.h"

namespace simfa::instr {

using Entry = simfa_evlog_entry;
using evlog::FileHeader;

// One warp's buffer as recorded: the entries lane 0 wrote, in order, and whether it ran out of
// space (events after the last entry were dropped).
struct WarpLog {
  std::vector<Entry> entries;
  bool overflow = false;
};

struct EventLog {
  std::string source;  // file name the log came from (for messages)
  uint32_t version = SIMFA_EVLOG_VERSION;
  FileHeader header;
  std::vector<simfa_tensormap_desc> tensormaps;
  // Flat, index = linear block * warps_per_block + warp within block (the device layout).
  std::vector<WarpLog> warps;
  // Problems that leave the log usable (overflow, non-monotonic timestamps), one line each.
  std::vector<std::string> warnings;

  uint64_t num_blocks() const { return evlog::num_blocks(header); }
  uint32_t warps_per_block() const { return header.warps_per_block; }
  const WarpLog& warp(uint64_t block, uint32_t warp_in_block) const {
    return warps.at(block * header.warps_per_block + warp_in_block);
  }
  // Tensormap with this id, or nullptr.
  const simfa_tensormap_desc* tensormap(uint32_t id) const {
    for (const auto& t : tensormaps)
      if (t.id == id) return &t;
    return nullptr;
  }
};

}  // namespace simfa::instr
