// SM core: issue, waits with roll-back and precise wake-up, stages (ring-buffer mbarriers), named
// barriers with generations, WGMMA and TMA-store groups, CTA admission and retirement.
#include "core/sm.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::core {

using trace::Instr;
using trace::Op;

namespace {
constexpr std::uint32_t kLdgTag = 0x80000000u;
enum MsgTag : std::uint32_t { kRemoteTx = 1, kRemoteRelease = 2 };
struct RemoteMsg {
  std::uint64_t bytes;
  std::uint32_t cta;
  std::uint16_t sid;
};
}  // namespace

// ---- groups --------------------------------------------------------------------------------

std::uint64_t Sm::GroupList::open(std::uint16_t gid) {
  for (std::size_t i = g.size(); i-- > 0;)
    if (!g[i].committed && g[i].gid == gid) return base + i;
  g.push_back({gid, false, 0, 0, kNever});
  return base + g.size() - 1;
}

void Sm::GroupList::commit(std::uint16_t gid) {
  for (std::size_t i = g.size(); i-- > 0;)
    if (!g[i].committed && g[i].gid == gid) {
      g[i].committed = true;
      return;
    }
  g.push_back({gid, true, 0, 0, kNever});  // an empty group: complete at once
}

std::uint32_t Sm::GroupList::pending(std::uint16_t max_gid, bool unsent_only) const {
  std::uint32_t n = 0;
  for (const Group& x : g)
    if (x.committed && x.gid <= max_gid && (unsent_only ? x.unsent > 0 : x.outstanding > 0)) ++n;
  return n;
}

void Sm::GroupList::trim() {
  while (!g.empty() && g.front().committed && g.front().outstanding == 0 && g.front().unsent == 0) {
    g.pop_front();
    ++base;
  }
}

// ---- construction and admission ------------------------------------------------------------

Sm::Sm(std::uint16_t id, const SmParams& p, const trace::KernelInfo& k, bool validate, Engine& engine,
       mem::MemorySystem& mem, SmHost& host, Observer* obs)
    : id_(id), p_(p), sched_(warp_schedulers().get(p.scheduler).make()), k_(k), validate_(validate),
      engine_(engine), mem_(mem), host_(host), obs_(obs && obs->wants(id) ? obs : nullptr), tc_(p.tensor),
      tma_(p.tma, id, mem, aeq_, *this) {
  threads_.resize(p.wg_slots());
  ctas_.resize(p.max_ctas);
  mem.connect(id, this);
}

bool Sm::can_admit(const trace::KernelInfo& k) const {
  const std::uint32_t warps = (k.threads + 31) / 32;
  const std::uint32_t wgs = (k.threads + 127) / 128;
  std::uint32_t free_slots = 0;
  for (const auto& t : threads_) free_slots += !t.active;
  return ctas_live_ < p_.max_ctas && smem_used_ + k.smem <= p_.smem_bytes && regs_used_ + k.regs <= p_.regs &&
         warps_used_ + warps <= p_.max_warps && free_slots >= wgs;
}

bool Sm::has_timed_work(Cycle now) const {
  if (!bubble_threads_.empty() || sleep_until_ > now) return true;
  for (const std::uint32_t s : live_ctas_)
    if (ctas_[s].start > now) return true;
  return false;
}

void Sm::admit(trace::CtaProgram prog, std::uint32_t rank, Cycle now) {
  auto cs = std::find_if(ctas_.begin(), ctas_.end(), [](const Cta& c) { return !c.active; });
  SIMFA_ASSERT(cs != ctas_.end(), fmt::format("sm[{}]", id_), "no CTA slot at cycle {}", now);
  const auto cta_slot = static_cast<std::uint32_t>(cs - ctas_.begin());
  live_ctas_.insert(std::lower_bound(live_ctas_.begin(), live_ctas_.end(), cta_slot), cta_slot);
  Cta& c = *cs;
  c = Cta{};
  c.active = true;
  c.id = prog.id;
  c.rank = rank;
  c.stages.assign(k_.stages, Stage{});
  c.start = now;
  ++ctas_live_;
  ++draining_;  // no live thread yet
  smem_used_ += k_.smem;
  regs_used_ += k_.regs;
  warps_used_ += (k_.threads + 31) / 32;
  for (std::size_t w = 0; w < prog.wgs.size(); ++w) {
    auto ts = std::find_if(threads_.begin(), threads_.end(), [](const Thread& t) { return !t.active; });
    if (ts == threads_.end())
      throw UserError(fmt::format("CTA {} has {} WarpGroups but KERNEL threads={} reserves room for fewer", prog.id,
                                  prog.wgs.size(), k_.threads));
    const auto slot = static_cast<std::uint32_t>(ts - threads_.begin());
    live_threads_.insert(std::lower_bound(live_threads_.begin(), live_threads_.end(), slot), slot);
    Thread& t = *ts;
    t.mma.clear();
    t.store.clear();
    t.active = true;
    t.cta_slot = cta_slot;
    t.wg = static_cast<std::uint8_t>(w);
    t.role = prog.wgs[w].role;
    t.stream = std::move(prog.wgs[w].stream);
    t.buf.resize(p_.fetch_chunk);
    t.pos = t.len = 0;
    t.pc = 0;
    t.st = St::Ready;
    t.ready_at = now;
    min_ready_ = std::min(min_ready_, now);
    idle_next_ = std::min(idle_next_, now);
    t.post_wait = t.bar_registered = t.bar_released = t.ldg_done = false;
    t.age = next_age_++;
    t.stage_waits.assign(k_.stages, 0);
    t.stage_releases.assign(k_.stages, 0);
    t.prev_wgmma = t.slot_wait = t.in_bubble = false;
    t.issue_carry = 0;
    t.wgmma_slots = 0;
    c.threads.push_back(slot);
    if (c.live_threads++ == 0) --draining_;
    if (!fetch(t)) thread_done(slot, now);
  }
  engine_.wake(this, now);
}

