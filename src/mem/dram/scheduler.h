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
  // pick_ahead() only: banks whose oldest visible row hit, closed-bank request and conflicting
  // request the pick weighed. A younger request of a bank and kind named here cannot change the
  // pick, so the channel need not look again when one arrives. Zero: unknown (look again).
  std::uint64_t hit_banks = 0, closed_banks = 0, conflict_banks = 0;
};

class DramScheduler {
 public:
  virtual ~DramScheduler() = default;
  virtual SchedPick pick(const SchedView& v, DCycle at) const = 0;
  // The pick at the first edge at which a command is ready: `next` as pick(v, at) returns it, and
  // `column`/`row` as pick(v, max(at, next)) names them, the state being unchanged till then. A
  // channel keeps it for that edge and issues from it there without a second look at the queue,
  // unless a command, a new request or a refresh changed the pseudo-channel in between. The
  // default asks pick() twice; a policy can do both in one pass.
  virtual SchedPick pick_ahead(const SchedView& v, DCycle at) const {
    const SchedPick p = pick(v, at);
    return p.next > at && p.next != kNeverD ? pick(v, p.next) : p;
  }
};

using DramSchedulerMake = std::unique_ptr<DramScheduler> (*)();
using DramSchedulerVariant = Variant<DramSchedulerMake>;
// Every policy, for dram.scheduler.
const VariantList<DramSchedulerMake>& dram_schedulers();

// The policy called `name`; UserError listing the choices for an unknown name.
std::unique_ptr<DramScheduler> make_dram_scheduler(std::string_view name);

}  // namespace simfa::mem
