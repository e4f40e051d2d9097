// The Asynchronous Event Queue: the SM's one time-ordered list of pending completions (a WGMMA
// leaving the pipe, its result becoming visible, its outstanding slot freeing, TMA setup done).
// Engines push what will finish when; the SM pops what is due
// at the start of each of its cycles and wakes the physical threads whose waits became satisfied.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

#include "sim/types.h"

namespace simfa::core {

enum class AeqKind : std::uint8_t { WgmmaDone, WgmmaVisible, WgmmaSlotFree, TmaSetupDone };

struct AeqEvent {
  Cycle t;
  std::uint64_t seq;
  AeqKind kind;
  std::uint32_t idx;
  bool operator>(const AeqEvent& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Aeq {
 public:
  void push(Cycle t, AeqKind kind, std::uint32_t idx) {
    q_.push({t, seq_++, kind, idx});
    top_ = q_.top().t;
  }
  // The earliest time is kept next to the queue object so that the per-tick checks do not touch
  // the heap's storage.
  bool due(Cycle now) const { return top_ <= now; }
  AeqEvent pop() {
    AeqEvent e = q_.top();
    q_.pop();
    top_ = q_.empty() ? kNever : q_.top().t;
    return e;
  }
  Cycle next() const { return top_; }
  bool empty() const { return q_.empty(); }

 private:
  std::priority_queue<AeqEvent, std::vector<AeqEvent>, std::greater<>> q_;
  std::uint64_t seq_ = 0;
  Cycle top_ = kNever;  // q_.top().t, kNever when empty
};

}  // namespace simfa::core
