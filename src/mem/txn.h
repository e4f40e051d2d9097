// A transaction: one line request on its way through the crossbar and the L2 after the coalescer.
// Transactions live in a flat pool and are named by index; each is in at most one slice lane or one
// MSHR's waiter list (linked through `next`) at a time.
#pragma once
#include <cstdint>
#include <vector>

#include "mem/mshr.h"
#include "mem/port.h"
#include "sim/prefetch.h"

namespace simfa::mem {

// How a transaction reached the slice it is queued at.
enum class Route : std::uint8_t {
  Near,       // from an SM of the slice's partition, to its home slice
  FarDirect,  // from an SM of the other partition straight to the home slice
  Probe,      // a far-homed read probing the requester's near (mirror) slice for a shadow copy
  Forwarded,  // a probe that missed, forwarded to the home slice
};

// One host cache line each. The coalescer's per-transaction state (merged requests, whether it is
// in its table) lives in the coalescer, and a slice's queue entries carry the arrival time and the
// line, so that neither the arrival of a response nor a slice's choice of the next lookup reads it.
struct alignas(64) Txn {
  MemReq req;                       // the leader request, returned unchanged
  std::uint64_t line = 0;           // line index (req.line / line size)
  Cycle accepted = 0;               // cycle the memory system accepted it
  std::uint32_t next = kNoTxn;      // list link (an MSHR entry's waiters)
  std::uint16_t home = 0;           // home slice
  std::uint8_t sectors = 0xF;       // sectors touched (never 0)
  Route route = Route::Near;
  bool write = false;
};

class TxnPool {
 public:
  std::uint32_t alloc() {
    if (free_.empty()) {
      txns_.emplace_back();
      return static_cast<std::uint32_t>(txns_.size() - 1);
    }
    const std::uint32_t t = free_.back();
    free_.pop_back();
    txns_[t] = Txn{};
    return t;
  }
  // The transaction is handed out again soon (last in, first out) and nothing read it lately:
  // start fetching it now.
  void release(std::uint32_t t) {
    simfa::prefetch(&txns_[t]);
    free_.push_back(t);
  }
  Txn& operator[](std::uint32_t t) { return txns_[t]; }
  const Txn& operator[](std::uint32_t t) const { return txns_[t]; }
  std::size_t live() const { return txns_.size() - free_.size(); }

 private:
  std::vector<Txn> txns_;
  std::vector<std::uint32_t> free_;
};

}  // namespace simfa::mem
