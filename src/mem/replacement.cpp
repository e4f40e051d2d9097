// The list of replacement policies (mem.l1.replacement, mem.l2.replacement): one line per variant file.
#include "mem/replacement.h"

namespace simfa::mem {

extern const ReplacementVariant lru_replacement;     // replacement_lru.cpp
extern const ReplacementVariant random_replacement;  // replacement_random.cpp

const VariantList<ReplacementMake>& replacement_policies() {
  static const VariantList<ReplacementMake> list("mem.l1.replacement, mem.l2.replacement", "replacement policy",
                                                 {&lru_replacement, &random_replacement});
  return list;
}

std::unique_ptr<ReplacementPolicy> make_replacement(std::string_view name, std::uint32_t entries,
                                                    std::uint64_t seed, std::string_view stream) {
  return replacement_policies().get(name).make(entries, seed, stream);
}

}  // namespace simfa::mem
