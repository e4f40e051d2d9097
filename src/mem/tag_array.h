// A set-associative, sectored tag array: per way a tag, a valid-sector mask, a dirty-sector mask
// and a shadow flag (RemoteCopy lines). Purely functional: no time. The set of a line is
// (line / set_divisor) mod sets, so that a slice indexed behind a slice hash uses the bits the
// hash did not consume; the tag is the rest of the line index, 32 bits wide.
//
// Host layout (lookups are dominated by host cache misses): each set is one 64-byte-aligned block
// holding its tags (32-bit, so a 16-way set's tags are one 64-byte line), then the LRU stamps,
// then the valid, dirty and shadow bytes; a lookup prefetches the block's other lines while it
// scans the tags. With the "lru" policy the stamps live here (same policy as replacement_lru.cpp:
// one 32-bit counter per array bumped at every touch and insert, the victim is the smallest
// stamp, lowest way on ties, every stamp halved when the counter would wrap); other policies are
// called through ReplacementPolicy with flat indices set * assoc + way.
#pragma once
#include <bit>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mem/fast_div.h"
#include "mem/replacement.h"
#include "sim/prefetch.h"
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
  TagArray(TagArray&&) = default;
  TagArray& operator=(TagArray&&) = default;
  TagArray(const TagArray&) = delete;
  TagArray& operator=(const TagArray&) = delete;

  // Way index holding `line`, or kMiss. Does not update replacement state. Indices are opaque
  // handles for the accessors below.
  // (Inlined into every caller: a lookup is the slice's hot path.)
  [[gnu::always_inline]] std::int32_t find(std::uint64_t line) const {
    const std::uint64_t q = div_.div(line);
    const std::uint64_t qs = sets_div_.div(q);
    const auto set = static_cast<std::uint32_t>(q - qs * sets_);
    const std::uint32_t tag = tag_of(line, q, qs);
    const std::uint32_t* b = block(set);
    if (stride_ > 16) simfa::prefetch(b + 16);  // the rest of the set's block (see the layout above)
    if (stride_ > 32) simfa::prefetch(b + 32);
    const std::uint32_t way = first_way(b, tag);
    return way == assoc_ ? kMiss : static_cast<std::int32_t>(set << wbits_ | way);
  }
  // Host cache hint: the set of `line` will be looked up soon. Changes nothing.
  void prefetch(std::uint64_t line) const {
    const std::uint64_t q = div_.div(line);
    const auto set = static_cast<std::uint32_t>(sets_div_.mod(q));
    const std::uint32_t* b = block(set);
    simfa::prefetch(b);
    if (stride_ > 16) simfa::prefetch(b + 16);
    if (stride_ > 32) simfa::prefetch(b + 32);
  }
  void touch(std::int32_t idx) {
    if (lru_)
      stamps(set_of(idx))[way_of(idx)] = next_stamp();
    else
      repl_->touched(flat(idx));
  }
  // Inserts a line that is not present; returns its index and fills `victim` with what was evicted.
  std::int32_t insert(std::uint64_t line, std::uint8_t valid, std::uint8_t dirty, bool shadow,
                      Victim& victim);
  void invalidate(std::int32_t idx);

  std::uint8_t valid(std::int32_t idx) const { return valid_of(set_of(idx))[way_of(idx)]; }
  std::uint64_t line(std::int32_t idx) const;
  std::uint8_t dirty(std::int32_t idx) const { return dirty_of(set_of(idx))[way_of(idx)]; }
  bool shadow(std::int32_t idx) const { return shadow_of(set_of(idx))[way_of(idx)] != 0; }
  void add_sectors(std::int32_t idx, std::uint8_t valid, std::uint8_t dirty) {
    const std::uint32_t s = set_of(idx), w = way_of(idx);
    valid_of(s)[w] |= valid;
    dirty_of(s)[w] |= dirty;
  }
  // A shadow line that receives regular data (written or filled as home) becomes a regular line.
  void set_shadow(std::int32_t idx, bool s);

  std::uint32_t lines() const { return sets_ * assoc_; }
  std::uint32_t sets() const { return sets_; }
  // The set that holds `line` (the same in every slice of the same geometry).
  std::uint32_t set_index(std::uint64_t line) const { return static_cast<std::uint32_t>(sets_div_.mod(div_.div(line))); }
  // Host bytes an array of `sets` x `assoc` holds (the layout above), for estimates before building.
  static std::uint64_t host_bytes(std::uint64_t sets, std::uint64_t assoc) {
    return sets * ((11 * assoc + 63) / 64 * 64) + 64;
  }
  std::uint32_t valid_lines() const { return valid_lines_; }
  // Dirty sectors held by the valid lines of the sets `keep(set)` accepts (a scan: for statistics).
  template <typename F>
  std::uint64_t dirty_sectors(F&& keep) const {
    std::uint64_t n = 0;
    for (std::uint32_t s = 0; s < sets_; ++s) {
      if (!keep(s)) continue;
      const std::uint32_t* b = block(s);
      const std::uint8_t* d = dirty_of(s);
      for (std::uint32_t w = 0; w < assoc_; ++w)
        if (b[w] != kInvalid) n += static_cast<std::uint64_t>(std::popcount(unsigned{d[w]}));
    }
    return n;
  }
  std::uint32_t shadow_lines() const { return shadow_lines_; }

 private:
  static constexpr std::uint32_t kInvalid = 0xFFFFFFFFu;
  // The line index without its set bits: (q / sets) * divisor + line mod divisor, q = line / divisor.
  std::uint32_t tag_of(std::uint64_t line, std::uint64_t q, std::uint64_t qs) const {
    const std::uint64_t t = qs * divisor_ + (line - q * divisor_);
    return t < kInvalid ? static_cast<std::uint32_t>(t) : tag_overflow(line);
  }
  [[noreturn]] std::uint32_t tag_overflow(std::uint64_t line) const;

  // The first way of the set block `b` whose tag word is `key` (a line's tag, or kInvalid), or
  // assoc_ when none is.
  std::uint32_t first_way(const std::uint32_t* b, std::uint32_t key) const {
#if defined(__SSE2__)
    if (assoc_ == 16) {  // the presets' L2: all 16 tags at once, packed into one 16-bit mask
      const __m128i k = _mm_set1_epi32(static_cast<int>(key));
      const auto* v = reinterpret_cast<const __m128i*>(b);
      const __m128i lo = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v), k),
                                         _mm_cmpeq_epi32(_mm_load_si128(v + 1), k));
      const __m128i hi = _mm_packs_epi32(_mm_cmpeq_epi32(_mm_load_si128(v + 2), k),
                                         _mm_cmpeq_epi32(_mm_load_si128(v + 3), k));
      const auto hit = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(lo, hi)));
      return hit ? static_cast<std::uint32_t>(std::countr_zero(hit)) : assoc_;
    }
    if (assoc_ <= 64) {  // branch-free compare, 4 ways at a time
      const __m128i k = _mm_set1_epi32(static_cast<int>(key));
      std::uint64_t hit = 0;
      std::uint32_t i = 0;
      for (; i + 4 <= assoc_; i += 4) {
        const __m128i v = _mm_load_si128(reinterpret_cast<const __m128i*>(b + i));
        hit |= std::uint64_t(unsigned(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, k))))) << i;
      }
      for (; i < assoc_; ++i) hit |= std::uint64_t{b[i] == key} << i;
      return hit ? static_cast<std::uint32_t>(std::countr_zero(hit)) : assoc_;
    }
