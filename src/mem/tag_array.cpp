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
      tags_(std::size_t{sets} * assoc, kInvalid),
      valid_(tags_.size(), 0),
      dirty_(tags_.size(), 0),
      shadow_(tags_.size(), 0),
      repl_(std::move(repl)) {
  SIMFA_ASSERT(sets > 0 && assoc > 0, "tag array", "{} sets of {} ways", sets, assoc);
}

std::uint32_t TagArray::tag_overflow(std::uint64_t line) const {
  SIMFA_ASSERT(false, "tag array", "line index {:#x} beyond the 32-bit tag range", line);
  __builtin_unreachable();
}

std::uint64_t TagArray::line(std::int32_t idx) const {
  const std::uint64_t set = static_cast<std::uint32_t>(idx) / assoc_;
  const std::uint64_t t = tags_[idx];
  const std::uint64_t q = (t / divisor_) * sets_ + set;
  return q * divisor_ + t % divisor_;
}

std::int32_t TagArray::insert(std::uint64_t line, std::uint8_t valid, std::uint8_t dirty,
                              bool shadow, Victim& victim) {
  const std::uint64_t q = line / divisor_;
  const std::uint32_t base = static_cast<std::uint32_t>(q % sets_) * assoc_;
  std::uint32_t idx = base + assoc_;
  for (std::uint32_t i = base; i < base + assoc_; ++i)
    if (tags_[i] == kInvalid) {
      idx = i;
      break;
    }
  victim = {};
  if (idx == base + assoc_) {
    idx = repl_->victim(base, assoc_);
    victim = {true, this->line(static_cast<std::int32_t>(idx)), dirty_[idx], shadow_[idx] != 0};
    --valid_lines_;
    if (shadow_[idx]) --shadow_lines_;
  }
  tags_[idx] = tag_of(line, q);
  valid_[idx] = valid;
  dirty_[idx] = dirty;
  shadow_[idx] = shadow;
  ++valid_lines_;
  if (shadow) ++shadow_lines_;
  repl_->inserted(idx);
  return static_cast<std::int32_t>(idx);
}

void TagArray::invalidate(std::int32_t idx) {
  if (tags_[idx] == kInvalid) return;
  tags_[idx] = kInvalid;
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
