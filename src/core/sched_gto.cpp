// Greedy-then-oldest (paper §4.2): keep issuing from the thread chosen last while it is eligible,
// otherwise pick the oldest eligible thread.
#include "core/warp_scheduler.h"

namespace simfa::core {
namespace {

class Gto final : public WarpScheduler {
 public:
  int select(const IssueCandidates& c) const override {
    if (c.last >= 0 && c.eligible(static_cast<std::uint32_t>(c.last))) return c.last;
    return c.oldest_eligible();
  }
};

}  // namespace

extern const WarpSchedulerVariant gto_scheduler;
constinit const WarpSchedulerVariant gto_scheduler{
    "gto", "greedy-then-oldest (the last thread while it can issue, else the oldest eligible one)",
    []() -> std::unique_ptr<WarpScheduler> { return std::make_unique<Gto>(); }};

}  // namespace simfa::core
