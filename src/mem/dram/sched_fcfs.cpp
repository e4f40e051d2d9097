// FCFS: only the oldest visible request is served; its next command (PRE, ACT or a column command)
// issues when timing allows. The baseline FR-FCFS is measured against.
#include "mem/dram/scheduler.h"

namespace simfa::mem {
namespace {

class FcfsScheduler final : public DramScheduler {
 public:
  SchedPick pick(const SchedView& v, DCycle at) const override {
    SchedPick p;
    if (v.visible == 0) return p;
    const DramEntry& e = v.queue[0];
    if (v.blocked & (1ULL << e.bank)) return p;
    const BankState& b = v.timing.bank(e.bank);
    const Cmd c = b.open_row == e.row    ? (v.writes ? Cmd::Wr : Cmd::Rd)
                  : b.open_row == kNoRow ? Cmd::Act
                                         : Cmd::Pre;
    p.next = v.timing.earliest(c, e.bank);
    if (p.next <= at) {
      if (is_column(c)) {
        p.column = 0;
      } else {
        p.row = 0;
        p.row_cmd = c;
      }
    }
    return p;
  }
};

}  // namespace

extern const DramSchedulerVariant fcfs_scheduler;
constinit const DramSchedulerVariant fcfs_scheduler{
    "fcfs", "only the oldest request is served (the baseline FR-FCFS is measured against)",
    []() -> std::unique_ptr<DramScheduler> { return std::make_unique<FcfsScheduler>(); }};

}  // namespace simfa::mem
