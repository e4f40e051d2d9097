// Oldest first: every issue slot goes to the oldest eligible thread (greedy-then-oldest without
// the greedy step, as GPGPU-Sim's oldest-first scheduler). A thread that stalls briefly gets the
// SM back as soon as it can issue again, instead of waiting for the younger thread to stall.
#include "core/warp_scheduler.h"

namespace simfa::core {
namespace {

class OldestFirst final : public WarpScheduler {
 public:
  int select(const IssueCandidates& c) const override { return c.oldest_eligible(); }
};

}  // namespace

extern const WarpSchedulerVariant oldest_scheduler;
constinit const WarpSchedulerVariant oldest_scheduler{
    "oldest", "oldest first (the oldest eligible thread, every issue slot)",
    []() -> std::unique_ptr<WarpScheduler> { return std::make_unique<OldestFirst>(); }};

}  // namespace simfa::core
