// The list of DRAM command schedulers (dram.scheduler): one line per variant file.
#include "mem/dram/scheduler.h"

namespace simfa::mem {

extern const DramSchedulerVariant frfcfs_scheduler;  // sched_frfcfs.cpp
extern const DramSchedulerVariant fcfs_scheduler;    // sched_fcfs.cpp

const VariantList<DramSchedulerMake>& dram_schedulers() {
  static const VariantList<DramSchedulerMake> list("dram.scheduler", "DRAM scheduler",
                                                   {&frfcfs_scheduler, &fcfs_scheduler});
  return list;
}

std::unique_ptr<DramScheduler> make_dram_scheduler(std::string_view name) {
  return dram_schedulers().get(name).make();
}

}  // namespace simfa::mem
