// MshrTable: entries in a flat pool with a free list; lookup by line through an open-addressing
// table (linear probing, backward-shift deletion) sized to stay at most a quarter full.
#include "mem/mshr.h"

#include <bit>

#include "sim/error.h"

namespace simfa::mem {

MshrTable::MshrTable(std::uint32_t capacity)
    : capacity_(capacity), entries_(capacity) {
  SIMFA_ASSERT(capacity > 0 && capacity < 0xFFFF, "mshr", "capacity {}", capacity);
  const std::size_t buckets = std::bit_ceil(std::size_t{capacity} * 4);
  map_.assign(buckets, kNone);
  shift_ = 64 - std::countr_zero(buckets);
  free_.reserve(capacity);
  for (std::uint32_t i = capacity; i-- > 0;) free_.push_back(i);
}

std::uint32_t MshrTable::find(std::uint64_t line) const {
  const std::size_t mask = map_.size() - 1;
  for (std::size_t b = bucket(line);; b = (b + 1) & mask) {
    const std::uint32_t e = map_[b];
    if (e == kNone) return kNone;
    if (entries_[e].line == line) return e;
  }
}

std::uint32_t MshrTable::allocate(std::uint64_t line) {
  if (free_.empty()) return kNone;
  const std::uint32_t e = free_.back();
  free_.pop_back();
  entries_[e] = MshrEntry{};
  entries_[e].line = line;
  const std::size_t mask = map_.size() - 1;
  std::size_t b = bucket(line);
  while (map_[b] != kNone) b = (b + 1) & mask;
  map_[b] = e;
  ++used_;
  return e;
}

void MshrTable::release(std::uint32_t idx) {
  const std::size_t mask = map_.size() - 1;
  std::size_t b = bucket(entries_[idx].line);
  while (map_[b] != idx) {
    SIMFA_ASSERT(map_[b] != kNone, "mshr", "releasing entry {} not in the map", idx);
    b = (b + 1) & mask;
  }
  // Backward-shift deletion keeps every probe chain unbroken.
  std::size_t hole = b;
  for (std::size_t j = (hole + 1) & mask; map_[j] != kNone; j = (j + 1) & mask) {
    const std::size_t home = bucket(entries_[map_[j]].line);
    const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      map_[hole] = map_[j];
      hole = j;
    }
  }
  map_[hole] = kNone;
  free_.push_back(idx);
  --used_;
}

}  // namespace simfa::mem
