// FR-FCFS (Rixner et al., ISCA 2000): the oldest row hit whose column command is ready goes first;
// the oldest request whose row command (ACT, or PRE of a conflicting row) is ready gets the row
// bus. A precharge is held back while visible requests still hit the open row, unless that row has
// already served `row_hit_cap` column commands (so a stream of hits cannot starve an older miss).
// Requests to the same bank in the same row state share their timing, so only the oldest of each
// (bank, kind) is examined: pick() scans the queue, deciding precharges after the scan, once
// every pending hit is known; pick_ahead() visits the banks through the queue's BankIndex.
#include <algorithm>
#include <array>
#include <bit>

#include "mem/dram/scheduler.h"

namespace simfa::mem {
namespace {

class FrFcfsScheduler final : public DramScheduler {
  // The row bus goes to the older of the ready ACT and PRE (queue indices, -1: none).
  static void choose_row(SchedPick& p, int act, int pre) {
    if (act >= 0 && (pre < 0 || act < pre)) {
      p.row = act;
      p.row_cmd = Cmd::Act;
    } else if (pre >= 0) {
      p.row = pre;
      p.row_cmd = Cmd::Pre;
    }
  }

 public:
  // The reference: the engine's reference mode runs it at every edge, and the tests hold
  // pick_ahead() and the skipping channel to it.
  SchedPick pick(const SchedView& v, DCycle at) const override {
    const PcTiming& tm = v.timing;
    const Cmd col = v.writes ? Cmd::Wr : Cmd::Rd;
    SchedPick p;
    std::uint64_t hits = 0, hit_seen = 0, act_seen = 0, conflicts = 0;
    std::array<int, 64> first_conflict;  // valid where `conflicts` has the bank's bit
    int act = -1;
    for (std::size_t i = 0; i < v.visible; ++i) {
      const DramEntry& e = v.queue[i];
      const std::uint64_t bit = 1ULL << e.bank;
      if (v.blocked & bit) continue;
      const std::uint32_t open = tm.bank(e.bank).open_row;
      if (open == e.row) {
        hits |= bit;
        if ((hit_seen & bit) || p.column >= 0) continue;  // same timing as an older hit, or done
        hit_seen |= bit;
        const DCycle t = tm.earliest(col, e.bank);
        p.next = std::min(p.next, t);
        if (t <= at) p.column = static_cast<int>(i);
      } else if (open == kNoRow) {
        if ((act_seen & bit) || act >= 0) continue;
        act_seen |= bit;
        const DCycle t = tm.earliest(Cmd::Act, e.bank);
        p.next = std::min(p.next, t);
        if (t <= at) act = static_cast<int>(i);
      } else if (!(conflicts & bit)) {
        conflicts |= bit;
        first_conflict[e.bank] = static_cast<int>(i);
      }
    }
    int pre = -1;
    for (std::uint64_t m = conflicts; m; m &= m - 1) {
      const auto b = static_cast<std::uint32_t>(std::countr_zero(m));
      if ((hits & (1ULL << b)) && tm.bank(b).columns_since_act < v.row_hit_cap) continue;
      const DCycle t = tm.earliest(Cmd::Pre, b);
      p.next = std::min(p.next, t);
      if (t <= at && (pre < 0 || first_conflict[b] < pre)) pre = first_conflict[b];
    }
    choose_row(p, act, pre);
    return p;
  }

  // pick()'s decisions at max(at, next) in one pass over the banks that have requests (the
  // queue's BankIndex; without one, the interface's two picks). The pass weighs the first hit,
  // closed-bank request and conflict of every bank with its ready time; `next` is the earliest of
  // those times, and the choice at max(at, next) is the oldest of each kind ready by then: those
  // ready at `at` when any is, else those ready at `next`.
  SchedPick pick_ahead(const SchedView& v, DCycle at) const override {
    if (!v.banks) return DramScheduler::pick_ahead(v, at);
    const PcTiming& tm = v.timing;
    const Cmd col = v.writes ? Cmd::Wr : Cmd::Rd;
    SchedPick p;
    // The oldest candidate of each kind (Hit, Act, Pre) ready at `at`, and ready at p.next.
    int now[3] = {-1, -1, -1}, first[3] = {-1, -1, -1};
    auto weigh = [&](int kind, int index, DCycle t) {
      if (t <= at) {
        if (now[kind] < 0 || index < now[kind]) now[kind] = index;
      }
      if (t < p.next) {
        p.next = t;
        first[0] = first[1] = first[2] = -1;
        first[kind] = index;
      } else if (t == p.next && (first[kind] < 0 || index < first[kind])) {
        first[kind] = index;
      }
    };
    std::uint64_t hits = 0, act_seen = 0, conflicts = 0;
    const std::uint64_t shown = v.visible >= 64 ? ~0ULL : (1ULL << v.visible) - 1;
    for (std::uint64_t bm = v.banks->queued() & ~v.blocked; bm; bm &= bm - 1) {
      const auto b = static_cast<std::uint32_t>(std::countr_zero(bm));
      const std::uint64_t m = v.banks->pos(b) & shown;
      if (!m) continue;
      const std::uint64_t bit = 1ULL << b;
      if (tm.bank(b).open_row == kNoRow) {
        act_seen |= bit;
        weigh(kAct, std::countr_zero(m), tm.earliest(Cmd::Act, b));
        continue;
      }
      const std::uint64_t hit = m & v.banks->hits(b);
      if (hit) {
        hits |= bit;
        weigh(kHit, std::countr_zero(hit), tm.earliest(col, b));
      }
      if (m & ~hit) {
        conflicts |= bit;
        // A conflict's precharge held back by the row-hit guard has no time of its own (only a
        // command releases it).
        if (!hit || tm.bank(b).columns_since_act >= v.row_hit_cap)
          weigh(kPre, std::countr_zero(m & ~hit), tm.earliest(Cmd::Pre, b));
      }
    }
    p.hit_banks = hits;
    p.closed_banks = act_seen;
    p.conflict_banks = conflicts;
    if (p.next == kNeverD) return p;
    const int* chosen = p.next <= at ? now : first;
    p.column = chosen[kHit];
    choose_row(p, chosen[kAct], chosen[kPre]);
    return p;
  }

 private:
  enum : int { kHit, kAct, kPre };
};

}  // namespace

extern const DramSchedulerVariant frfcfs_scheduler;
constinit const DramSchedulerVariant frfcfs_scheduler{
    "frfcfs", "row hits first, then the oldest request (Rixner et al., ISCA 2000)",
    []() -> std::unique_ptr<DramScheduler> { return std::make_unique<FrFcfsScheduler>(); }};

}  // namespace simfa::mem
