// "Last bits" slice hash (the paper's oversimplified variant, ablation simple-hash): the low
// ceil(log2 N) bits of the line index, folded into [0, N). Strided access concentrates on few slices.
#include <bit>

#include "mem/slice_hash.h"

namespace simfa::mem {
namespace {

class LastBitsHash final : public SliceHash {
 public:
  explicit LastBitsHash(std::uint32_t n) : n_(n), mask_(std::bit_ceil(std::uint64_t{n}) - 1) {}
  std::uint32_t slice(std::uint64_t line) const override {
    return static_cast<std::uint32_t>((line & mask_) % n_);
  }

 private:
  std::uint64_t n_, mask_;
};

}  // namespace

extern const SliceHashVariant last_bits_slice_hash;
constinit const SliceHashVariant last_bits_slice_hash{
    "last-bits", "the low bits of the line index (the paper's ablation simple-hash)",
    [](std::uint32_t slices) -> std::unique_ptr<SliceHash> { return std::make_unique<LastBitsHash>(slices); }};

}  // namespace simfa::mem
