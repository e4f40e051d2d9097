// Replacement policy of a set-associative tag array (mem.l1.replacement, mem.l2.replacement). A
// variant concept: one file per policy (replacement_*.cpp), listed in replacement.cpp.
// The array calls touched() on a hit, inserted() after a fill and victim() only when every way of
// the set is valid; `base` is the index of way 0 of the set, ways are base .. base + assoc - 1.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

#include "sim/variants.h"

namespace simfa::mem {

class ReplacementPolicy {
 public:
  virtual ~ReplacementPolicy() = default;
  virtual void touched(std::uint32_t idx) = 0;
  virtual void inserted(std::uint32_t idx) = 0;
  virtual std::uint32_t victim(std::uint32_t base, std::uint32_t assoc) = 0;
  // True for "lru": a TagArray then keeps the same stamps itself, next to the set's tags (see
  // tag_array.h), and does not call this object.
  virtual bool is_lru() const { return false; }
};

// `entries` = sets * assoc; `seed` and `stream` name the random stream (policies that draw).
using ReplacementMake = std::unique_ptr<ReplacementPolicy> (*)(std::uint32_t entries, std::uint64_t seed,
                                                               std::string_view stream);
using ReplacementVariant = Variant<ReplacementMake>;
// Every policy, for mem.l1.replacement and mem.l2.replacement.
const VariantList<ReplacementMake>& replacement_policies();

// The policy called `name`; UserError listing the choices for an unknown name.
std::unique_ptr<ReplacementPolicy> make_replacement(std::string_view name, std::uint32_t entries,
                                                    std::uint64_t seed, std::string_view stream);

}  // namespace simfa::mem