// ---- the cycle -----------------------------------------------------------------------------

// flatten: the SM ticks about once per line request; the steps below inlined into it.
[[gnu::flatten]] Cycle Sm::tick(Cycle now) {
  tma_.apply_due(now);  // responses taken ahead of time (defer_response) that have arrived
  // Most ticks only let the TMA unit send lines (a response freed room under the sector limit, or
  // the head copy goes on sending): nothing is due in the AEQ, no bubble ends, the tensor pipe
  // cannot start, no thread can issue, no wait changed and no CTA drains. Steps 1-5 below would
  // then change nothing but the TMA unit, and step 6 would find the same bubble ends and ready
  // times as the last tick did (idle_next_): only the AEQ's head and the TMA unit's need can have
  // moved. When the TMA unit sent or completed a copy (dirty_), the full tick goes on from step 3.
  // Deferrable AEQ events (aeq.h) that nothing can observe now may be due: they wait (lazy_wake_).
  const bool tma_only = !dirty_ && min_ready_ > now && idle_next_ > now && draining_ == 0 &&
                        aeq_.must_next() > now && lazy_wake_ > now && ldg_pending_.empty() &&
                        !tc_.startable();
  if (tma_only) {
    tma_.tick(now);
    if (!dirty_) return std::min({aeq_.must_next(), lazy_wake_, idle_next_, tma_.next_need(now)});
    // The tick goes on: deferred events first, as step 1 would have applied them.
    while (aeq_.lazy_due(now)) apply_deferred(aeq_.pop_lazy());
  } else {
    tick_engines(now);
  }
  // 3. Wake threads whose waits became satisfied.
  if (dirty_) recheck(now);
  // 4. Issue.
  std::uint64_t picked = 0;
  // min_ready_ is a lower bound of the ready_at of Ready threads: when it is in the future no
  // thread is eligible and select() would find none.
  for (std::uint32_t w = 0; w < p_.issue_width && min_ready_ <= now; ++w) {
    const int s = select(now, picked);
    if (s < 0) break;
    picked |= 1ULL << s;
    issue(static_cast<std::uint32_t>(s), now);
  }
  if (picked) {
    ++c_.issue_cycles;
    host_.progress(now);
  }
  // 5. Issue may have satisfied other waits (they issue from the next cycle on).
  if (dirty_) recheck(now);
  for (std::size_t i = draining_ ? live_ctas_.size() : 0; i-- > 0;) {
    const Cta& c = ctas_[live_ctas_[i]];
    if (c.live_threads == 0 && c.outstanding == 0 && now >= c.finish_at) maybe_retire(live_ctas_[i], now);
  }
  // 6. When do we need to run again? (Also when a running bubble ends, a Done thread's too: the
  // others' rates change then.)
  Cycle bubble_end = kNever;
  for (std::uint32_t s : bubble_threads_) bubble_end = std::min(bubble_end, threads_[s].ready_at);
  Cycle min_ready = kNever;
  // Threads blocked on a WGMMA group (WGMMA_WAIT) and on an outstanding-WGMMA slot.
  std::uint64_t group_waiters = 0, slot_waiters = 0;
  for (std::uint32_t s : live_threads_) {
    const Thread& t = threads_[s];
    if (t.st == St::Ready) {
      min_ready = std::min(min_ready, t.ready_at);
    } else if (t.st == St::Blocked && !t.post_wait) {
      if (t.wait == SpanKind::WaitWgmma) group_waiters |= 1ULL << s;
      else if (t.wait == SpanKind::WaitWgmmaBuffer && t.slot_wait) slot_waiters |= 1ULL << s;
    }
  }
  min_ready_ = min_ready;
  // Both are > now unless a bubble ended or a thread is ready: then the fast path above is off.
  idle_next_ = std::min(bubble_end, min_ready);
  // A deferrable event changes only its thread's WGMMA groups (visible: what WGMMA_WAIT reads) or
  // slots (slot freed: what a thread over tensor.max_outstanding waits for) and its CTA's
  // outstanding count. Until that thread blocks on that (it blocks only in a tick, which recomputes
  // this) or a CTA drains, nothing reads them but the next tick, whose step 1 applies them first; a
  // timeline wants every span at its time.
  lazy_wake_ = obs_ || draining_ ? aeq_.lazy_next() : aeq_.lazy_next_of(group_waiters, slot_waiters);
  Cycle next = std::min({aeq_.must_next(), lazy_wake_, std::max(idle_next_, now + 1)});
  next = std::min(next, tma_.next_need(now));
  if (tc_.startable() || (!ldg_pending_.empty() && !port_blocked_)) next = std::min(next, now + 1);
  if (draining_) {
    for (std::uint32_t i : live_ctas_) {
      const Cta& c = ctas_[i];
      if (c.live_threads == 0 && c.outstanding == 0) next = std::min(next, std::max(c.finish_at, now + 1));
    }
  }
  return next;
}

