// FR-FCFS (Rixner et al., ISCA 2000): the oldest row hit whose column command is ready goes first;
// the oldest request whose row command (ACT, or PRE of a conflicting row) is ready gets the row
// bus. A precharge is held back while visible requests still hit the open row, unless that row has
// already served `row_hit_cap` column commands (so a stream of hits cannot starve an older miss).
// One pass over the queue: requests to the same bank in the same row state share their timing, so
// only the oldest of each (bank, kind) is examined; precharges are decided after the pass, once
// every pending hit is known.
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

  // pick()'s decisions at max(at, next) in one pass: the pass keeps the first hit, closed-bank
  // request and conflict of every bank with its ready time, in age order; the earliest of those
  // times is `next`, and the choice at `when` takes the oldest of each kind ready by then.
  SchedPick pick_ahead(const SchedView& v, DCycle at) const override {
    enum class Kind : std::uint8_t { Hit, Act, Conflict };
    struct Cand {
      int index;
      std::uint32_t bank;
      Kind kind;
      DCycle t;
    };
    const PcTiming& tm = v.timing;
    const Cmd col = v.writes ? Cmd::Wr : Cmd::Rd;
    std::array<Cand, 128> cands;  // at most two per bank: a hit and a conflict, or one closed
    std::size_t n = 0;
    std::uint64_t hits = 0, act_seen = 0, conflicts = 0;
    for (std::size_t i = 0; i < v.visible; ++i) {
      const DramEntry& e = v.queue[i];
      const std::uint64_t bit = 1ULL << e.bank;
      if (v.blocked & bit) continue;
      const std::uint32_t open = tm.bank(e.bank).open_row;
      if (open == e.row) {
        if (hits & bit) continue;
        hits |= bit;
        cands[n++] = {static_cast<int>(i), e.bank, Kind::Hit, tm.earliest(col, e.bank)};
      } else if (open == kNoRow) {
        if (act_seen & bit) continue;
        act_seen |= bit;
        cands[n++] = {static_cast<int>(i), e.bank, Kind::Act, tm.earliest(Cmd::Act, e.bank)};
      } else if (!(conflicts & bit)) {
        conflicts |= bit;
        cands[n++] = {static_cast<int>(i), e.bank, Kind::Conflict, kNeverD};
      }
    }
    SchedPick p;
    p.hit_banks = hits;
    p.closed_banks = act_seen;
    p.conflict_banks = conflicts;
    for (std::size_t k = 0; k < n; ++k) {
      Cand& c = cands[k];
      if (c.kind == Kind::Conflict) {
        // Held back by the row-hit guard: no time of its own (only a command releases it).
        if ((hits & (1ULL << c.bank)) && tm.bank(c.bank).columns_since_act < v.row_hit_cap)
          continue;
        c.t = tm.earliest(Cmd::Pre, c.bank);
      }
      p.next = std::min(p.next, c.t);
    }
    if (p.next == kNeverD) return p;
    const DCycle when = std::max(at, p.next);
    int act = -1, pre = -1;
    for (std::size_t k = 0; k < n; ++k) {
      const Cand& c = cands[k];
      if (c.t > when) continue;
      if (c.kind == Kind::Hit) {
        if (p.column < 0) p.column = c.index;
      } else if (c.kind == Kind::Act) {
        if (act < 0) act = c.index;
      } else if (pre < 0) {
        pre = c.index;
      }
    }
    choose_row(p, act, pre);
    return p;
  }
};

}  // namespace

extern const DramSchedulerVariant frfcfs_scheduler;
constinit const DramSchedulerVariant frfcfs_scheduler{
    "frfcfs", "row hits first, then the oldest request (Rixner et al., ISCA 2000)",
    []() -> std::unique_ptr<DramScheduler> { return std::make_unique<FrFcfsScheduler>(); }};

}  // namespace simfa::mem
