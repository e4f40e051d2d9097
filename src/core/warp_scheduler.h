// The warp scheduler of an SM (`sm.scheduler`): each issue slot of a cycle, it picks the physical
// thread (WarpGroup) that issues next among the eligible ones (ready, not blocked, not yet picked
// this cycle). A variant concept: one file per policy (sched_gto.cpp, sched_lrr.cpp), listed in
// warp_scheduler.cpp (sim/variants.h says why the list is explicit).
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "sim/variants.h"

namespace simfa::core {

// What an SM shows its scheduler in one issue slot.
class IssueCandidates {
 public:
  IssueCandidates(std::span<const std::uint32_t> live, int last) : live(live), last(last) {}
  virtual ~IssueCandidates() = default;
  // True when thread `slot` may issue now.
  virtual bool eligible(std::uint32_t slot) const = 0;
  // Placement order of thread `slot`: lower is older.
  virtual std::uint64_t age(std::uint32_t slot) const = 0;
  // The oldest eligible live thread, or -1.
  int oldest_eligible() const {
    int chosen = -1;
    for (std::uint32_t s : live)
      if (eligible(s) && (chosen < 0 || age(s) < age(static_cast<std::uint32_t>(chosen)))) chosen = static_cast<int>(s);
    return chosen;
  }

  std::span<const std::uint32_t> live;  // slots of the SM's live threads, ascending
  int last;                             // the slot chosen last (-1 before the first choice)
};

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // The slot to issue from, or -1 when no live thread is eligible. Changes nothing: the SM
  // records the choice (it becomes `last` of the next call).
  virtual int select(const IssueCandidates& c) const = 0;
};

using WarpSchedulerVariant = Variant<std::unique_ptr<WarpScheduler> (*)()>;
// Every policy, for sm.scheduler.
const VariantList<std::unique_ptr<WarpScheduler> (*)()>& warp_schedulers();

}  // namespace simfa::core