// Steps 1 and 2 of a tick: AEQ completions, then the engines.
void Sm::tick_engines(Cycle now) {
  // 1. Async completions due now.
  bool pipe_changed = false;
  while (aeq_.due(now)) {
    const AeqEvent e = aeq_.pop();
    switch (e.kind) {
      case AeqKind::WgmmaDone:
        wgmma_left_pipe(now);
        pipe_changed = true;
        break;
      case AeqKind::WgmmaVisible:
      case AeqKind::WgmmaSlotFree: apply_deferred(e); break;
      default: break;  // TMA setup done: the wake is all
    }
  }
  // 2. Engines. Bubbles that ended free the CUDA-core pipes for the others.
  bool bubbles_changed = false;
  for (std::size_t i = bubble_threads_.size(); i-- > 0;) {
    if (threads_[bubble_threads_[i]].ready_at > now) continue;
    bubble_threads_.erase(bubble_threads_.begin() + static_cast<std::ptrdiff_t>(i));
    bubbles_changed = true;
  }
  tma_.tick(now);
  if (tc_.startable()) {
    // An RS WGMMA reads A from the register file: slower while another WarpGroup computes.
    const WgmmaJob& next = tc_.front();
    bool cuda_busy = false;
    for (std::uint32_t s : bubble_threads_) cuda_busy = cuda_busy || s != next.thread;
    const Cycle done = tc_.tick(now, next.rs && cuda_busy ? p_.tensor.rs_slowdown_with_cuda : 1.0);
    Group& g = threads_[next.thread].mma.at(next.group_serial);
    g.first_start = std::min(g.first_start, now);
    aeq_.push(done, AeqKind::WgmmaDone, next.thread);
    pipe_changed = true;
  }
  if ((pipe_changed || bubbles_changed) && !bubble_threads_.empty()) rerate_bubbles(now);
  while (!port_blocked_ && !ldg_pending_.empty()) {
    if (!mem_.try_send(ldg_pending_.front(), now)) {
      port_blocked_ = true;
      break;
    }
    ldg_pending_.pop_front();
  }
}

void Sm::apply_deferred(const AeqEvent& e) {
  if (e.kind == AeqKind::WgmmaVisible) {
    wgmma_visible(e.idx, e.t);  // its span ends at the event's time, whenever it is applied
    return;
  }
  Thread& t = threads_[e.idx];
  --t.wgmma_slots;
  --ctas_[t.cta_slot].outstanding;
  dirty_ = true;
}

class Sm::Candidates final : public IssueCandidates {
 public:
  Candidates(const Sm& sm, Cycle now, std::uint64_t picked)
      : IssueCandidates(sm.live_threads_, sm.last_), sm_(sm), now_(now), picked_(picked) {}
  bool eligible(std::uint32_t slot) const override {
    return !(picked_ >> slot & 1) && sm_.eligible(sm_.threads_[slot], now_);
  }
  std::uint64_t age(std::uint32_t slot) const override { return sm_.threads_[slot].age; }

 private:
  const Sm& sm_;
  Cycle now_;
  std::uint64_t picked_;
};

int Sm::select(Cycle now, std::uint64_t picked) {
  const int chosen = sched_->select(Candidates(*this, now, picked));
  if (chosen >= 0) last_ = chosen;
  return chosen;
}

bool Sm::fetch(Thread& t) {
  if (t.pos < t.len) return true;
  if (!t.stream) return false;
  t.len = static_cast<std::uint32_t>(t.stream->read(t.buf.data(), t.buf.size()));
  t.pos = 0;
  if (t.len == 0) {
    t.stream.reset();
    return false;
  }
  if (validate_) {
    for (std::uint32_t i = 0; i < t.len; ++i)
      if (auto e = trace::validate(t.buf[i], k_))
        throw UserError(fmt::format("{}: {}: {}", t.stream->where(t.pc + i), trace::op_name(t.buf[i].op), *e));
  }
  return true;
}

void Sm::advance(std::uint32_t slot, Cycle now, Cycle ready_at) {
  Thread& t = threads_[slot];
  t.prev_wgmma = false;
  ++t.pc;
  ++t.pos;
  t.st = St::Ready;
  t.ready_at = ready_at;
  min_ready_ = std::min(min_ready_, ready_at);
  if (!fetch(t)) thread_done(slot, now);
}

void Sm::block(std::uint32_t slot, SpanKind why, Cycle now) {
  Thread& t = threads_[slot];
  t.st = St::Blocked;
  t.wait = why;
  t.wait_since = now;
}

