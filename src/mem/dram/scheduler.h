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
#include <bit>
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

// Where each bank's requests sit in a queue of at most 64, and which of them hit the bank's open
// row (kept by the channel as requests come and go and rows open and close): bit i of pos(b) is set
// while queue[i] is a request to bank b, and of hits(b) while that request is to b's open row. It
// lets a scheduler visit the banks that have requests instead of every request.
class BankIndex {
 public:
  static constexpr std::size_t kMaxQueue = 64;
  explicit BankIndex(std::uint32_t banks = 0) : pos_(banks, 0), hit_(banks, 0) {}
  // queue[i] (the new tail) is a request to `bank`, to its open row if `hit`.
  void push(std::uint32_t bank, std::size_t i, bool hit) {
    pos_[bank] |= 1ULL << i;
    hit_[bank] |= std::uint64_t{hit} << i;
    queued_ |= 1ULL << bank;
  }
  // queue[i], a request to `bank`, is erased and the entries after it move up by one.
  void erase(std::uint32_t bank, std::size_t i) {
    const std::uint64_t low = (1ULL << i) - 1;
    pos_[bank] &= ~(1ULL << i);
    hit_[bank] &= ~(1ULL << i);
    if (!pos_[bank]) queued_ &= ~(1ULL << bank);
    for (std::uint64_t m = queued_; m; m &= m - 1) {
      const auto b = static_cast<std::size_t>(std::countr_zero(m));
      pos_[b] = (pos_[b] & low) | ((pos_[b] >> 1) & ~low);
      hit_[b] = (hit_[b] & low) | ((hit_[b] >> 1) & ~low);
    }
  }
  // `bank` opened `row` (ACT); `queue` is the indexed queue.
  void opened(std::uint32_t bank, std::uint32_t row, const std::vector<DramEntry>& queue) {
    std::uint64_t h = 0;
    for (std::uint64_t m = pos_[bank]; m; m &= m - 1) {
      const int i = std::countr_zero(m);
      h |= std::uint64_t{queue[static_cast<std::size_t>(i)].row == row} << i;
    }
    hit_[bank] = h;
  }
  void closed(std::uint32_t bank) { hit_[bank] = 0; }  // PRE
  std::uint64_t pos(std::uint32_t bank) const { return pos_[bank]; }
  std::uint64_t hits(std::uint32_t bank) const { return hit_[bank]; }
  std::uint64_t queued() const { return queued_; }  // banks with at least one request

 private:
  std::vector<std::uint64_t> pos_, hit_;
  std::uint64_t queued_ = 0;
};

struct SchedView {
  const PcTiming& timing;
  const std::vector<DramEntry>& queue;
  std::size_t visible;    // entries [0, visible) may be scheduled
  bool writes;            // the queue holds writes (WR instead of RD)
  std::uint64_t blocked;  // bank mask reserved by refresh
  std::uint32_t row_hit_cap;
  // The queue's BankIndex, or nullptr (queues over BankIndex::kMaxQueue; tests): a scheduler may
  // use it instead of scanning `queue`, with the same decisions.
  const BankIndex* banks = nullptr;
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
