// Random replacement: the victim is a uniformly drawn way of the set (deterministic stream).
#include "mem/replacement.h"
#include "sim/rng.h"

namespace simfa::mem {
namespace {

class RandomRepl final : public ReplacementPolicy {
 public:
  RandomRepl(std::uint64_t seed, std::string_view stream) : rng_(seed, stream) {}
  void touched(std::uint32_t) override {}
  void inserted(std::uint32_t) override {}
  std::uint32_t victim(std::uint32_t base, std::uint32_t assoc) override {
    return base + static_cast<std::uint32_t>(rng_.below(assoc));
  }

 private:
  Rng rng_;
};

}  // namespace

std::unique_ptr<ReplacementPolicy> make_random_replacement(std::uint64_t seed,
                                                           std::string_view stream) {
  return std::make_unique<RandomRepl>(seed, stream);
}

}  // namespace simfa::mem
