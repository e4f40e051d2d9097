// Chooses the scheduler variant by name.
#include "mem/dram/scheduler.h"

#include "sim/error.h"

namespace simfa::mem {

std::unique_ptr<DramScheduler> make_frfcfs_scheduler();
std::unique_ptr<DramScheduler> make_fcfs_scheduler();

std::unique_ptr<DramScheduler> make_dram_scheduler(const std::string& name) {
  if (name == "frfcfs") return make_frfcfs_scheduler();
  if (name == "fcfs") return make_fcfs_scheduler();
  user_error("dram.scheduler = '{}': expected frfcfs or fcfs", name);
}

}  // namespace simfa::mem
