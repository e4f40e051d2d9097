// Replacement policy factory: picks the variant by its configuration name.
#include "mem/replacement.h"

#include "sim/error.h"

namespace simfa::mem {

std::unique_ptr<ReplacementPolicy> make_replacement(std::string_view name, std::uint32_t entries,
                                                    std::uint64_t seed, std::string_view stream) {
  if (name == "lru") return make_lru(entries);
  if (name == "random") return make_random_replacement(seed, stream);
  user_error("replacement policy '{}': expected lru or random", name);
}

}  // namespace simfa::mem
