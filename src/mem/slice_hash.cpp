// The list of slice hashes (mem.l2.hash): one line per variant file.
#include "mem/slice_hash.h"

namespace simfa::mem {

extern const SliceHashVariant xor_slice_hash;        // slice_hash_xor.cpp
extern const SliceHashVariant last_bits_slice_hash;  // slice_hash_last_bits.cpp

const VariantList<SliceHashMake>& slice_hashes() {
  static const VariantList<SliceHashMake> list("mem.l2.hash", "slice hash",
                                               {&xor_slice_hash, &last_bits_slice_hash});
  return list;
}

std::unique_ptr<SliceHash> make_slice_hash(std::string_view name, std::uint32_t slices) {
  return slice_hashes().get(name).make(slices);
}

}  // namespace simfa::mem
