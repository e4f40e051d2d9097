// What an L2 slice needs from the rest of the memory system (implemented by the hierarchy that
// owns the slices). A slice never sees another slice, the crossbar, the SMs or the DRAM directly.
#pragma once
#include <cstdint>

#include "mem/dram/dram.h"
#include "sim/types.h"

namespace simfa::mem {

class SliceFabric {
 public:
  virtual ~SliceFabric() = default;
  // Transaction `txn` served by `slice`: its response (data, or a write acknowledgement) leaves
  // the slice's port at cycle `depart` (>= now). `from_dram` marks a fill after a miss.
  virtual void respond(std::uint32_t txn, std::uint32_t slice, Cycle depart, bool from_dram,
                       Cycle now) = 0;
  // A probe missed in the mirror slice `slice`: send it on to its home slice.
  virtual void forward(std::uint32_t txn, std::uint32_t slice, Cycle now) = 0;
  // A request left `slice`'s request queue (one crossbar credit is free again).
  virtual void credit_freed(std::uint32_t slice, Cycle now) = 0;
  // A write reached the home slice of `line`: drop the shadow copies elsewhere.
  virtual void invalidate_shadows(std::uint64_t line, std::uint32_t home) = 0;
  // Hands a request to the DRAM. Never refused: while the request's DRAM channel is full it waits,
  // in order, in the fabric's queue for that channel. Returns whether the channel took it now;
  // for a write-back that waits, the fabric calls the slice's writeback_accepted() when the
  // channel takes it.
  virtual bool dram_send(const DramReq& r, Cycle now) = 0;
};

}  // namespace simfa::mem
