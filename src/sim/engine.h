// The event engine: a deterministic discrete-event kernel with cycle granularity.
//
// Two kinds of work happen at a cycle t, in this order:
//   1. messages: events scheduled for t, in the order they were scheduled (sequence order);
//      their handlers update component inputs and may wake() components;
//   2. ticks: every component that asked to run at t, in ascending component id.
// Contract for ordering and equivalence with the reference (no-skip) mode:
//   - a message or callback scheduled from cycle `now` is for a cycle >= now + 1;
//   - wake(c, now) during the tick phase runs c in this phase when c's id is greater than the id
//     being ticked, otherwise at now + 1 (exactly what ticking everything every cycle does);
//   - a component's tick() when it has nothing to do must change nothing.
// In skip mode (the default) idle cycles cost nothing: the engine jumps to the next cycle with a
// message or a requested tick. In no-skip mode it ticks every component every cycle; both must
// give identical results, and tests hold them together.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/types.h"

namespace simfa {

// 32 bytes of trivially copyable payload carried by an event.
struct Payload {
  alignas(8) unsigned char bytes[32];
  template <typename T>
  static Payload of(const T& v) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 32, "payload too large");
    Payload p;
    std::memcpy(p.bytes, &v, sizeof(T));
    return p;
  }
  template <typename T>
  T as() const {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 32, "payload too large");
    T v;
    std::memcpy(&v, bytes, sizeof(T));
    return v;
  }
};

// Receives messages (events with a payload).
class EventTarget {
 public:
  virtual ~EventTarget() = default;
  virtual void on_event(std::uint32_t tag, const Payload& p, Cycle now) = 0;
};

class Engine;

// A clocked component. tick() returns the next cycle at which it needs to run: now + 1 when busy,
// a later cycle when it sleeps until a known time, or kNever when idle (it is then woken by a
// message handler calling Engine::wake).
class Component {
 public:
  virtual ~Component() = default;
  virtual Cycle tick(Cycle now) = 0;
  // Host cache hint, called (after Engine::want_prefetch) at the start of each tick phase in which
  // the component will tick, before any component ticks: it may start fetching what its tick reads
  // first. Must change nothing.
  virtual void prefetch(Cycle /*now*/) {}

 private:
  friend class Engine;
  std::uint32_t id_ = 0;
};

class Engine {
 public:
  explicit Engine(bool skip_idle = true);

  // Registers a component; ids (and so tick order) follow registration order.
  void add(Component* c);
  Cycle now() const { return now_; }
  bool skip_idle() const { return skip_; }

  // Schedules a message for target at cycle t (t >= now + 1; t == now is allowed only before run()).
  // The common case (the near future) is inline; the rest is send_slow().
  void send(EventTarget* target, std::uint32_t tag, const Payload& p, Cycle t) {
    if (t > now_ && t - now_ < kSlots) [[likely]]
      push_msg(t, target, tag, p);
    else
      send_slow(target, tag, p, t);
  }
  // Requests a tick of c at cycle t >= now (see the ordering contract above). The common case (a
  // later cycle in the near future) is inline; the rest is wake_slow().
  void wake(Component* c, Cycle t) {
    if (t > now_ && t - now_ < kSlots) [[likely]] {
      const std::uint32_t id = c->id_;
      Cycle& s = ts_[id].scheduled;
      if (s - now_ <= t - now_) return;  // a tick in [now, t] is pending already
      s = t;
      push_tick(t, id);
      return;
    }
    wake_slow(c, t);
  }
  // c's prefetch() is called before the ticks of every cycle in which it ticks.
  void want_prefetch(Component* c);

  // Runs until `done()` returns true after a cycle. Returns false when nothing can ever happen
  // again (no message pending and no component wants a tick) while `done()` is still false: the
  // caller reports a deadlock. `limit` stops the run (returning false) past that cycle.
  bool run(const std::function<bool()>& done, Cycle limit = kNever);

  std::uint64_t events_processed() const { return events_; }
  std::uint64_t ticks_processed() const { return ticks_; }

