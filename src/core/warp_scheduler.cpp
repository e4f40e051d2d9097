// The list of warp-scheduler policies (sm.scheduler): one line per variant file.
#include "core/warp_scheduler.h"

namespace simfa::core {

extern const WarpSchedulerVariant gto_scheduler;     // sched_gto.cpp
extern const WarpSchedulerVariant lrr_scheduler;     // sched_lrr.cpp
extern const WarpSchedulerVariant oldest_scheduler;  // sched_oldest.cpp

const VariantList<std::unique_ptr<WarpScheduler> (*)()>& warp_schedulers() {
  static const VariantList<std::unique_ptr<WarpScheduler> (*)()> list(
      "sm.scheduler", "warp scheduler", {&gto_scheduler, &lrr_scheduler, &oldest_scheduler});
  return list;
}

}  // namespace simfa::core
