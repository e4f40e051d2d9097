// XOR slice hash of §5.4: slice = (line ^ (line >> 5)) mod N. Folding bits 5.. onto the low bits
// spreads power-of-two strides (FA3's 2 KiB rows) over all slices.
#include "mem/fast_div.h"
#include "mem/slice_hash.h"

namespace simfa::mem {
namespace {

class XorHash final : public SliceHash {
 public:
  explicit XorHash(std::uint32_t n) : n_(n) {}
  // Once per line request: the modulo without a hardware divide (FastDiv is exact).
  std::uint32_t slice(std::uint64_t line) const override {
    return static_cast<std::uint32_t>(n_.mod(line ^ (line >> 5)));
  }

 private:
  FastDiv n_;
};

}  // namespace

extern const SliceHashVariant xor_slice_hash;
constinit const SliceHashVariant xor_slice_hash{
    "xor", "(line ^ (line >> 5)) mod N (§5.4)",
    [](std::uint32_t slices) -> std::unique_ptr<SliceHash> { return std::make_unique<XorHash>(slices); }};

}  // namespace simfa::mem
