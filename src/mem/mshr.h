// Miss status holding registers of one L2 slice: a fixed pool of entries, each tracking one line
// being fetched from DRAM and the list of requests (transaction ids) waiting for it. A second miss
// to a line already in the table merges into its entry instead of taking a new one.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/types.h"

namespace simfa::mem {

inline constexpr std::uint32_t kNoTxn = 0xFFFFFFFFu;

struct MshrEntry {
  std::uint64_t line = 0;
  std::uint8_t fetch = 0;        // sectors requested from DRAM so far
  std::uint8_t write = 0;        // sectors written by merged writes (dirty on fill)
  std::uint16_t pending = 0;     // DRAM reads not yet returned
  std::uint32_t head = kNoTxn;   // waiting transactions, linked through Txn::next
  std::uint32_t tail = kNoTxn;
  std::uint32_t merged = 0;      // waiters beyond the first
};

class MshrTable {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  explicit MshrTable(std::uint32_t capacity);

  std::uint32_t find(std::uint64_t line) const;
  // Allocates an entry for `line` (not present); kNone when the pool is full.
  std::uint32_t allocate(std::uint64_t line);
  void release(std::uint32_t idx);
  MshrEntry& operator[](std::uint32_t idx) { return entries_[idx]; }
  const MshrEntry& operator[](std::uint32_t idx) const { return entries_[idx]; }

  bool full() const { return used_ == capacity_; }
  std::uint32_t used() const { return used_; }
  std::uint32_t capacity() const { return capacity_; }

 private:
  std::size_t bucket(std::uint64_t line) const {
    return static_cast<std::size_t>((line * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  std::uint32_t capacity_, used_ = 0;
  std::vector<MshrEntry> entries_;
  std::vector<std::uint32_t> free_;
  // Open addressing with linear probing, line -> entry index; kNone marks an empty bucket.
  std::vector<std::uint32_t> map_;
  int shift_;
};

}  // namespace simfa::mem