bool Sm::satisfied(const Thread& t) const {
  if (t.post_wait) return t.ldg_done;
  const Instr& in = t.buf[t.pos];
  const Cta& c = ctas_[t.cta_slot];
  switch (t.wait) {
    case SpanKind::WaitTmaQueue: return !tma_.full();
    case SpanKind::WaitWgmmaBuffer:
      return t.slot_wait ? t.wgmma_slots <= p_.tensor.max_outstanding : !tc_.full();
    case SpanKind::WaitStage: return c.stages[in.id].fills > t.consumed(in.id);
    case SpanKind::WaitAcquire: return c.stages[in.id].releases >= arrivals_needed(c.stages[in.id]);
    case SpanKind::WaitBarrier: return t.bar_released;
    case SpanKind::WaitWgmma: return t.mma.pending(in.id, false) <= in.max_pending();
    case SpanKind::WaitTmaStore: return t.store.pending(in.id, in.mode != 0) <= in.max_pending();
    default: return false;
  }
}

bool Sm::asleep(Cycle now) const {
  if (!tma_.idle()) return false;
  for (std::uint32_t s : live_threads_) {
    const Thread& t = threads_[s];
    if (t.sleep_until <= now) return false;
  }
  return true;
}

void Sm::recheck(Cycle now) {
  dirty_ = false;
  for (std::uint32_t s : live_threads_) {
    Thread& t = threads_[s];
    if (t.st != St::Blocked || !satisfied(t)) continue;
    c_.wait_cycles[static_cast<int>(t.wait)] += now - t.wait_since;
    span(t.wait, t, t.post_wait ? 0 : t.buf[t.pos].id, t.wait_since, now);
    t.st = St::Ready;
    t.ready_at = now;
    min_ready_ = std::min(min_ready_, now);
    if (t.post_wait) {
      t.post_wait = false;
      if (!fetch(t)) thread_done(s, now);
    }
  }
}

