// Maps a cache line to its home L2 slice. Variants: "xor" (§5.4: (line ^ (line >> 5)) mod N) and
// "last-bits" (the low bits of the line index, the paper's naive hash kept for the ablation).
// `line` is the line index (byte address / line size). Any slice count works.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

namespace simfa::mem {

class SliceHash {
 public:
  virtual ~SliceHash() = default;
  virtual std::uint32_t slice(std::uint64_t line) const = 0;
};

// Throws UserError for an unknown name (mem.l2.hash).
std::unique_ptr<SliceHash> make_slice_hash(std::string_view name, std::uint32_t slices);

std::unique_ptr<SliceHash> make_xor_hash(std::uint32_t slices);
std::unique_ptr<SliceHash> make_last_bits_hash(std::uint32_t slices);

}  // namespace simfa::mem
