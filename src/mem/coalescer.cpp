// Coalescer: one open-addressing table for all pairs, keyed by (pair, line), holding the tracked
// in-flight transaction; merged requests are kept in a pooled singly linked list per transaction.
#include "mem/coalescer.h"

#include <bit>

#include "sim/error.h"

namespace simfa::mem {

Coalescer::Coalescer(const LrcParams& p, int num_sms)
    : p_(p), per_pair_(static_cast<std::size_t>(num_sms + 1) / 2, 0) {
  // At most pairs x entries are tracked: the table stays at most two thirds full.
  const std::size_t most = per_pair_.size() * p.entries;
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(64, most + most / 2 + 1));
  map_.assign(buckets, Slot{});
  fp_shift_ = 32 - std::countr_zero(buckets);
  SIMFA_ASSERT(fp_shift_ >= 0, "coalescer", "{} buckets", buckets);
}

std::uint32_t Coalescer::match(const MemReq& r, std::uint64_t line, std::uint8_t sectors,
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

void Coalescer::merge(std::uint32_t t, const MemReq& r, TxnPool&) {
  std::uint32_t w;
  if (free_ != kNoTxn) {
    w = free_;
    free_ = waiters_[w].next;
  } else {
    w = static_cast<std::uint32_t>(waiters_.size());
    waiters_.emplace_back();
  }
  if (t >= merged_.size()) merged_.resize(std::size_t{t} + 1, kNoTxn);
  if (merged_[t] == kNoTxn) ++merged_lists_;
  waiters_[w].req = r;
  waiters_[w].next = merged_[t];  // LIFO: delivery order among merged requests is reversed
  merged_[t] = w;
  ++merges_;
}

void Coalescer::track(std::uint32_t t, std::uint64_t line, std::uint16_t sm, const TxnPool& txns,
                      const Probe& probe) {
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

void Coalescer::untrack(std::uint32_t t, std::uint64_t line, std::uint32_t pair) {
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
