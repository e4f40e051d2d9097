// The Asynchronous Event Queue: the SM's time-ordered list of pending completions (a WGMMA
// leaving the pipe, its result becoming visible, its outstanding slot freeing, TMA setup done).
// Engines push what will finish when; the SM pops what is due
// at the start of each of its cycles and wakes the physical threads whose waits became satisfied.
//
// Two heaps, popped together in (time, push order): events that need the SM to tick at their time
// (a WGMMA leaving the pipe, TMA setup done), and "deferrable" ones (a WGMMA becoming visible, its
// slot freeing), which only decrement counters of one thread and its CTA. The SM wakes for a
// deferrable event only when something can observe it then (Sm::tick); otherwise it is applied at
// the start of the SM's next tick, before anything reads those counters.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/types.h"

namespace simfa::core {

enum class AeqKind : std::uint8_t { WgmmaDone, WgmmaVisible, WgmmaSlotFree, TmaSetupDone };

struct AeqEvent {
  Cycle t;
  std::uint64_t seq;
  AeqKind kind;
  std::uint32_t idx;
  std::uint32_t thread;  // deferrable events: the thread slot whose counters they change
  bool operator>(const AeqEvent& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Aeq {
 public:
  static bool deferrable(AeqKind k) { return k == AeqKind::WgmmaVisible || k == AeqKind::WgmmaSlotFree; }
  void push(Cycle t, AeqKind kind, std::uint32_t idx, std::uint32_t thread = 0) {
    if (deferrable(kind)) {
      lazy_.push_back({t, seq_++, kind, idx, thread});
      std::push_heap(lazy_.begin(), lazy_.end(), std::greater<>{});
      lazy_top_ = lazy_.front().t;
    } else {
      must_.push_back({t, seq_++, kind, idx, thread});
      std::push_heap(must_.begin(), must_.end(), std::greater<>{});
      must_top_ = must_.front().t;
    }
  }
  // The earliest times are kept next to the queue object so that the per-tick checks do not touch
  // the heaps' storage.
  bool due(Cycle now) const { return must_top_ <= now || lazy_top_ <= now; }
  bool lazy_due(Cycle now) const { return lazy_top_ <= now; }
  // The earliest due event of both heaps (call only when due()).
  AeqEvent pop() {
    const bool lazy = must_.empty() || (!lazy_.empty() && must_.front() > lazy_.front());
    std::vector<AeqEvent>& q = lazy ? lazy_ : must_;
    std::pop_heap(q.begin(), q.end(), std::greater<>{});
    const AeqEvent e = q.back();
    q.pop_back();
    (lazy ? lazy_top_ : must_top_) = q.empty() ? kNever : q.front().t;
    return e;
  }
  AeqEvent pop_lazy() {
    std::pop_heap(lazy_.begin(), lazy_.end(), std::greater<>{});
    const AeqEvent e = lazy_.back();
    lazy_.pop_back();
    lazy_top_ = lazy_.empty() ? kNever : lazy_.front().t;
    return e;
  }
  Cycle next() const { return std::min(must_top_, lazy_top_); }
  Cycle must_next() const { return must_top_; }
  Cycle lazy_next() const { return lazy_top_; }
  // Earliest deferrable event of a thread in `visible` (WgmmaVisible) or `slots` (WgmmaSlotFree)
  // (bit per thread slot; kNever if none).
  Cycle lazy_next_of(std::uint64_t visible, std::uint64_t slots) const {
    if (!(visible | slots) || lazy_.empty()) return kNever;
    Cycle t = kNever;
    for (const AeqEvent& e : lazy_)
      if ((e.kind == AeqKind::WgmmaVisible ? visible : slots) >> e.thread & 1) t = std::min(t, e.t);
    return t;
  }
  bool empty() const { return must_.empty() && lazy_.empty(); }

 private:
  std::vector<AeqEvent> must_, lazy_;  // min-heaps on (t, seq)
  std::uint64_t seq_ = 0;
  Cycle must_top_ = kNever, lazy_top_ = kNever;  // front().t, kNever when empty
};

}  // namespace simfa::core
