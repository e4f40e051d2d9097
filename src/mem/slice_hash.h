// Maps a cache line to its home L2 slice (mem.l2.hash). A variant concept: one file per hash
// (slice_hash_*.cpp), listed in slice_hash.cpp (sim/variants.h says why the list is explicit).
// `line` is the line index (byte address / line size). Any slice count works.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

#include "sim/variants.h"

namespace simfa::mem {

class SliceHash {
 public:
  virtual ~SliceHash() = default;
  virtual std::uint32_t slice(std::uint64_t line) const = 0;
};

using SliceHashMake = std::unique_ptr<SliceHash> (*)(std::uint32_t slices);
using SliceHashVariant = Variant<SliceHashMake>;
// Every slice hash, for mem.l2.hash.
const VariantList<SliceHashMake>& slice_hashes();

// The hash called `name` over `slices` slices; UserError listing the choices for an unknown name.
std::unique_ptr<SliceHash> make_slice_hash(std::string_view name, std::uint32_t slices);

}  // namespace simfa::mem
