// Slice hash factory: picks the variant by its configuration name.
#include "mem/slice_hash.h"

#include "sim/error.h"

namespace simfa::mem {

std::unique_ptr<SliceHash> make_slice_hash(std::string_view name, std::uint32_t slices) {
  if (name == "xor") return make_xor_hash(slices);
  if (name == "last-bits") return make_last_bits_hash(slices);
  user_error("mem.l2.hash = '{}': expected xor or last-bits", name);
}

}  // namespace simfa::mem
