// Coalescer: one open-addressing table for all pairs, keyed by (pair, line), holding the tracked
// in-flight transaction; merged requests are kept in a pooled singly linked list per transaction.
#include "mem/coalescer.h"

#include <bit>

namespace simfa::mem {

Coalescer::Coalescer(const LrcParams& p, int num_sms)
    : p_(p), per_pair_(static_cast<std::size_t>(num_sms + 1) / 2, 0) {
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(64, per_pair_.size() * p.entries * 2));
  map_.assign(buckets, Slot{});
  shift_ = 64 - std::countr_zero(buckets);
}

std::uint32_t Coalescer::match(const MemReq& r, std::uint64_t line, std::uint8_t sectors,
                               Cycle now, const TxnPool& txns) const {
  if (!p_.enabled || used_ == 0) return kNoTxn;
  const std::uint32_t pair = r.sm / 2u;
  const std::size_t mask = map_.size() - 1;
  for (std::size_t b = bucket(pair, line);; b = (b + 1) & mask) {
    const Slot& sl = map_[b];
    if (sl.txn == kNoTxn) return kNoTxn;
    if (sl.line == line && sl.pair == pair) {
      const Txn& x = txns[sl.txn];
      if ((sectors & ~x.sectors) != 0 || now - x.accepted > p_.window) return kNoTxn;
      return sl.txn;
    }
  }
}

void Coalescer::merge(std::uint32_t t, const MemReq& r, TxnPool& txns) {
  std::uint32_t w;
  if (free_ != kNoTxn) {
    w = free_;
    free_ = waiters_[w].next;
  } else {
    w = static_cast<std::uint32_t>(waiters_.size());
    waiters_.emplace_back();
  }
  waiters_[w].req = r;
  waiters_[w].next = txns[t].merged;  // LIFO: delivery order among merged requests is reversed
  txns[t].merged = w;
  ++merges_;
}

void Coalescer::track(std::uint32_t t, TxnPool& txns) {
  Txn& x = txns[t];
  const std::uint32_t pair = x.req.sm / 2u;
  if (!p_.enabled || x.write || per_pair_[pair] >= p_.entries) return;
  const std::size_t mask = map_.size() - 1;
  std::size_t b = bucket(pair, x.line);
  for (; map_[b].txn != kNoTxn; b = (b + 1) & mask) {
    if (map_[b].line == x.line && map_[b].pair == pair) {  // replace an older, unmergeable entry
      txns[map_[b].txn].in_lrc = false;
      --per_pair_[pair];
      --used_;
      break;
    }
  }
  map_[b] = {x.line, pair, t};
  x.in_lrc = true;
  ++per_pair_[pair];
  ++used_;
}

void Coalescer::untrack(std::uint32_t t, TxnPool& txns) {
  Txn& x = txns[t];
  const std::uint32_t pair = x.req.sm / 2u;
  const std::size_t mask = map_.size() - 1;
  std::size_t b = bucket(pair, x.line);
  while (map_[b].txn != t) b = (b + 1) & mask;
  std::size_t hole = b;
  for (std::size_t j = (hole + 1) & mask; map_[j].txn != kNoTxn; j = (j + 1) & mask) {
    const std::size_t home = bucket(map_[j].pair, map_[j].line);
    const bool movable = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
    if (movable) {
      map_[hole] = map_[j];
      hole = j;
    }
  }
  map_[hole] = Slot{};
  x.in_lrc = false;
  --per_pair_[pair];
  --used_;
}

}  // namespace simfa::mem
