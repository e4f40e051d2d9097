// Engine: a calendar wheel of kSlots one-cycle slots (with a bitmap for finding the next busy
// slot) for the near future, and min-heaps for events beyond the wheel's horizon. Far events
// migrate into the wheel before anything else is inserted into their slot, so a slot's messages
// stay in scheduling order.
#include "sim/engine.h"

#include <algorithm>
#include <bit>

#include "sim/error.h"

namespace simfa {

Engine::Engine(bool skip_idle) : skip_(skip_idle), wheel_(kSlots) {}

void Engine::add(Component* c) {
  c->id_ = static_cast<std::uint32_t>(comps_.size());
  comps_.push_back(c);
  phase_.resize((comps_.size() + 63) / 64, 0);
}

void Engine::send(EventTarget* target, std::uint32_t tag, const Payload& p, Cycle t) {
  SIMFA_ASSERT(t > now_ || (!started_ && t == now_), "engine",
               "message scheduled for cycle {} at cycle {}", t, now_);
  if (t - now_ < kSlots) {
    wheel_[t & (kSlots - 1)].msgs.push_back({target, tag, p});
    mark(t);
    ++wheel_count_;
  } else {
    far_.push({t, seq_++, {target, tag, p}});
  }
}

void Engine::wake(Component* c, Cycle t) {
  SIMFA_ASSERT(t >= now_, "engine", "wake for past cycle {} at cycle {}", t, now_);
  if (t == now_ && in_tick_phase_) {
    if (c->id_ > ticking_id_) {
      if (c->scheduled_ != now_) {
        c->scheduled_ = now_;
        phase_[c->id_ >> 6] |= 1ULL << (c->id_ & 63);  // the scan ahead of ticking_id_ finds it
      }
      return;
    }
    t = now_ + 1;
  }
  if (c->scheduled_ != kNever && c->scheduled_ >= now_ && c->scheduled_ <= t) return;
  c->scheduled_ = t;
  if (t - now_ < kSlots) {
    wheel_[t & (kSlots - 1)].ticks.push_back(c->id_);
    mark(t);
    ++wheel_count_;
  } else {
    far_ticks_.push({t, c->id_});
  }
}

void Engine::migrate_far() {
  while (!far_.empty() && far_.top().t - now_ < kSlots) {
    const Far& f = far_.top();
    wheel_[f.t & (kSlots - 1)].msgs.push_back(f.m);
    mark(f.t);
    ++wheel_count_;
    far_.pop();
  }
  while (!far_ticks_.empty() && far_ticks_.top().t - now_ < kSlots) {
    const FarTick& f = far_ticks_.top();
    wheel_[f.t & (kSlots - 1)].ticks.push_back(f.id);
    mark(f.t);
    ++wheel_count_;
    far_ticks_.pop();
  }
}

Cycle Engine::next_busy_cycle() const {
  const Cycle from = started_ ? now_ + 1 : now_;
  if (wheel_count_ > 0) {
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
    SIMFA_ASSERT(false, "engine", "wheel count {} but no busy slot", wheel_count_);
  }
  Cycle t = kNever;
  if (!far_.empty()) t = far_.top().t;
  if (!far_ticks_.empty() && far_ticks_.top().t < t) t = far_ticks_.top().t;
  return t;
}

void Engine::process_cycle(Cycle t) {
  now_ = t;
  started_ = true;
  migrate_far();
  Slot& s = wheel_[t & (kSlots - 1)];
  // 1. Messages, in scheduling order. Handlers cannot add messages to this slot (they schedule
  // for t + 1 or later, and t + kSlots goes to the far heap).
  for (std::size_t i = 0; i < s.msgs.size(); ++i) {
    Msg m = s.msgs[i];
    m.target->on_event(m.tag, m.p, t);
    ++events_;
  }
  wheel_count_ -= s.msgs.size();
  s.msgs.clear();
  // 2. Ticks in ascending component id.
  if (skip_) {
    for (std::uint32_t id : s.ticks)
      if (comps_[id]->scheduled_ == t) phase_[id >> 6] |= 1ULL << (id & 63);
  } else {
    for (std::uint32_t id = 0; id < comps_.size(); ++id) phase_[id >> 6] |= 1ULL << (id & 63);
  }
  wheel_count_ -= s.ticks.size();
  s.ticks.clear();
  bitmap_[(t & (kSlots - 1)) >> 6] &= ~(1ULL << (t & 63));
  in_tick_phase_ = true;
  for (std::size_t w = 0; w < phase_.size(); ++w) {
    // The word is re-read after each tick: a tick may wake a higher id of this word.
    while (phase_[w]) {
      const auto id = static_cast<std::uint32_t>(w << 6 | static_cast<std::size_t>(std::countr_zero(phase_[w])));
      phase_[w] &= phase_[w] - 1;
      tick_one(id, t);
    }
  }
  in_tick_phase_ = false;
}

void Engine::tick_one(std::uint32_t id, Cycle t) {
  Component* c = comps_[id];
  if (c->last_tick_ == t || (skip_ && c->scheduled_ != t)) return;
  c->last_tick_ = t;
  ticking_id_ = id;
  if (c->scheduled_ == t) c->scheduled_ = kNever;
  const Cycle next = c->tick(t);
  ++ticks_;
  if (next != kNever) {
    SIMFA_ASSERT(next > t, "engine", "component {} asked for cycle {} at cycle {}", id, next, t);
    in_tick_phase_ = false;  // a self-requested future tick is an ordinary wake
    wake(c, next);
    in_tick_phase_ = true;
  }
}

bool Engine::run(const std::function<bool()>& done, Cycle limit) {
  while (!done()) {
    Cycle t;
    if (skip_) {
      t = next_busy_cycle();
      if (t == kNever) return false;
    } else {
      if (wheel_count_ == 0 && far_.empty() && far_ticks_.empty() && started_) return false;
      t = started_ ? now_ + 1 : now_;
    }
    if (t > limit) return false;
    process_cycle(t);
  }
  return true;
}

}  // namespace simfa
