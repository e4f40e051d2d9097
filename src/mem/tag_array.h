// A set-associative, sectored tag array: per way a tag, a valid-sector mask, a dirty-sector mask
// and a shadow flag (RemoteCopy lines). Purely functional: no time. The set of a line is
// (line / set_divisor) mod sets, so that a slice indexed behind a slice hash uses the bits the
// hash did not consume; the tag is the rest of the line index, 32 bits wide so that a 16-way set
// scans one 64-byte host cache line (lookups are dominated by host cache misses).
#pragma once
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "mem/replacement.h"
#include "sim/types.h"

namespace simfa::mem {

class TagArray {
 public:
  static constexpr std::int32_t kMiss = -1;
  struct Victim {
    bool valid = false;
    std::uint64_t line = 0;
    std::uint8_t dirty = 0;
    bool shadow = false;
  };

  TagArray(std::uint32_t sets, std::uint32_t assoc, std::uint64_t set_divisor,
           std::unique_ptr<ReplacementPolicy> repl);

  // Way index holding `line`, or kMiss. Does not update replacement state.
  std::int32_t find(std::uint64_t line) const {
    const std::uint64_t q = line / divisor_;
    const std::uint32_t base = static_cast<std::uint32_t>(q % sets_) * assoc_;
    const std::uint32_t tag = tag_of(line, q);
    for (std::uint32_t i = base; i < base + assoc_; ++i)
      if (tags_[i] == tag) return static_cast<std::int32_t>(i);
    return kMiss;
  }
  void touch(std::int32_t idx) { repl_->touched(static_cast<std::uint32_t>(idx)); }
  // Inserts a line that is not present; returns its index and fills `victim` with what was evicted.
  std::int32_t insert(std::uint64_t line, std::uint8_t valid, std::uint8_t dirty, bool shadow,
                      Victim& victim);
  void invalidate(std::int32_t idx);

  std::uint8_t valid(std::int32_t idx) const { return valid_[idx]; }
  std::uint64_t line(std::int32_t idx) const;
  std::uint8_t dirty(std::int32_t idx) const { return dirty_[idx]; }
  bool shadow(std::int32_t idx) const { return shadow_[idx] != 0; }
  void add_sectors(std::int32_t idx, std::uint8_t valid, std::uint8_t dirty) {
    valid_[idx] |= valid;
    dirty_[idx] |= dirty;
  }
  void clear_dirty(std::int32_t idx) { dirty_[idx] = 0; }
  // A shadow line that receives regular data (written or filled as home) becomes a regular line.
  void set_shadow(std::int32_t idx, bool s);

  std::uint32_t lines() const { return static_cast<std::uint32_t>(tags_.size()); }
  std::uint32_t valid_lines() const { return valid_lines_; }
  std::uint32_t shadow_lines() const { return shadow_lines_; }

 private:
  static constexpr std::uint32_t kInvalid = 0xFFFFFFFFu;
  // The line index without its set bits: (q / sets) * divisor + line mod divisor, q = line / divisor.
  std::uint32_t tag_of(std::uint64_t line, std::uint64_t q) const {
    const std::uint64_t t = (q / sets_) * divisor_ + (line - q * divisor_);
    return t < kInvalid ? static_cast<std::uint32_t>(t) : tag_overflow(line);
  }
  [[noreturn]] std::uint32_t tag_overflow(std::uint64_t line) const;
  std::uint32_t sets_, assoc_;
  std::uint64_t divisor_;
  std::vector<std::uint32_t> tags_;
  std::vector<std::uint8_t> valid_, dirty_, shadow_;
  std::unique_ptr<ReplacementPolicy> repl_;
  std::uint32_t valid_lines_ = 0, shadow_lines_ = 0;
};

}  // namespace simfa::mem