void Sm::issue(std::uint32_t slot, Cycle now) {
  Thread& t = threads_[slot];
  if (t.in_bubble) close_bubble(slot);
  // Over the outstanding-WGMMA limit after its last WGMMA: nothing issues until a slot frees.
  if (t.slot_wait) {
    if (t.wgmma_slots > p_.tensor.max_outstanding) return block(slot, SpanKind::WaitWgmmaBuffer, now);
    t.slot_wait = false;
  }
  const Instr in = t.buf[t.pos];
  // Sampled simulation's own instructions (docs/sampling.md): not the kernel's, not counted.
  if (in.op == Op::BUBBLE && (in.flags & trace::kBubbleSleep)) {
    // Work that is not simulated: the thread waits, using no pipe.
    sleep_until_ = std::max(sleep_until_, now + in.cycles());
    t.sleep_until = now + in.cycles();
    return advance(slot, now, t.sleep_until);
  }
  if ((in.op == Op::TMA_TENSOR || in.op == Op::TMA_BULK || in.op == Op::TMA_STORE) && (in.flags & trace::kTmaWarm)) {
    // Functional warming: the skipped work's lines enter the L2; nothing else happens.
    warm_lines_.clear();
    copy_lines(k_, in, p_.tma.line_bytes, warm_lines_);
    for (const LineReq& l : warm_lines_) mem_.warm(l.line, l.sectors, in.op == Op::TMA_STORE);
    return advance(slot, now, now + 1);
  }
  Cta& c = ctas_[t.cta_slot];
  ++c_.issued;
  ++c_.by_op[static_cast<int>(in.op)];
  switch (in.op) {
    case Op::TMA_TENSOR:
    case Op::TMA_BULK:
    case Op::TMA_STORE: {
      // A copy moves between global and shared memory, so it fits in a CTA's shared memory (this also
      // bounds the line list the TMA unit builds: a 4 GiB copy would hold 33 million lines in host memory).
      const std::uint64_t bytes = copy_bytes(k_, in);
      if (bytes > p_.max_smem_per_cta) [[unlikely]]
        throw UserError(fmt::format("{}: {}: a copy of {} bytes does not fit in a CTA's shared memory of {} bytes "
                                    "(sm.max_smem_per_cta)",
                                    t.stream ? t.stream->where(t.pc) : "trace", trace::op_name(in.op), bytes,
                                    p_.max_smem_per_cta));
      if (tma_.full()) return block(slot, SpanKind::WaitTmaQueue, now);
      TmaOp op = tma_.take_op();
      op.store = in.op == Op::TMA_STORE;
      op.tensor = in.op != Op::TMA_BULK;
      op.thread = slot;
      op.cta_slot = t.cta_slot;
      op.id = in.id;
      op.mc = in.mc;
      op.map = in.map;
      if (in.op == Op::TMA_BULK) {
        bulk_lines(in.gmem, in.bytes(), p_.tma.line_bytes, op.lines);
        op.tx_bytes = in.bytes();
      } else {
        const trace::TensorMap& m = k_.tmap(in.map);
        if (!host_.box_patterns().find(m, in.gmem, p_.tma.dedup, p_.tma.line_bytes, op.pattern))
          tensor_box_lines(m, in.gmem, p_.tma.dedup, p_.tma.line_bytes, op.lines);
        op.tx_bytes = m.box_bytes();
      }
      if (op.store) {
        op.group_serial = t.store.open(in.id);
        Group& g = t.store.at(op.group_serial);
        ++g.outstanding;
        ++g.unsent;
        g.first_start = std::min(g.first_start, now);
      }
      ++c.outstanding;
      tma_.enqueue(std::move(op), now);
      return advance(slot, now, now + 1);
    }
    case Op::MB_WAIT: {
      const std::uint64_t phase = t.consumed(in.id);
      if (c.stages[in.id].fills <= phase) return block(slot, SpanKind::WaitStage, now);
      t.stage_waits[in.id] = phase + 1;
      return advance(slot, now, now + 1);
    }
    case Op::ACQUIRE_STAGE: {
      Stage& s = c.stages[in.id];
      if (s.releases < arrivals_needed(s)) return block(slot, SpanKind::WaitAcquire, now);
      ++s.acquires;
      s.armed = true;
      s.armed_tx = in.tx_bytes();
      check_fill(s);
      return advance(slot, now, now + 1);
    }
    case Op::RELEASE_STAGE: {
      ++t.stage_releases[in.id];
      const std::uint32_t mask = in.mc ? in.mc : 1u << c.rank;
      for (std::uint32_t r = 0; r < 16; ++r) {
        if (!(mask >> r & 1)) continue;
        if (r == c.rank) {
          ++c.stages[in.id].releases;
          dirty_ = true;
        } else if (Sm* peer = host_.sm_of(c.id - c.rank + r)) {
          peer->remote_release(c.id - c.rank + r, in.id, now + p_.cluster_signal_cycles);
        } else {
          ++c_.late_cluster_msgs;
        }
      }
      return advance(slot, now, now + 1);
    }
    case Op::TMA_COMMIT:
      t.store.commit(in.id);
      t.store.trim();
      return advance(slot, now, now + 1);
    case Op::TMA_WAIT:
      if (t.store.pending(in.id, in.mode != 0) > in.max_pending()) return block(slot, SpanKind::WaitTmaStore, now);
      return advance(slot, now, now + 1);
    case Op::WGMMA: {
      if (tc_.full()) return block(slot, SpanKind::WaitWgmmaBuffer, now);
      const bool rs = in.mode == static_cast<std::uint8_t>(trace::MmaMode::RS);
      const std::uint64_t serial = t.mma.open(in.id);
      ++t.mma.at(serial).outstanding;
      tc_.push({slot, serial, tc_.cycles_for(in), tc_.flops_for(in), rs});
      c.outstanding += 2;  // until its result is visible and until its outstanding slot frees
      // The WarpGroup is busy issuing: the first WGMMA after other work costs more than one that
      // follows a WGMMA (N/8 - 4 cycles, + the RS extra).
      const TensorParams& tp = p_.tensor;
      const double cost = t.prev_wgmma
                              ? std::max(1.0, in.n * tp.issue_per_column + tp.issue_offset + (rs ? tp.rs_extra_cycles : 0.0))
                              : (rs ? tp.first_issue_rs : tp.first_issue_ss);
      const double want = cost + t.issue_carry;
      const double whole = std::max(1.0, std::floor(want));
      t.issue_carry = want - whole;
      if (++t.wgmma_slots > tp.max_outstanding) t.slot_wait = true;
      advance(slot, now, now + static_cast<Cycle>(whole));
      t.prev_wgmma = true;
      return;
    }
    case Op::WGMMA_COMMIT: {
      t.mma.commit(in.id);
      t.mma.trim();
      return advance(slot, now, now + 1);
    }
    case Op::WGMMA_WAIT:
      if (t.mma.pending(in.id, false) > in.max_pending()) return block(slot, SpanKind::WaitWgmma, now);
      return advance(slot, now, now + 1);
    case Op::BAR_ARRIVE:
      arrive(c, in.id);
      return advance(slot, now, now + 1);
    case Op::BAR_WAIT: {
      if (!t.bar_registered) {
        Barrier& b = c.bars[in.id];
        const std::uint32_t need = in.arrivals() + 1;
        if (b.need && b.need != need)
          throw UserError(fmt::format("{}: BAR_WAIT {} {} while another WarpGroup of CTA {} waits for {} arrivals",
                                      t.stream ? t.stream->where(t.pc) : "trace", in.id, in.arrivals(), c.id, b.need - 1));
        t.bar_registered = true;
        b.need = need;
        b.waiters |= 1ULL << slot;
        arrive(c, in.id);
      }
      if (!t.bar_released) return block(slot, SpanKind::WaitBarrier, now);
      t.bar_registered = t.bar_released = false;
      return advance(slot, now, now + 1);
    }
    case Op::BUBBLE: {
      c_.bubble_cycles += in.cycles();
      // CUDA-core work: `cycles` cycles with the SM to itself, slower while the tensor pipe runs
      // and while other bubbles run (rerate_bubbles sets its end); a fixed one takes `cycles`.
      t.in_bubble = true;
      t.bubble_fixed = (in.flags & trace::kBubbleFixed) != 0;
      t.bubble_left = in.cycles();
      t.bubble_rate = 1.0;
      t.bubble_since = t.bubble_start = now;
      bubble_threads_.push_back(slot);
      advance(slot, now, now + in.cycles());
      return rerate_bubbles(now);  // its end, and the others' now that it shares their pipes
    }
    case Op::LDG: {
      mem::MemReq r;
      r.line = in.gmem / p_.tma.line_bytes * p_.tma.line_bytes;
      r.sectors = sector_mask(r.line, in.gmem, in.gmem + in.bytes(), p_.tma.line_bytes);
      r.tag = kLdgTag | slot;
      r.sm = id_;
      r.kind = mem::ReqKind::Load;
      r.issued = now;
      bool sent = false;
      if (!port_blocked_ && ldg_pending_.empty()) {
        sent = mem_.try_send(r, now);
        port_blocked_ = !sent;
      }
      if (!sent) ldg_pending_.push_back(r);
      ++c.outstanding;
      t.ldg_done = false;
      t.post_wait = true;
      ++t.pc;
      ++t.pos;
      return block(slot, SpanKind::WaitLoad, now);
    }
    case Op::kCount: break;
  }
  SIMFA_ASSERT(false, fmt::format("sm[{}]", id_), "unknown opcode at cycle {}", now);
}

