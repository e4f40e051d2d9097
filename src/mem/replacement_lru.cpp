// LRU: each way keeps the value of a counter bumped at every use; the victim is the smallest.
#include <vector>

#include "mem/replacement.h"

namespace simfa::mem {
namespace {

class Lru final : public ReplacementPolicy {
 public:
  explicit Lru(std::uint32_t entries) : stamp_(entries, 0) {}
  void touched(std::uint32_t idx) override { stamp_[idx] = ++clock_; }
  void inserted(std::uint32_t idx) override { stamp_[idx] = ++clock_; }
  std::uint32_t victim(std::uint32_t base, std::uint32_t assoc) override {
    std::uint32_t best = base;
    for (std::uint32_t i = base + 1; i < base + assoc; ++i)
      if (stamp_[i] < stamp_[best]) best = i;
    return best;
  }

 private:
  std::vector<std::uint64_t> stamp_;
  std::uint64_t clock_ = 0;
};

}  // namespace

std::unique_ptr<ReplacementPolicy> make_lru(std::uint32_t entries) {
  return std::make_unique<Lru>(entries);
}

}  // namespace simfa::mem
