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

extern const ReplacementVariant random_replacement;
constinit const ReplacementVariant random_replacement{
    "random", "a uniformly drawn way of the set (seeded by mem.seed)",
    [](std::uint32_t, std::uint64_t seed, std::string_view stream) -> std::unique_ptr<ReplacementPolicy> {
      return std::make_unique<RandomRepl>(seed, stream);
    }};

}  // namespace simfa::mem