#endif
    for (std::uint32_t i = 0; i < assoc_; ++i)
      if (b[i] == key) return i;
    return assoc_;
  }
  std::uint32_t set_of(std::int32_t idx) const { return static_cast<std::uint32_t>(idx) >> wbits_; }
  std::uint32_t way_of(std::int32_t idx) const { return static_cast<std::uint32_t>(idx) & wmask_; }
  std::uint32_t flat(std::int32_t idx) const { return set_of(idx) * assoc_ + way_of(idx); }
  // Block of a set: tags [0, assoc), stamps [assoc, 2 assoc) as words; then bytes valid, dirty,
  // shadow, assoc each.
  std::uint32_t* block(std::uint32_t set) { return base_ + std::size_t{set} * stride_; }
  const std::uint32_t* block(std::uint32_t set) const { return base_ + std::size_t{set} * stride_; }
  std::uint32_t* stamps(std::uint32_t set) { return block(set) + assoc_; }
  std::uint8_t* valid_of(std::uint32_t set) { return reinterpret_cast<std::uint8_t*>(block(set) + 2 * assoc_); }
  const std::uint8_t* valid_of(std::uint32_t set) const {
    return reinterpret_cast<const std::uint8_t*>(block(set) + 2 * assoc_);
  }
  std::uint8_t* dirty_of(std::uint32_t set) { return valid_of(set) + assoc_; }
  const std::uint8_t* dirty_of(std::uint32_t set) const { return valid_of(set) + assoc_; }
  std::uint8_t* shadow_of(std::uint32_t set) { return valid_of(set) + 2 * assoc_; }
  const std::uint8_t* shadow_of(std::uint32_t set) const { return valid_of(set) + 2 * assoc_; }
  std::uint32_t next_stamp() {
    if (clock_ == 0xFFFFFFFFu) halve_stamps();
    return ++clock_;
  }
  void halve_stamps();

  std::uint32_t sets_, assoc_;
  std::uint64_t divisor_;
  FastDiv div_, sets_div_;
  std::uint32_t wbits_, wmask_;
  std::uint32_t stride_;  // words per set block (a multiple of 16)
  std::vector<std::uint32_t> storage_;
  std::uint32_t* base_ = nullptr;  // 64-byte aligned, inside storage_
  std::unique_ptr<ReplacementPolicy> repl_;
  bool lru_;
  std::uint32_t clock_ = 0;
  std::uint32_t valid_lines_ = 0, shadow_lines_ = 0;
};

}  // namespace simfa::mem
