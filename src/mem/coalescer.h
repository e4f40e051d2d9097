// L2 Request Coalescer (LRC), one per SM pair (TPC): a read for a line that the pair already has
// in flight toward the L2, issued at most `window` cycles after it and needing no other sectors,
// is merged into that request instead of being sent; the one response is then delivered to every
// merged requester. Writes are never merged. Functional bookkeeping only (no time of its own).
#pragma once
#include <cstdint>
#include <vector>

#include "mem/hierarchy_params.h"
#include "mem/txn.h"

namespace simfa::mem {

class Coalescer {
 public:
  Coalescer(const LrcParams& p, int num_sms);

  // Where match() ended its search of the table: the slot of the request's (pair, line) key, or
  // the empty slot that ended the search. Valid for track() until the table changes.
  struct Probe {
    std::size_t bucket = 0;
    std::uint32_t fp = 0;
    bool found = false;  // bucket holds the key (a transaction the request could not merge into)
    bool valid = false;
  };
  // The in-flight transaction that `r` (a read) can merge into, or kNoTxn.
  std::uint32_t match(const MemReq& r, std::uint64_t line, std::uint8_t sectors, Cycle now,
                      const TxnPool& txns, Probe& probe) const;
  // Records `r` as merged into transaction `t`.
  void merge(std::uint32_t t, const MemReq& r, TxnPool& txns);
  // Registers a transaction just sent (a read of line index `line` from SM `sm`) so that later
  // requests can merge into it (when the pair's table has room). `probe`: match()'s for this
  // request (saves a second search), or invalid.
  void track(std::uint32_t t, std::uint64_t line, std::uint16_t sm, const TxnPool& txns, const Probe& probe);
  // Transaction `t` (line index `line`, from SM `sm`; `read`: a read, which may be in the table)
  // completed: forgets it; calls `deliver(const MemReq&)` for each merged request. Reads no Txn.
  template <typename F>
  void complete(std::uint32_t t, std::uint64_t line, std::uint16_t sm, bool read, F&& deliver) {
    if (!p_.enabled || !read) return;
    if (used_ != 0) untrack(t, line, sm / 2u);
    if (merged_lists_ == 0 || t >= merged_.size() || merged_[t] == kNoTxn) return;
    for (std::uint32_t w = merged_[t]; w != kNoTxn;) {
      const std::uint32_t next = waiters_[w].next;
      deliver(waiters_[w].req);
      waiters_[w].next = free_;
      free_ = w;
      w = next;
    }
    merged_[t] = kNoTxn;
    --merged_lists_;
  }
  bool enabled() const { return p_.enabled; }
  std::uint64_t merges() const { return merges_; }
  const std::uint64_t* merges_counter() const { return &merges_; }

 private:
  struct Waiter {
    MemReq req;
    std::uint32_t next = kNoTxn;
  };
  // 64-bit hash of (pair, line); its top bits are both the home bucket and the slot's fingerprint.
  static std::uint64_t hash(std::uint32_t pair, std::uint64_t line) {
    return (line * 0x9E3779B97F4A7C15ULL) ^ (pair * 0xC2B2AE3D27D4EB4FULL);
  }
  std::size_t home(std::uint32_t fp) const { return fp >> fp_shift_; }
  // Removes t from the table if it is there (it is exactly when it was tracked and has not been
  // replaced by a newer transaction for its key).
  void untrack(std::uint32_t t, std::uint64_t line, std::uint32_t pair);
  // Per transaction id: head of its list of merged requests (kNoTxn: none); grown on first merge.
  std::vector<std::uint32_t> merged_;
  std::size_t merged_lists_ = 0;  // transactions with a non-empty list

  LrcParams p_;
  std::vector<std::uint32_t> per_pair_;  // tracked transactions per pair
  // Open addressing (linear probing) from (pair, line) to transaction; txn kNoTxn = empty. A slot
  // keeps the top 32 bits of the key's hash (8-byte slots: the table stays small in the host
  // cache); a fingerprint match is confirmed against the transaction's own line and SM pair, and
  // deletion recomputes home buckets from fingerprints alone.
  struct Slot {
    std::uint32_t fp = 0;
    std::uint32_t txn = kNoTxn;
  };
  std::vector<Slot> map_;
  std::size_t used_ = 0;
  int fp_shift_ = 0;  // home bucket = fp >> fp_shift_
  std::vector<Waiter> waiters_;
  std::uint32_t free_ = kNoTxn;
  std::uint64_t merges_ = 0;
};

// match(), track() and untrack() run once per line request: inline.
inline std::uint32_t Coalescer::match(const MemReq& r, std::uint64_t line, std::uint8_t sectors,
                                      Cycle now, const TxnPool& txns, Probe& probe) const {
  probe.valid = false;
  if (!p_.enabled) return kNoTxn;
  const std::uint32_t pair = r.sm / 2u;
  const auto fp = static_cast<std::uint32_t>(hash(pair, line) >> 32);
  const std::size_t mask = map_.size() - 1;
  probe.fp = fp;
  probe.valid = true;
  for (std::size_t b = home(fp);; b = (b + 1) & mask) {
    const Slot& sl = map_[b];
    probe.bucket = b;
    if (sl.txn == kNoTxn) {
      probe.found = false;
      return kNoTxn;
    }
    if (sl.fp != fp) continue;
    const Txn& x = txns[sl.txn];
    if (x.line == line && x.req.sm / 2u == pair) {
      probe.found = true;
      if ((sectors & ~x.sectors) != 0 || now - x.accepted > p_.window) return kNoTxn;
      return sl.txn;
    }
  }
}

inline void Coalescer::track(std::uint32_t t, std::uint64_t line, std::uint16_t sm,
                             const TxnPool& txns, const Probe& probe) {
  const std::uint32_t pair = sm / 2u;
  if (!p_.enabled || per_pair_[pair] >= p_.entries) return;
  std::size_t b;
  std::uint32_t fp;
  if (probe.valid) {  // the search match() did, which would find the same slot
    b = probe.bucket;
    fp = probe.fp;
    if (probe.found) {  // replace an older, unmergeable entry
      --per_pair_[pair];
      --used_;
    }
  } else {
    fp = static_cast<std::uint32_t>(hash(pair, line) >> 32);
    const std::size_t mask = map_.size() - 1;
    b = home(fp);
    for (; map_[b].txn != kNoTxn; b = (b + 1) & mask) {
      if (map_[b].fp != fp) continue;
      const Txn& old = txns[map_[b].txn];
      if (old.line == line && old.req.sm / 2u == pair) {  // replace an older, unmergeable entry
        --per_pair_[pair];
        --used_;
        break;
      }
    }
  }
  map_[b] = {fp, t};
  ++per_pair_[pair];
  ++used_;
}

inline void Coalescer::untrack(std::uint32_t t, std::uint64_t line, std::uint32_t pair) {
  const std::size_t mask = map_.size() - 1;
  std::size_t b = home(static_cast<std::uint32_t>(hash(pair, line) >> 32));
  for (; map_[b].txn != t; b = (b + 1) & mask)
    if (map_[b].txn == kNoTxn) return;  // not in the table
  std::size_t hole = b;
  for (std::size_t j = (hole + 1) & mask; map_[j].txn != kNoTxn; j = (j + 1) & mask) {
    const std::size_t h = home(map_[j].fp);
    const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
    if (movable) {
      map_[hole] = map_[j];
      hole = j;
    }
  }
  map_[hole] = Slot{};
  --per_pair_[pair];
  --used_;
}

}  // namespace simfa::mem
