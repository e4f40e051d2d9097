// TagArray: one block per set (see tag_array.h); a fill takes the first invalid way of the set,
// else the replacement policy's victim.
#include "mem/tag_array.h"

#include <bit>
#include <cstring>

#include "sim/error.h"

namespace simfa::mem {

TagArray::TagArray(std::uint32_t sets, std::uint32_t assoc, std::uint64_t set_divisor,
                   std::unique_ptr<ReplacementPolicy> repl)
    : sets_(sets),
      assoc_(assoc),
      divisor_(set_divisor ? set_divisor : 1),
      div_(divisor_),
      sets_div_(sets ? sets : 1),
      wbits_(assoc > 1 ? static_cast<std::uint32_t>(std::bit_width(assoc - 1)) : 0),
      wmask_((1u << wbits_) - 1),
      repl_(std::move(repl)),
      lru_(repl_->is_lru()) {
  SIMFA_ASSERT(sets > 0 && assoc > 0, "tag array", "{} sets of {} ways", sets, assoc);
  SIMFA_ASSERT(std::uint64_t{sets} << wbits_ < 0x80000000ULL, "tag array", "{} sets of {} ways",
               sets, assoc);
  // 4 + 4 + 1 + 1 + 1 bytes per way, rounded up to whole 64-byte lines.
  stride_ = (11 * assoc + 63) / 64 * 16;
  storage_.assign(std::size_t{sets} * stride_ + 16, 0);
  const auto addr = reinterpret_cast<std::uintptr_t>(storage_.data());
  base_ = storage_.data() + ((64 - addr % 64) % 64) / 4;
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (std::uint32_t w = 0; w < assoc_; ++w) block(s)[w] = kInvalid;
}

std::uint32_t TagArray::tag_overflow(std::uint64_t line) const {
  // Traces stay below kGlobalAddressLimit (the validator), which the presets' caches tag; a cache
  // configured with few sets cannot tag the top of that range. Bad input, not a broken invariant.
  throw UserError(fmt::format("cache line index {:#x} needs a tag wider than 32 bits in a cache of {} sets: "
                              "addresses this high need more sets (mem.l1.size / mem.l1.assoc, mem.l2.size / "
                              "mem.l2.slices / mem.l2.assoc)",
                              line, sets_));
}

std::uint64_t TagArray::line(std::int32_t idx) const {
  const std::uint64_t set = set_of(idx);
  const std::uint64_t t = block(set_of(idx))[way_of(idx)];
  const std::uint64_t td = div_.div(t);
  const std::uint64_t q = td * sets_ + set;
  return q * divisor_ + (t - td * divisor_);
}

void TagArray::halve_stamps() {
  for (std::uint32_t s = 0; s < sets_; ++s) {
    std::uint32_t* st = stamps(s);
    for (std::uint32_t w = 0; w < assoc_; ++w) st[w] >>= 1;
  }
  clock_ >>= 1;
}

std::int32_t TagArray::insert(std::uint64_t line, std::uint8_t valid, std::uint8_t dirty,
                              bool shadow, Victim& victim) {
  const std::uint64_t q = div_.div(line);
  const std::uint64_t qs = sets_div_.div(q);
  const auto set = static_cast<std::uint32_t>(q - qs * sets_);
  std::uint32_t* b = block(set);
  std::uint32_t way = first_way(b, kInvalid);  // the first invalid way, or assoc_
  victim = {};
  std::uint8_t* vb = valid_of(set);
  std::uint8_t* db = dirty_of(set);
  std::uint8_t* sb = shadow_of(set);
  if (way == assoc_) {
    if (lru_) {
      const std::uint32_t* st = stamps(set);
      way = 0;
      for (std::uint32_t i = 1; i < assoc_; ++i)
        if (st[i] < st[way]) way = i;
    } else {
      way = repl_->victim(set * assoc_, assoc_) - set * assoc_;
    }
    const auto vidx = static_cast<std::int32_t>(set << wbits_ | way);
    victim = {true, this->line(vidx), db[way], sb[way] != 0};
    --valid_lines_;
    if (sb[way]) --shadow_lines_;
  }
  b[way] = tag_of(line, q, qs);
  vb[way] = valid;
  db[way] = dirty;
  sb[way] = shadow;
  ++valid_lines_;
  if (shadow) ++shadow_lines_;
  const auto idx = static_cast<std::int32_t>(set << wbits_ | way);
  if (lru_)
    stamps(set)[way] = next_stamp();
  else
    repl_->inserted(set * assoc_ + way);
  return idx;
}

void TagArray::invalidate(std::int32_t idx) {
  const std::uint32_t s = set_of(idx), w = way_of(idx);
  if (block(s)[w] == kInvalid) return;
  block(s)[w] = kInvalid;
  valid_of(s)[w] = 0;
  dirty_of(s)[w] = 0;
  --valid_lines_;
  if (shadow_of(s)[w]) --shadow_lines_;
  shadow_of(s)[w] = 0;
}

void TagArray::set_shadow(std::int32_t idx, bool s) {
  std::uint8_t& f = shadow_of(set_of(idx))[way_of(idx)];
  if ((f != 0) == s) return;
  f = s;
  if (s)
    ++shadow_lines_;
  else
    --shadow_lines_;
}

}  // namespace simfa::mem
