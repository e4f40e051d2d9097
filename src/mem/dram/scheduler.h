// DRAM command scheduler of one pseudo-channel (dram.scheduler). A variant concept: one file per
// policy (sched_*.cpp), listed in scheduler.cpp.
//
// Contract: pick() looks at the first `visible` entries of `queue` (age order) and the timing
// state, and names at most one column command (RD/WR for a row hit) and at most one row command
// (ACT for a closed bank, PRE for a conflicting open row) that may issue at DRAM cycle `at`. It
// also returns `next`: the earliest cycle at which any command it would consider becomes timing-
// ready (<= at when something is ready now). It changes nothing; banks in `blocked` (reserved by a
// pending refresh) get no command. Commands held back by policy rather than timing (FR-FCFS's
// precharge guard) contribute nothing to `next`: only an issued command can release them.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "mem/dram/command.h"
#include "mem/dram/entry.h"
#include "mem/dram/pc_timing.h"
#include "sim/variants.h"

namespace simfa::mem {

inline constexpr DCycle kNeverD = std::numeric_limits<DCycle>::max();

struct SchedView {
  const PcTiming& timing;
  const std::vector<DramEntry>& queue;
  std::size_t visible;    // entries [0, visible) may be scheduled
  bool writes;            // the queue holds writes (WR instead of RD)
  std::uint64_t blocked;  // bank mask reserved by refresh
  std::uint32_t row_hit_cap;
};

struct SchedPick {
  int column = -1;  // queue index of the column command ready now
  int row = -1;     // queue index of the row command ready now
  Cmd row_cmd = Cmd::Act;
  DCycle next = kNeverD;
};

class DramScheduler {
 public:
  virtual ~DramScheduler() = default;
  virtual SchedPick pick(const SchedView& v, DCycle at) const = 0;
};

using DramSchedulerMake = std::unique_ptr<DramScheduler> (*)();
using DramSchedulerVariant = Variant<DramSchedulerMake>;
// Every policy, for dram.scheduler.
const VariantList<DramSchedulerMake>& dram_schedulers();

// The policy called `name`; UserError listing the choices for an unknown name.
std::unique_ptr<DramScheduler> make_dram_scheduler(std::string_view name);

}  // namespace simfa::mem