// ---- WGMMA retirement and CUDA-core slowdown -----------------------------------------------

// The running WGMMA left the pipe: the pipe is free now, its result reaches wait_group a tail
// later, and its outstanding slot frees later still (tensor.*; docs/architecture.md).
void Sm::wgmma_left_pipe(Cycle now) {
  const WgmmaJob j = tc_.complete(now);
  const TensorParams& tp = p_.tensor;
  const double tail = (j.rs ? tp.lone_latency_rs : tp.lone_latency_ss) - 1.0;  // pipe starts 1 cycle after issue
  std::uint32_t idx;
  if (!retiring_free_.empty()) {
    idx = retiring_free_.back();
    retiring_free_.pop_back();
    retiring_[idx] = {j.thread, j.group_serial};
  } else {
    idx = static_cast<std::uint32_t>(retiring_.size());
    retiring_.push_back({j.thread, j.group_serial});
  }
  aeq_.push(now + static_cast<Cycle>(std::max(0.0, std::round(tail))), AeqKind::WgmmaVisible, idx, j.thread);
  const double release = j.rs ? tp.slot_release_rs : tp.slot_release_ss;
  aeq_.push(now + static_cast<Cycle>(std::max(0.0, std::round(release))), AeqKind::WgmmaSlotFree, j.thread,
            j.thread);
}

void Sm::wgmma_visible(std::uint32_t idx, Cycle now) {
  const Retiring r = retiring_[idx];
  retiring_free_.push_back(idx);
  Thread& t = threads_[r.thread];
  Group& g = t.mma.at(r.serial);
  if (--g.outstanding == 0 && g.committed) {
    span(SpanKind::WgmmaGroup, t, g.gid, g.first_start, now);
    t.mma.trim();
  }
  --ctas_[t.cta_slot].outstanding;
  dirty_ = true;
}

double Sm::bubble_rate(const Thread& t, std::size_t running) const {
  if (t.bubble_fixed || !p_.cuda.interference) return 1.0;
  double slow = p_.cuda.share_slowdown(running);
  if (tc_.running()) slow *= tc_.front().rs ? p_.cuda.slowdown_under_rs : p_.cuda.slowdown_under_ss;
  return 1.0 / slow;
}

// The tensor pipe started or stopped, or a bubble started or ended: every running bubble has done
// its work at its old rate until now and finishes at its new one from now on.
void Sm::rerate_bubbles(Cycle now) {
  const std::size_t running = bubble_threads_.size();
  for (std::uint32_t s : bubble_threads_) {
    Thread& t = threads_[s];
    t.bubble_left = std::max(0.0, t.bubble_left - static_cast<double>(now - t.bubble_since) * t.bubble_rate);
    t.bubble_since = now;
    t.bubble_rate = bubble_rate(t, running);
    set_bubble_end(t, now + static_cast<Cycle>(std::ceil(t.bubble_left / t.bubble_rate - 1e-9)));
  }
}

void Sm::set_bubble_end(Thread& t, Cycle end) {
  // No AEQ event: the tick's next-wake computation covers every running bubble's end, so the end
  // can move as often as the tensor pipe changes without stale wake-ups.
  t.ready_at = end;
  if (t.st == St::Ready) {
    min_ready_ = std::min(min_ready_, end);
  } else if (t.st == St::Done) {
    // The stream ended with this bubble: the CTA finishes when its last bubble does.
    Cta& c = ctas_[t.cta_slot];
    Cycle fin = 0;
    for (std::uint32_t s : c.threads) fin = std::max(fin, threads_[s].ready_at);
    c.finish_at = fin;
  }
}

void Sm::close_bubble(std::uint32_t slot) {
  Thread& t = threads_[slot];
  t.in_bubble = false;
  span(SpanKind::Bubble, t, 0, t.bubble_start, t.ready_at);
  c_.bubble_elapsed += t.ready_at - t.bubble_start;
  // The tick that reached its end took it out of the running set already.
  const auto it = std::find(bubble_threads_.begin(), bubble_threads_.end(), slot);
  if (it != bubble_threads_.end()) bubble_threads_.erase(it);
}

// ---- synchronization objects ---------------------------------------------------------------

void Sm::check_fill(Stage& s) {
  if (s.armed && s.recv_tx >= s.armed_tx) {
    s.recv_tx -= s.armed_tx;
    s.armed = false;
    ++s.fills;
    dirty_ = true;
  }
}

void Sm::deliver_tx(Cta& c, std::uint16_t sid, std::uint64_t bytes) {
  Stage& s = c.stages[sid];
  s.recv_tx += bytes;
  check_fill(s);
}

