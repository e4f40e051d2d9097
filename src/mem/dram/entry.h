// A request waiting in a pseudo-channel queue, with its decoded coordinates and progress.
#pragma once
#include <cstdint>

#include "mem/dram/dram.h"

namespace simfa::mem {

enum class RowOutcome : std::uint8_t { None, Hit, Miss, Conflict };

struct DramEntry {
  DramReq req;
  std::uint64_t seq = 0;  // acceptance order over the whole DRAM: the age for FCFS decisions
  Cycle arrival = 0;      // core cycle accepted; visible to the scheduler from the next edge
  std::uint32_t row = 0;
  std::uint8_t bank = 0;    // flat bank index within the pseudo-channel
  std::uint8_t bursts = 0;  // column commands this request needs
  std::uint8_t bursts_left = 0;
  RowOutcome outcome = RowOutcome::None;  // set by the first command issued for it
};

}  // namespace simfa::mem
