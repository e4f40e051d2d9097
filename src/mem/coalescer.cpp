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

}  // namespace simfa::mem
