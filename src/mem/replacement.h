// Replacement policy of a set-associative tag array. Variants: "lru" and "random" (seeded stream).
// The array calls touched() on a hit, inserted() after a fill and victim() only when every way of
// the set is valid; `base` is the index of way 0 of the set, ways are base .. base + assoc - 1.
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>

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

// `entries` = sets * assoc; `stream` names the random stream (random policy only).
std::unique_ptr<ReplacementPolicy> make_replacement(std::string_view name, std::uint32_t entries,
                                                    std::uint64_t seed, std::string_view stream);
std::unique_ptr<ReplacementPolicy> make_lru(std::uint32_t entries);
std::unique_ptr<ReplacementPolicy> make_random_replacement(std::uint64_t seed,
                                                           std::string_view stream);

}  // namespace simfa::mem