 private:
  struct Msg {
    EventTarget* target;
    std::uint32_t tag;
    Payload p;
  };
  struct Far {
    Cycle t;
    std::uint64_t seq;
    Msg m;
    bool operator>(const Far& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  struct FarTick {
    Cycle t;
    std::uint32_t id;
    bool operator>(const FarTick& o) const { return t != o.t ? t > o.t : id > o.id; }
  };
  static constexpr Cycle kSlots = 1024;  // power of two: the near-future calendar wheel
  static constexpr std::uint32_t kNil = ~0u;
  // Wheel messages live in one pool, linked per slot in scheduling order (head/tail indices). The
  // links are a dense array apart from the 64-byte messages, so that appending to a slot writes a
  // small, mostly cached array instead of the cold message last appended there, and the cycle's
  // walk can fetch messages a few ahead. Freed entries are reused last-in first-out, so a send
  // usually writes a message a handler has just read.
  struct alignas(64) Node {
    Msg m;
  };
  struct SlotList {
    std::uint32_t head = kNil, tail = kNil;
  };

  void send_slow(EventTarget* target, std::uint32_t tag, const Payload& p, Cycle t);
  void wake_slow(Component* c, Cycle t);
  void push_msg(Cycle t, EventTarget* target, std::uint32_t tag, const Payload& p) {
    std::uint32_t n = free_;
    if (n == kNil) [[unlikely]]
      n = grow_pool();
    else
      free_ = next_[n];
    Node& node = pool_[n];
    node.m.target = target;
    node.m.tag = tag;
    node.m.p = p;
    next_[n] = kNil;
    SlotList& s = slots_[t & (kSlots - 1)];
    if (s.tail == kNil)
      s.head = n;
    else
      next_[s.tail] = n;
    s.tail = n;
    mark(t);
  }
  std::uint32_t grow_pool();
  void push_tick(Cycle t, std::uint32_t id) {
    tick_bits_[static_cast<std::size_t>(id >> 6) * kSlots + (t & (kSlots - 1))] |= 1ULL << (id & 63);
    mark(t);
  }
  bool wheel_empty() const;
  void migrate_far();
  Cycle next_busy_cycle() const;
  void process_cycle(Cycle t);
  void tick_one(std::uint32_t id, Cycle t);
  void mark(Cycle t) { bitmap_[(t & (kSlots - 1)) >> 6] |= 1ULL << (t & 63); }

  bool skip_;
  Cycle now_ = 0;
  bool started_ = false;
  bool in_tick_phase_ = false;
  std::uint32_t ticking_id_ = 0;
  std::vector<Component*> comps_;
  // Per component id (engine-owned, so that a stale tick request is skipped without touching the
  // component object): its pending tick (kNever if none) and the cycle it last ticked.
  struct TickState {
    Cycle scheduled = kNever;
    Cycle last = kNever;
  };
  std::vector<TickState> ts_;
  std::vector<Node> pool_;
  std::vector<std::uint32_t> next_;  // per pool_ node: the next in its slot's list or the free list
  std::uint32_t free_ = kNil;        // free list of pool_ nodes
  SlotList slots_[kSlots];
  // Ticks requested per wheel slot: word w of slot s (component ids 64w..64w+63) is at
  // tick_bits_[w * kSlots + s], so adding components only appends. An entry whose component was
  // rescheduled meanwhile is stale and skipped (its scheduled_ differs).
  std::vector<std::uint64_t> tick_bits_;
  std::uint64_t bitmap_[kSlots / 64] = {};  // slots with messages or ticks
  std::priority_queue<Far, std::vector<Far>, std::greater<>> far_;
  std::priority_queue<FarTick, std::vector<FarTick>, std::greater<>> far_ticks_;
  std::vector<std::uint64_t> phase_;  // bitmap of component ids to tick in this cycle's tick phase
  std::vector<std::uint64_t> prefetchers_;  // bitmap of component ids that asked for prefetch()
  std::size_t pf_words_ = 0;                 // words of prefetchers_ with a bit set, at most
  std::uint64_t seq_ = 0;
  std::uint64_t events_ = 0, ticks_ = 0;
};

}  // namespace simfa
