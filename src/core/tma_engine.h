// The SM's TMA unit (paper §4.3, Fig. 2). Copies wait in a request queue; each starts setup in
// order, one per cycle: the common launch latency, plus descriptor-cache lookup and TensorMap
// setup for tensor copies (bulk copies bypass both). The head copy, once set up, generates its
// line requests at `lines_per_cycle`, bounded by `max_inflight_sectors` outstanding
// (a line request holds the sectors it touches), through the
// SM's memory port (back-pressure stops generation until the port's retry). A copy leaves the
// queue when all its lines were sent and completes when all responses arrived.
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/aeq.h"
#include "core/params.h"
#include "core/tma_lines.h"
#include "mem/port.h"
#include "mem/ring_queue.h"
#include "mem/sectors.h"
#include "sim/error.h"
#include "sim/stats.h"

namespace simfa::core {

struct TmaOp {
  bool store = false;
  bool tensor = false;
  std::uint32_t thread = 0;      // issuing physical thread slot
  std::uint32_t cta_slot = 0;
  std::uint16_t id = 0;          // stage (loads) or group (stores)
  std::uint16_t mc = 0;          // multicast mask (loads)
  std::uint16_t map = 0;
  std::uint64_t group_serial = 0;  // stores: the thread's group record
  std::uint64_t tx_bytes = 0;    // bytes delivered to each destination stage
  std::vector<LineReq> lines;  // the copy's own line list, unless it uses a shared pattern
  // The lines the unit sends: line i is pattern.base + pattern.lines[i].line (enqueue points the
  // pattern at `lines`, base 0, when the SM did not set a shared one).
  BoxPattern pattern;
  std::uint32_t sent = 0, done = 0;
  std::uint32_t deferred = 0;  // responses taken ahead of their arrival, not yet applied
  Cycle issued = 0, ready_at = kNever;
  bool in_use = false;
};

// A copy's pattern may point into its own `lines`: moving the record must keep that buffer.
static_assert(std::is_nothrow_move_constructible_v<TmaOp> && std::is_nothrow_move_assignable_v<TmaOp>);

// What the TMA unit reports back to its SM.
class TmaClient {
 public:
  virtual ~TmaClient() = default;
  virtual void tma_all_sent(TmaOp& op, Cycle now) = 0;  // shared memory fully read (stores)
  virtual void tma_complete(TmaOp& op, Cycle now) = 0;  // every response arrived
};

class TmaEngine {
 public:
  TmaEngine(const TmaParams& p, std::uint16_t sm, mem::MemorySystem& mem, Aeq& aeq, TmaClient& client);

  bool full() const { return qn_ >= p_.queue_depth; }
  // Takes a copy issued at `now` (its lines listed, or its pattern set); returns its slot.
  std::uint32_t enqueue(TmaOp&& op, Cycle now);
  TmaOp& op(std::uint32_t slot) { return ops_[slot]; }
  // A fresh op record whose line vector keeps its capacity (avoids allocation per copy).
  TmaOp take_op();

  void tick(Cycle now);
  // Returns whether the SM needs a tick for it: a copy completed, or line generation was held by
  // `max_inflight_sectors` and may go on. Otherwise nothing its tick depends on changed.
  bool on_response(const mem::MemReq& r, Cycle now);
  // A response arriving at `at`, offered ahead of time (mem::MemClient::defer_response). Taken
  // (true) unless it would complete its copy: the others change only counts that nothing reads
  // before apply_due() (the SM's tick, a response, a read of the statistics), so they need no
  // engine message. The SM ticks at `at` when generation is held at the sector limit
  // (held_by_sectors(); next_need() covers what arrives while it is).
  // Once per line response: inline.
  bool defer(const mem::MemReq& r, Cycle at) {
    TmaOp& op = answered(r.tag, at);
    // The last response of a copy completes it: that must happen at its place in cycle `at`.
    if (op.sent == op.pattern.size && op.done + op.deferred + 1 == op.pattern.size) return false;
    SIMFA_ASSERT(deferred_.empty() || deferred_.back().at <= at, fmt::format("sm[{}].tma", sm_),
                 "responses taken out of order ({} after {})", at, deferred_.back().at);
    ++op.deferred;
    deferred_.push({at, r.tag, r.sectors});
    return true;
  }
  // Applies the taken responses that have arrived by `now`.
  void apply_due(Cycle now) {
    if (!deferred_.empty() && deferred_.front().at <= now) apply_deferred(now);
  }
  bool held_by_sectors() const { return head_need_ != 0 && !fits_sectors(head_need_); }
  void on_retry(Cycle now) { port_blocked_ = false; }
  // The next cycle this unit needs a tick for its own progress (kNever: waiting on others).
  Cycle next_need(Cycle now) const;
  bool idle() const { return qn_ == 0 && inflight_ == 0; }
  void finish(Cycle now) { busy_.set(now, false); }

