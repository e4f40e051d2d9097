// The scheduler contract the channel relies on to skip a second look at the queue:
// pick_ahead(v, at) names what pick(v, max(at, next)) names, for every policy, on random queues
// and bank states (open rows, timing left by random commands, refresh reservations, the row-hit
// cap). The channel-level equivalence (skip-idle against reference mode, which never uses
// pick_ahead) is DramSystem.SkipIdleAndReferenceModeAreIdentical.
#include <gtest/gtest.h>

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
      const SchedPick a = sched->pick_ahead(v, from);
      const SchedPick p = sched->pick(v, from);
      ASSERT_EQ(a.next == kNeverD, p.next == kNeverD) << name << " trial " << trial;
      if (p.next == kNeverD) {
        ++none;
        continue;
      }
      // At or before `from` when something is ready now; otherwise the very edge it is ready.
      ASSERT_EQ(a.next <= from, p.next <= from) << name << " trial " << trial;
      if (p.next > from) ASSERT_EQ(a.next, p.next) << name << " trial " << trial;
      const SchedPick w = sched->pick(v, std::max(from, p.next));
      EXPECT_EQ(a.column, w.column) << name << " trial " << trial;
      EXPECT_EQ(a.row, w.row) << name << " trial " << trial;
      if (w.row >= 0) EXPECT_EQ(a.row_cmd, w.row_cmd) << name << " trial " << trial;
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
