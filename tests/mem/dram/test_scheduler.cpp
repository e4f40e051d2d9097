// The scheduler contract the channel relies on to skip a second look at the queue:
// pick_ahead(v, at) names what pick(v, max(at, next)) names, for every policy, on random queues
// and bank states (open rows, timing left by random commands, refresh reservations, the row-hit
// cap). The channel-level equivalence (skip-idle against reference mode, which never uses
// pick_ahead) is DramSystem.SkipIdleAndReferenceModeAreIdentical.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "mem/dram/pc_timing.h"
#include "mem/dram/scheduler.h"
#include "sim/rng.h"

namespace simfa::mem {
namespace {

TEST(DramScheduler, PickAheadNamesWhatPickNamesAtTheNextReadyEdge) {
  const DramTiming t;
  for (const char* name : {"frfcfs", "fcfs"}) {
    const auto sched = make_dram_scheduler(name);
    Rng rng(23, "pick_ahead");
    int ahead = 0, now = 0, none = 0;
    for (int trial = 0; trial < 4000; ++trial) {
      const std::uint32_t banks_per_group = 4, groups = 4, banks = banks_per_group * groups;
      PcTiming tm(t, groups, banks_per_group);
      // Random history: open some rows, issue columns and precharges, in legal order.
      DCycle at = 0;
      for (int k = 0, n = static_cast<int>(rng.next() % 24); k < n; ++k) {
        const auto b = static_cast<std::uint32_t>(rng.next() % banks);
        const BankState& s = tm.bank(b);
        Cmd c = Cmd::Act;
        if (s.open_row != kNoRow) c = rng.next() % 3 == 0 ? Cmd::Pre : (rng.next() % 2 ? Cmd::Rd : Cmd::Wr);
        at = std::max(at, tm.earliest(c, b)) + rng.next() % 3;
        tm.issue(c, b, static_cast<std::uint32_t>(rng.next() % 3), at);
      }
      std::vector<DramEntry> q(rng.next() % 20);
      for (std::size_t i = 0; i < q.size(); ++i) {
        q[i].seq = i;
        q[i].bank = static_cast<std::uint8_t>(rng.next() % banks);
        q[i].row = static_cast<std::uint32_t>(rng.next() % 3);
      }
      const SchedView v{tm,
                        q,
                        q.empty() ? 0 : rng.next() % (q.size() + 1),
                        rng.next() % 2 == 0,
                        rng.next() % 4 == 0 ? rng.next() & 0xFFFF : 0,
                        static_cast<std::uint32_t>(1 + rng.next() % 4)};
      const DCycle from = at > 40 ? at - rng.next() % 40 : at;
      // pick_ahead sees the queue through its BankIndex, built as a channel keeps it: entries
      // pushed, one of them erased from the middle, rows opened (ACT) and closed (PRE) while
      // requests wait. (Without one, FR-FCFS falls back to the interface's two picks.)
      BankIndex index(banks);
      std::vector<DramEntry> qi;
      const std::size_t gone = q.empty() ? 0 : rng.next() % (q.size() + 1);
      auto push = [&](const DramEntry& e) {
        qi.push_back(e);
        index.push(e.bank, qi.size() - 1, tm.bank(e.bank).open_row == e.row);
      };
      for (std::size_t i = 0; i < q.size(); ++i) {
        if (i == gone) {  // the entry that will be erased: sometimes to a bank with no other
          DramEntry e = q[(i + 1) % q.size()];
          if (rng.next() % 2) e.bank = static_cast<std::uint8_t>(rng.next() % banks);
          push(e);
        }
        push(q[i]);
      }
      for (std::uint32_t b = 0; b < banks; ++b) {
        if (rng.next() % 2) index.opened(b, static_cast<std::uint32_t>(rng.next() % 3), qi);
        if (rng.next() % 2) index.closed(b);
        // The row the timing has open now (the last ACT or PRE).
        if (tm.bank(b).open_row != kNoRow) {
          index.opened(b, tm.bank(b).open_row, qi);
        } else {
          index.closed(b);
        }
      }
      if (gone < q.size()) {
        index.erase(qi[gone].bank, gone);
        qi.erase(qi.begin() + static_cast<std::ptrdiff_t>(gone));
      }
      ASSERT_EQ(qi.size(), q.size());
      for (std::uint32_t b = 0; b < banks; ++b) {
        std::uint64_t want = 0;
        for (std::size_t i = 0; i < q.size(); ++i) want |= std::uint64_t{q[i].bank == b} << i;
        ASSERT_EQ(index.pos(b), want) << "trial " << trial << " bank " << b;
        std::uint64_t hit = 0;
        for (std::size_t i = 0; i < q.size(); ++i)
          hit |= std::uint64_t{q[i].bank == b && q[i].row == tm.bank(b).open_row} << i;
        ASSERT_EQ(index.hits(b), hit) << "trial " << trial << " bank " << b;
        ASSERT_EQ((index.queued() >> b) & 1, std::uint64_t{want != 0}) << "trial " << trial;
      }
      SchedView vi = v;
      vi.banks = &index;
      const SchedPick a = sched->pick_ahead(vi, from);
      const SchedPick p = sched->pick(v, from);
      // The banks it weighed (which requests arriving later cannot change the pick): those with a
      // visible request, not reserved by refresh, to the open row / a closed bank / another row.
      std::uint64_t hit_banks = 0, closed_banks = 0, conflict_banks = 0;
      for (std::size_t i = 0; i < v.visible; ++i) {
        const std::uint64_t bit = 1ULL << q[i].bank;
        if (v.blocked & bit) continue;
        const std::uint32_t open = tm.bank(q[i].bank).open_row;
        (open == q[i].row ? hit_banks : open == kNoRow ? closed_banks : conflict_banks) |= bit;
      }
      if (std::string_view(name) == "fcfs") hit_banks = closed_banks = conflict_banks = 0;  // unknown
      ASSERT_EQ(a.hit_banks, hit_banks) << name << " trial " << trial;
      ASSERT_EQ(a.closed_banks, closed_banks) << name << " trial " << trial;
      ASSERT_EQ(a.conflict_banks, conflict_banks) << name << " trial " << trial;
      ASSERT_EQ(a.next == kNeverD, p.next == kNeverD) << name << " trial " << trial;
      if (p.next == kNeverD) {
        ++none;
        continue;
      }
      // At or before `from` when something is ready now; otherwise the very edge it is ready.
      ASSERT_EQ(a.next <= from, p.next <= from) << name << " trial " << trial;
      if (p.next > from) {
        ASSERT_EQ(a.next, p.next) << name << " trial " << trial;
      }
      const SchedPick w = sched->pick(v, std::max(from, p.next));
      EXPECT_EQ(a.column, w.column) << name << " trial " << trial;
      EXPECT_EQ(a.row, w.row) << name << " trial " << trial;
      if (w.row >= 0) {
        EXPECT_EQ(a.row_cmd, w.row_cmd) << name << " trial " << trial;
      }
      EXPECT_TRUE(a.column >= 0 || a.row >= 0) << name << " trial " << trial;
      ++(p.next > from ? ahead : now);
    }
    // The draws cover all three cases.
    EXPECT_GT(ahead, 300) << name;
    EXPECT_GT(now, 300) << name;
    EXPECT_GT(none, 100) << name;
  }
}

}  // namespace
}  // namespace simfa::mem