void Sm::arrive(Cta& c, std::uint16_t bid) {
  Barrier& b = c.bars[bid];
  ++b.count;
  if (b.need == 0 || b.count < b.need) return;
  for (std::uint64_t w = b.waiters; w; w &= w - 1) threads_[std::countr_zero(w)].bar_released = true;
  b.count -= b.need;
  b.need = 0;
  b.waiters = 0;
  dirty_ = true;
}

Sm::Cta* Sm::find_cta(std::uint32_t id) {
  for (Cta& c : ctas_)
    if (c.active && c.id == id) return &c;
  return nullptr;
}

void Sm::remote_tx(std::uint32_t cta, std::uint16_t sid, std::uint64_t bytes, Cycle at) {
  engine_.send(this, kRemoteTx, Payload::of(RemoteMsg{bytes, cta, sid}), at);
}

void Sm::remote_release(std::uint32_t cta, std::uint16_t sid, Cycle at) {
  engine_.send(this, kRemoteRelease, Payload::of(RemoteMsg{0, cta, sid}), at);
}

void Sm::on_event(std::uint32_t tag, const Payload& p, Cycle now) {
  const auto m = p.as<RemoteMsg>();
  Cta* c = find_cta(m.cta);
  if (!c) {
    ++c_.late_cluster_msgs;
    return;
  }
  if (tag == kRemoteTx) {
    deliver_tx(*c, m.sid, m.bytes);
  } else {
    ++c->stages[m.sid].releases;
    dirty_ = true;
  }
  engine_.wake(this, now);
}

[[gnu::flatten]] void Sm::on_response(const mem::MemReq& r, Cycle now) {
  host_.progress(now);  // the memory system moves data: no livelock (watchdog)
  if (r.tag & kLdgTag) {
    Thread& t = threads_[r.tag & ~kLdgTag];
    t.ldg_done = true;
    --ctas_[t.cta_slot].outstanding;
    dirty_ = true;
    engine_.wake(this, now);
  } else if (tma_.on_response(r, now)) {
    engine_.wake(this, now);
  }
  // Otherwise the response changed nothing this SM's tick depends on (see TmaEngine::on_response);
  // any tick it needs is already scheduled.
}

// flatten: once per line response.
[[gnu::flatten]] bool Sm::defer_response(const mem::MemReq& r, Cycle at, Cycle now) {
  // The reference mode (every component ticks every cycle) keeps a message per response, so that
  // the tests comparing the two modes compare this shortcut with the plain path.
  if (!engine_.skip_idle() || (r.tag & kLdgTag) || !tma_.defer(r, at)) return false;
  host_.progress(at);  // the watchdog's last progress is the latest one known
  if (tma_.held_by_sectors()) engine_.wake(this, at);
  return true;
}

void Sm::settle(Cycle now) { tma_.apply_due(now); }

void Sm::on_retry(Cycle now) {
  port_blocked_ = false;
  tma_.on_retry(now);
  engine_.wake(this, now);
}

void Sm::tma_all_sent(TmaOp& op, Cycle now) {
  if (op.store) --threads_[op.thread].store.at(op.group_serial).unsent;
  dirty_ = true;  // queue space freed; store groups may have been read
}

void Sm::tma_complete(TmaOp& op, Cycle now) {
  Thread& t = threads_[op.thread];
  Cta& c = ctas_[op.cta_slot];
  if (op.store) {
    Group& g = t.store.at(op.group_serial);
    --g.outstanding;
    span(SpanKind::TmaStore, t, op.id, op.issued, now);
    t.store.trim();
  } else {
    const std::uint32_t mask = op.mc ? op.mc : 1u << c.rank;
    for (std::uint32_t r = 0; r < 16; ++r) {
      if (!(mask >> r & 1)) continue;
      if (r == c.rank) deliver_tx(c, op.id, op.tx_bytes);
      else if (Sm* peer = host_.sm_of(c.id - c.rank + r))
        peer->remote_tx(c.id - c.rank + r, op.id, op.tx_bytes, now + p_.cluster_multicast_cycles);
      else
        ++c_.late_cluster_msgs;
    }
    span(SpanKind::TmaLoad, t, op.id, op.issued, now);
  }
  --c.outstanding;
  dirty_ = true;
}

// ---- threads and CTAs ----------------------------------------------------------------------

void Sm::thread_done(std::uint32_t slot, Cycle now) {
  Thread& t = threads_[slot];
  t.st = St::Done;
  Cta& c = ctas_[t.cta_slot];
  if (--c.live_threads == 0) ++draining_;
  c.finish_at = std::max(c.finish_at, t.ready_at);
}

void Sm::maybe_retire(std::uint32_t cta_slot, Cycle now) {
  Cta& c = ctas_[cta_slot];
  if (c.live_threads != 0 || c.outstanding != 0 || now < c.finish_at) return;
  for (std::uint32_t s : c.threads) {
    Thread& t = threads_[s];
    if (t.in_bubble) close_bubble(s);
    t.active = false;
    t.stream.reset();
    live_threads_.erase(std::lower_bound(live_threads_.begin(), live_threads_.end(), s));
  }
  live_ctas_.erase(std::lower_bound(live_ctas_.begin(), live_ctas_.end(), cta_slot));
  if (obs_) obs_->span({SpanKind::Cta, id_, 0, 0, c.id, c.start, now});
  c.active = false;
  --ctas_live_;
  --draining_;
  smem_used_ -= k_.smem;
  regs_used_ -= k_.regs;
  warps_used_ -= (k_.threads + 31) / 32;
  ++c_.ctas;
  host_.cta_retired(id_, c.id, now);
}

