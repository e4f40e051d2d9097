// Loose round robin: the first eligible thread after the one chosen last, in slot order, wrapping
// around.
#include <algorithm>

#include "core/warp_scheduler.h"

namespace simfa::core {
namespace {

class Lrr final : public WarpScheduler {
 public:
  int select(const IssueCandidates& c) const override {
    const std::size_t n = c.live.size();
    const auto start = static_cast<std::size_t>(
        std::upper_bound(c.live.begin(), c.live.end(), c.last,
                         [](int v, std::uint32_t e) { return v < static_cast<int>(e); }) -
        c.live.begin());
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t s = c.live[(start + i) % n];
      if (c.eligible(s)) return static_cast<int>(s);
    }
    return -1;
  }
};

}  // namespace

extern const WarpSchedulerVariant lrr_scheduler;
constinit const WarpSchedulerVariant lrr_scheduler{
    "lrr", "loose round robin (the first eligible thread after the last one chosen, in slot order)",
    []() -> std::unique_ptr<WarpScheduler> { return std::make_unique<Lrr>(); }};

}  // namespace simfa::core