  void register_stats(Stats& s, const std::string& prefix);

 private:
  Cycle setup_latency(const TmaOp& op);
  void release(std::uint32_t slot);
  void apply_deferred(Cycle now);
  // The copy a response answers (checked), and what a response changes in the unit's counts.
  [[gnu::always_inline]] TmaOp& answered(std::uint32_t tag, Cycle at) {
    SIMFA_ASSERT(tag < ops_.size() && ops_[tag].in_use, fmt::format("sm[{}].tma", sm_),
                 "response for unknown copy {} at cycle {}", tag, at);
    return ops_[tag];
  }
  void count_answer(TmaOp& op, std::uint8_t sectors);
  // Taken responses in arrival order (the SM's ejection port hands them out in order of time).
  struct Deferred {
    Cycle at;
    std::uint32_t tag;
    std::uint8_t sectors;
  };
  // (A ring, not a deque: once per line response, 1.8% of `--seqlen 1536`'s instructions in
  // the deque's bookkeeping; docs/performance.md, session 24.)
  mem::RingQueue<Deferred> deferred_{64};

  TmaParams p_;
  std::uint16_t sm_;
  mem::MemorySystem& mem_;
  Aeq& aeq_;
  TmaClient& client_;
  std::vector<TmaOp> ops_;
  std::vector<std::uint32_t> free_;
  // The request queue, in issue order: a ring of queue_depth slots (head qh_, qn_ entries).
  std::uint32_t q_at(std::size_t i) const {
    std::size_t j = qh_ + i;
    if (j >= ring_.size()) j -= ring_.size();
    return ring_[j];
  }
  std::vector<std::uint32_t> ring_;
  std::size_t qh_ = 0, qn_ = 0;
  std::size_t setup_next_ = 0;       // index in the queue of the first copy not yet in setup
  Cycle last_setup_start_ = kNever;
  std::uint32_t inflight_ = 0;          // line requests outstanding
  std::uint32_t inflight_sectors_ = 0;  // their sectors (bounded by max_inflight_sectors)
  std::uint32_t sectors_of(const LineReq& l) const {
    return l.sectors ? mem::sector_count(l.sectors) : line_sectors_;
  }
  // Whether one more line request (of `n` sectors) fits: always when nothing is outstanding.
  bool fits(const LineReq& l) const { return fits_sectors(sectors_of(l)); }
  bool fits_sectors(std::uint32_t n) const {
    return inflight_sectors_ == 0 || inflight_sectors_ + n <= p_.max_inflight_sectors;
  }
  // The head copy as the per-response and next-wake checks need it, without reading the copy:
  // the sectors of its next unsent line (0: all sent, or no head) and its ready_at (kNever: no
  // head). Refreshed wherever the head or its progress changes (tick, enqueue).
  void refresh_head();
  std::uint32_t head_need_ = 0;
  Cycle head_ready_ = kNever;
  std::uint32_t line_sectors_ = 4;
  bool port_blocked_ = false;
  std::vector<std::uint16_t> desc_cache_;  // most recently used last
  std::vector<std::vector<LineReq>> spare_lines_;
  BusyTime busy_;
  std::uint64_t loads_ = 0, stores_ = 0, lines_sent_ = 0, bytes_ = 0, desc_misses_ = 0, port_stalls_ = 0;
};

// Called at every tick of the SM: inline.
inline void TmaEngine::refresh_head() {
  if (qn_ == 0) {
    head_need_ = 0;
    head_ready_ = kNever;
    return;
  }
  const TmaOp& h = ops_[ring_[qh_]];
  head_ready_ = h.ready_at;
  head_need_ = h.sent < h.pattern.size ? sectors_of(h.pattern.lines[h.sent]) : 0;
}

inline Cycle TmaEngine::next_need(Cycle now) const {
  Cycle t = kNever;
  if (setup_next_ < qn_) t = now + 1;
  if (qn_ != 0 && !port_blocked_) {
    // A copy still in setup is woken by its AEQ event.
    if (head_ready_ <= now && (head_need_ == 0 || fits_sectors(head_need_))) t = std::min(t, now + 1);
  }
  // Held at the sector limit: every arriving response may free room (those taken ahead of time
  // have no message of their own to wake the SM).
  if (held_by_sectors() && !deferred_.empty()) t = std::min(t, deferred_.front().at);
  return t;
}

}  // namespace simfa::core
