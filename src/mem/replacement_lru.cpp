// LRU: each way keeps the value of a 32-bit counter bumped at every use; the victim is the
// smallest. When the counter would wrap, every stamp is halved (order kept, ties possible).
// TagArray implements the same policy inline (is_lru()); keep the two in step.
#include <vector>

#include "mem/replacement.h"

namespace simfa::mem {
namespace {

class Lru final : public ReplacementPolicy {
 public:
  explicit Lru(std::uint32_t entries) : stamp_(entries, 0) {}
  void touched(std::uint32_t idx) override { stamp_[idx] = next(); }
  void inserted(std::uint32_t idx) override { stamp_[idx] = next(); }
  std::uint32_t victim(std::uint32_t base, std::uint32_t assoc) override {
    std::uint32_t best = base;
    for (std::uint32_t i = base + 1; i < base + assoc; ++i)
      if (stamp_[i] < stamp_[best]) best = i;
    return best;
  }
  bool is_lru() const override { return true; }

 private:
  std::uint32_t next() {
    if (clock_ == 0xFFFFFFFFu) {
      for (auto& s : stamp_) s >>= 1;
      clock_ >>= 1;
    }
    return ++clock_;
  }
  std::vector<std::uint32_t> stamp_;
  std::uint32_t clock_ = 0;
};

}  // namespace

extern const ReplacementVariant lru_replacement;
constinit const ReplacementVariant lru_replacement{
    "lru", "least recently used",
    [](std::uint32_t entries, std::uint64_t, std::string_view) -> std::unique_ptr<ReplacementPolicy> {
      return std::make_unique<Lru>(entries);
    }};

}  // namespace simfa::mem