void Sm::span(SpanKind k, const Thread& t, std::uint16_t id, Cycle start, Cycle end) {
  if (obs_) obs_->span({k, id_, t.wg, id, ctas_[t.cta_slot].id, start, end});
}

// ---- reporting -----------------------------------------------------------------------------

void Sm::finish(Cycle now) {
  tma_.apply_due(now);
  tc_.busy.set(now, false);
  tma_.finish(now);
}

void Sm::report_blocked(std::string& out) const {
  for (std::uint32_t s = 0; s < threads_.size(); ++s) {
    const Thread& t = threads_[s];
    if (!t.active || t.st == St::Done) continue;
    const Cta& c = ctas_[t.cta_slot];
    std::string where = t.stream ? t.stream->where(t.post_wait ? t.pc - 1 : t.pc) : "end of stream";
    const Instr& in = t.post_wait ? t.buf[t.pos - 1] : t.buf[t.pos];
    std::string why = "ready";
    if (t.st == St::Blocked) {
      switch (t.wait) {
        case SpanKind::WaitStage: {
          const Stage& st = c.stages[in.id];
          why = fmt::format("waits for fill {} of stage {} (fills completed: {}, bytes armed {} / received {})",
                            t.consumed(in.id) + 1, in.id, st.fills, st.armed ? st.armed_tx : 0, st.recv_tx);
          break;
        }
        case SpanKind::WaitAcquire: {
          const Stage& st = c.stages[in.id];
          why = fmt::format("waits for stage {} to be released ({} of {} RELEASE_STAGEs arrived)", in.id,
                            st.releases, arrivals_needed(st));
          break;
        }
        case SpanKind::WaitBarrier: {
          const Barrier& b = c.bars[in.id];
          why = fmt::format("waits on named barrier {} ({} of {} arrivals, counting itself)", in.id, b.count, b.need);
          break;
        }
        case SpanKind::WaitWgmma:
          why = fmt::format("waits for WGMMA groups <= {} ({} committed groups in flight, allowed {})", in.id,
                            t.mma.pending(in.id, false), in.max_pending());
          break;
        case SpanKind::WaitTmaStore:
          why = fmt::format("waits for TMA store groups <= {} ({} pending, allowed {})", in.id,
                            t.store.pending(in.id, in.mode != 0), in.max_pending());
          break;
        case SpanKind::WaitTmaQueue: why = "waits for room in the TMA request queue"; break;
        case SpanKind::WaitWgmmaBuffer:
          why = t.slot_wait ? fmt::format("waits for one of its {} outstanding WGMMAs to retire (tensor.max_outstanding)",
                                          t.wgmma_slots)
                            : "waits for room in the WGMMA issue buffer";
          break;
        case SpanKind::WaitLoad: why = fmt::format("waits for the load of {:#x}", in.gmem); break;
        default: break;
      }
    }
    out += fmt::format("  sm {} cta {} wg {}{} pc {} at {}: {} -- {}\n", id_, c.id, t.wg,
                       t.role.empty() ? "" : " (" + t.role + ")", t.post_wait ? t.pc - 1 : t.pc, where,
                       trace::format(in), why);
  }
}

void Sm::register_stats(Stats& s) {
  const std::string p = fmt::format("gpu.sm[{}]", id_);
  s.counter(p + ".instructions", &c_.issued, "instructions", "WarpGroup instructions issued");
  s.counter(p + ".issue_cycles", &c_.issue_cycles, "cycles", "cycles in which the SM issued");
  s.counter(p + ".ctas", &c_.ctas, "CTAs", "CTAs executed to completion");
  s.counter(p + ".bubble_cycles", &c_.bubble_cycles, "cycles", "thread-cycles of bubbles (CUDA-core work)");
  s.counter(p + ".bubble_elapsed_cycles", &c_.bubble_elapsed, "cycles",
            "thread-cycles bubbles took, slowed while the tensor pipe ran (sm.interference)");
  s.counter(p + ".late_cluster_messages", &c_.late_cluster_msgs, "messages",
            "cluster signals for a CTA no longer resident (dropped)");
  for (int k = 0; k < static_cast<int>(SpanKind::TmaLoad); ++k) {
    if (k == static_cast<int>(SpanKind::Bubble)) continue;
    s.counter(fmt::format("{}.wait_cycles.{}", p, span_name(static_cast<SpanKind>(k))), &c_.wait_cycles[k],
              "thread-cycles", "thread-cycles blocked on this kind of wait");
  }
  s.counter(p + ".tensor.busy_cycles", tc_.busy.raw_total(), "cycles", "cycles the tensor pipe was busy");
  s.counter(p + ".tensor.wgmmas", &tc_.wgmmas, "instructions", "WGMMAs executed");
  s.counter(p + ".tensor.flops", &tc_.flops, "FLOP", "tensor FLOPs executed");
  tma_.register_stats(s, p + ".tma");
}

}  // namespace simfa::core
