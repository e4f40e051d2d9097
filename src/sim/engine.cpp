// Engine: a calendar wheel of kSlots one-cycle slots (with a bitmap for finding the next busy
// slot; messages in a pooled linked list per slot, tick requests in a per-slot bitmap of component
// ids) for the near future, and min-heaps for events beyond the wheel's horizon. Far events
// migrate into the wheel before anything else is inserted into their slot, so a slot's messages
// stay in scheduling order.
#include "sim/engine.h"

#include <algorithm>
#include <bit>

#include "sim/error.h"
#include "sim/prefetch.h"

namespace simfa {

namespace {
// Contract violations, out of line so that the hot paths below keep a small frame.
[[gnu::cold, gnu::noinline]] void bad_send(Cycle t, Cycle now) {
  SIMFA_ASSERT(false, "engine", "message scheduled for cycle {} at cycle {}", t, now);
}
[[gnu::cold, gnu::noinline]] void bad_wake(Cycle t, Cycle now) {
  SIMFA_ASSERT(false, "engine", "wake for past cycle {} at cycle {}", t, now);
}
[[gnu::cold, gnu::noinline]] void bad_next(std::uint32_t id, Cycle next, Cycle t) {
  SIMFA_ASSERT(false, "engine", "component {} asked for cycle {} at cycle {}", id, next, t);
}
}  // namespace

Engine::Engine(bool skip_idle) : skip_(skip_idle) {}

void Engine::add(Component* c) {
  c->id_ = static_cast<std::uint32_t>(comps_.size());
  comps_.push_back(c);
  ts_.emplace_back();
  phase_.resize((comps_.size() + 63) / 64, 0);
  prefetchers_.resize(phase_.size(), 0);
  tick_bits_.resize(phase_.size() * kSlots, 0);  // appends the new word's slots (see engine.h)
}

void Engine::want_prefetch(Component* c) {
  prefetchers_[c->id_ >> 6] |= 1ULL << (c->id_ & 63);
  pf_words_ = std::max<std::size_t>(pf_words_, (c->id_ >> 6) + 1);
}

std::uint32_t Engine::grow_pool() {
  pool_.emplace_back();
  next_.push_back(kNil);
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

void Engine::send_slow(EventTarget* target, std::uint32_t tag, const Payload& p, Cycle t) {
  if (!(t > now_ || (!started_ && t == now_))) [[unlikely]] bad_send(t, now_);
  if (t - now_ < kSlots) push_msg(t, target, tag, p);
  else far_.push({t, seq_++, {target, tag, p}});
}

void Engine::wake_slow(Component* c, Cycle t) {
  if (t < now_) [[unlikely]] bad_wake(t, now_);
  const std::uint32_t id = c->id_;
  Cycle& scheduled = ts_[id].scheduled;
  if (t == now_ && in_tick_phase_) {
    if (id > ticking_id_) {
      if (scheduled != now_) {
        scheduled = now_;
        phase_[id >> 6] |= 1ULL << (id & 63);  // the scan ahead of ticking_id_ finds it
      }
      return;
    }
    t = now_ + 1;
  }
  if (scheduled != kNever && scheduled >= now_ && scheduled <= t) return;
  scheduled = t;
  if (t - now_ < kSlots) push_tick(t, id);
  else far_ticks_.push({t, id});
}

void Engine::migrate_far() {
  while (!far_.empty() && far_.top().t - now_ < kSlots) {
    const Far& f = far_.top();
    push_msg(f.t, f.m.target, f.m.tag, f.m.p);
    far_.pop();
  }
  while (!far_ticks_.empty() && far_ticks_.top().t - now_ < kSlots) {
    const FarTick& f = far_ticks_.top();
    push_tick(f.t, f.id);
    far_ticks_.pop();
  }
}

bool Engine::wheel_empty() const {
  std::uint64_t any = 0;
  for (std::uint64_t w : bitmap_) any |= w;
  return any == 0;
}

Cycle Engine::next_busy_cycle() const {
  const Cycle from = started_ ? now_ + 1 : now_;
  constexpr Cycle kWords = kSlots / 64;
  const Cycle base = from & (kSlots - 1);
  const Cycle w0 = base >> 6;
  for (Cycle i = 0; i <= kWords; ++i) {
    const Cycle w = (w0 + i) % kWords;
    std::uint64_t bits = bitmap_[w];
    if (i == 0) bits &= ~0ULL << (base & 63);         // at or after `from`
    if (i == kWords) bits &= ~(~0ULL << (base & 63));  // wrapped around: before `from`
    if (bits) {
      const Cycle slot = (w << 6) | static_cast<Cycle>(std::countr_zero(bits));
      return from + ((slot - base) & (kSlots - 1));
    }
  }
  Cycle t = kNever;
  if (!far_.empty()) t = far_.top().t;
  if (!far_ticks_.empty() && far_ticks_.top().t < t) t = far_ticks_.top().t;
  return t;
}

// flatten: tick_one and the wakes it makes, inlined into the cycle loop.
[[gnu::flatten]] void Engine::process_cycle(Cycle t) {
  now_ = t;
  started_ = true;
  migrate_far();
  const std::size_t si = t & (kSlots - 1);
  // 1. Messages, in scheduling order. Handlers cannot add messages to this slot (they schedule
  // for t + 1 or later, and t + kSlots goes to the far heap). A node is freed before its handler
  // runs (the message is copied out), so the handler's own sends reuse it while it is hot.
  SlotList& s = slots_[si];
  std::uint32_t n = s.head;
  s.head = s.tail = kNil;
  // `ahead` runs kAhead messages in front of `n`, fetching each while the handlers before it run.
  constexpr int kAhead = 4;
  std::uint32_t ahead = n;
  for (int i = 0; i < kAhead && ahead != kNil; ++i) {
    simfa::prefetch(&pool_[ahead]);
    ahead = next_[ahead];
  }
  while (n != kNil) {
    const Msg m = pool_[n].m;
    const std::uint32_t next = next_[n];
    next_[n] = free_;
    free_ = n;
    n = next;
    if (ahead != kNil) {
      simfa::prefetch(&pool_[ahead]);
      ahead = next_[ahead];
    }
    m.target->on_event(m.tag, m.p, t);
    ++events_;
  }
  // 2. Ticks in ascending component id.
  if (skip_) {
    // Stale entries (components rescheduled meanwhile) are skipped by tick_one.
    for (std::size_t w = 0; w < phase_.size(); ++w) {
      std::uint64_t& b = tick_bits_[w * kSlots + si];
      phase_[w] |= b;
      b = 0;
    }
  } else {
    for (std::size_t w = 0; w < phase_.size(); ++w) tick_bits_[w * kSlots + si] = 0;
    for (std::uint32_t id = 0; id < comps_.size(); ++id) phase_[id >> 6] |= 1ULL << (id & 63);
  }
  bitmap_[si >> 6] &= ~(1ULL << (t & 63));
  // Let the components about to tick start their host cache misses together.
  for (std::size_t w = 0; w < pf_words_; ++w)
    for (std::uint64_t b = phase_[w] & prefetchers_[w]; b; b &= b - 1) {
      const std::size_t id = w << 6 | static_cast<std::size_t>(std::countr_zero(b));
      if (ts_[id].scheduled == t) comps_[id]->prefetch(t);
    }
  in_tick_phase_ = true;
  for (std::size_t w = 0; w < phase_.size(); ++w) {
    // The word is re-read after each tick: a tick may wake a higher id of this word.
    while (phase_[w]) {
      const auto id = static_cast<std::uint32_t>(w << 6 | static_cast<std::size_t>(std::countr_zero(phase_[w])));
      phase_[w] &= phase_[w] - 1;
      // The next component of this word to tick (if it is due): fetch its object meanwhile.
      if (phase_[w]) {
        const std::size_t nx = w << 6 | static_cast<std::size_t>(std::countr_zero(phase_[w]));
        if (ts_[nx].scheduled == t) simfa::prefetch(comps_[nx]);
      }
      tick_one(id, t);
    }
  }
  in_tick_phase_ = false;
}

void Engine::tick_one(std::uint32_t id, Cycle t) {
  TickState& ts = ts_[id];
  if (ts.last == t || (skip_ && ts.scheduled != t)) return;
  ts.last = t;
  ticking_id_ = id;
  if (ts.scheduled == t) ts.scheduled = kNever;
  Component* c = comps_[id];
  const Cycle next = c->tick(t);
  ++ticks_;
  if (next != kNever) {
    if (next <= t) [[unlikely]] bad_next(id, next, t);
    wake(c, next);  // a later cycle: an ordinary wake, whatever the phase
  }
}

bool Engine::run(const std::function<bool()>& done, Cycle limit) {
  while (!done()) {
    Cycle t;
    if (skip_) {
      t = next_busy_cycle();
      if (t == kNever) return false;
    } else {
      if (started_ && wheel_empty() && far_.empty() && far_ticks_.empty()) return false;
      t = started_ ? now_ + 1 : now_;
    }
    if (t > limit) return false;
    process_cycle(t);
  }
  return true;
}

}  // namespace simfa
