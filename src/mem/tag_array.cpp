// TagArray: flat per-way arrays; a fill takes the first invalid way of the set, else asks the
// replacement policy for a victim.
#include "mem/tag_array.h"

#include "sim/error.h"

namespace simfa::mem {

TagArray::TagArray(std::uint32_t sets, std::uint32_t assoc, std::uint64_t set_divisor,
                   std::unique_ptr<ReplacementPolicy> repl)
    : sets_(sets),
      assoc_(assoc),
      divisor_(set_divisor ? set_divisor : 1),
      tags_(std::size_t{sets} * assoc, 0),
      valid_(tags_.size(), 0),
      dirty_(tags_.size(), 0),
      shadow_(tags_.size(), 0),
      repl_(std::move(repl)) {
  SIMFA_ASSERT(sets > 0 && assoc > 0, "tag array", "{} sets of {} ways", sets, assoc);
}

std::int32_t TagArray::insert(std::uint64_t line, std::uint8_t valid, std::uint8_t dirty,
                              bool shadow, Victim& victim) {
  const std::uint32_t base = set_of(line) * assoc_;
  std::uint32_t idx = base + assoc_;
  for (std::uint32_t i = base; i < base + assoc_; ++i)
    if (!valid_[i]) {
      idx = i;
      break;
    }
  victim = {};
  if (idx == base + assoc_) {
    idx = repl_->victim(base, assoc_);
    victim = {true, tags_[idx], dirty_[idx], shadow_[idx] != 0};
    --valid_lines_;
    if (shadow_[idx]) --shadow_lines_;
  }
  tags_[idx] = line;
  valid_[idx] = valid;
  dirty_[idx] = dirty;
  shadow_[idx] = shadow;
  ++valid_lines_;
  if (shadow) ++shadow_lines_;
  repl_->inserted(idx);
  return static_cast<std::int32_t>(idx);
}

void TagArray::invalidate(std::int32_t idx) {
  if (!valid_[idx]) return;
  valid_[idx] = 0;
  dirty_[idx] = 0;
  --valid_lines_;
  if (shadow_[idx]) --shadow_lines_;
  shadow_[idx] = 0;
}

void TagArray::set_shadow(std::int32_t idx, bool s) {
  if ((shadow_[idx] != 0) == s) return;
  shadow_[idx] = s;
  if (s)
    ++shadow_lines_;
  else
    --shadow_lines_;
}

}  // namespace simfa::mem
