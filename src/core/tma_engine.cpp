// TMA unit: request queue -> pipelined setup (one copy enters setup per cycle) -> in-order line
// generation -> responses. Completion order may differ from issue order.
#include "core/tma_engine.h"

#include <algorithm>

#include "sim/error.h"

namespace simfa::core {

TmaEngine::TmaEngine(const TmaParams& p, std::uint16_t sm, mem::MemorySystem& mem, Aeq& aeq, TmaClient& client)
    : p_(p), sm_(sm), mem_(mem), aeq_(aeq), client_(client), ring_(std::max<std::uint32_t>(1, p.queue_depth)),
      line_sectors_(std::max<std::uint32_t>(1, p.line_bytes / 32)) {}

TmaOp TmaEngine::take_op() {
  TmaOp op;
  if (!spare_lines_.empty()) {
    op.lines = std::move(spare_lines_.back());
    spare_lines_.pop_back();
    op.lines.clear();
  }
  op.pattern = {};
  return op;
}

std::uint32_t TmaEngine::enqueue(TmaOp&& op, Cycle now) {
  std::uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(ops_.size());
    ops_.emplace_back();
  }
  op.issued = now;
  op.ready_at = kNever;
  op.sent = op.done = op.deferred = 0;
  op.in_use = true;
  ops_[slot] = std::move(op);
  TmaOp& o = ops_[slot];
  if (!o.pattern.lines) o.pattern = {o.lines.data(), static_cast<std::uint32_t>(o.lines.size()), 0};
  SIMFA_ASSERT(qn_ < ring_.size(), fmt::format("sm[{}].tma", sm_), "request queue overflow at cycle {}", now);
  std::size_t tail = qh_ + qn_;
  if (tail >= ring_.size()) tail -= ring_.size();
  ring_[tail] = slot;
  ++qn_;
  if (qn_ == 1) refresh_head();
  if (ops_[slot].store) ++stores_; else ++loads_;
  busy_.set(now, true);
  return slot;
}

Cycle TmaEngine::setup_latency(const TmaOp& op) {
  Cycle lat = p_.launch_cycles;
  if (!op.tensor) return lat;
  lat += p_.tensormap_setup_cycles;
  auto it = std::find(desc_cache_.begin(), desc_cache_.end(), op.map);
  if (it == desc_cache_.end()) {
    ++desc_misses_;
    lat += p_.descriptor_miss_cycles;
    if (desc_cache_.size() >= p_.descriptor_cache_entries) desc_cache_.erase(desc_cache_.begin());
  } else {
    desc_cache_.erase(it);
  }
  desc_cache_.push_back(op.map);
  return lat;
}

// flatten: runs at nearly every SM tick, once per line sent.
[[gnu::flatten]] void TmaEngine::tick(Cycle now) {
  // Setup: one copy per cycle enters the setup pipeline. It is visible from the cycle after issue.
  if (setup_next_ < qn_ && last_setup_start_ != now) {
    const std::uint32_t slot = q_at(setup_next_);
    TmaOp& op = ops_[slot];
    if (op.issued < now) {
      op.ready_at = now + setup_latency(op);
      last_setup_start_ = now;
      ++setup_next_;
      aeq_.push(op.ready_at, AeqKind::TmaSetupDone, slot);
    }
  }
  // Generation: the head copy, in order.
  std::uint32_t budget = p_.lines_per_cycle;
  while (budget > 0 && qn_ != 0 && !port_blocked_) {
    const std::uint32_t slot = ring_[qh_];
    TmaOp& op = ops_[slot];
    if (op.ready_at > now) break;
    const std::uint32_t nlines = op.pattern.size;
    while (budget > 0 && op.sent < nlines) {
      const LineReq& l = op.pattern.lines[op.sent];
      if (!fits(l)) break;
      mem::MemReq r;
      r.line = op.pattern.base + l.line;
      r.sectors = l.sectors;
      r.tag = slot;
      r.sm = sm_;
      r.kind = op.store ? mem::ReqKind::TmaStore : mem::ReqKind::TmaLoad;
      r.issued = now;
      if (!mem_.try_send(r, now)) {
        port_blocked_ = true;
        ++port_stalls_;
        break;
      }
      ++op.sent;
      ++inflight_;
      inflight_sectors_ += sectors_of(l);
      ++lines_sent_;
      --budget;
    }
    if (op.sent < nlines) break;
    // All lines sent: the copy leaves the queue.
    if (++qh_ == ring_.size()) qh_ = 0;
    --qn_;
    --setup_next_;
    client_.tma_all_sent(op, now);
    if (op.done == nlines) {  // nothing to wait for (e.g. a box fully outside the tensor)
      client_.tma_complete(op, now);
      release(slot);
    }
  }
  refresh_head();
  if (qn_ == 0 && inflight_ == 0) busy_.set(now, false);
}

void TmaEngine::count_answer(TmaOp& op, std::uint8_t sectors) {
  --inflight_;
  inflight_sectors_ -= sectors ? mem::sector_count(sectors) : line_sectors_;
  ++op.done;
  bytes_ += 32ULL * mem::sector_count(sectors);
}

bool TmaEngine::on_response(const mem::MemReq& r, Cycle now) {
  TmaOp& op = answered(r.tag, now);
  apply_due(now);  // those taken ahead of time arrived earlier (the port hands out in order)
  // Generation of the head copy was held at the sector limit: it may go on now.
  bool need_tick = held_by_sectors();
  count_answer(op, r.sectors);
  if (op.done == op.pattern.size && op.sent == op.pattern.size) {
    // Still at the queue head only if it has not been popped yet (popped once all lines sent).
    client_.tma_complete(op, now);
    release(r.tag);
    need_tick = true;
  }
  if (qn_ == 0 && inflight_ == 0) busy_.set(now, false);
  return need_tick;
}

void TmaEngine::apply_deferred(Cycle now) {
  while (!deferred_.empty() && deferred_.front().at <= now) {
    const Deferred d = deferred_.front();
    deferred_.pop();
    TmaOp& op = ops_[d.tag];
    --op.deferred;
    count_answer(op, d.sectors);
    mem_.deferred_applied();
  }
}

void TmaEngine::release(std::uint32_t slot) {
  TmaOp& op = ops_[slot];
  op.in_use = false;
  spare_lines_.push_back(std::move(op.lines));
  op.lines = {};
  op.pattern = {};
  free_.push_back(slot);
}

void TmaEngine::register_stats(Stats& s, const std::string& prefix) {
  s.counter(prefix + ".loads", &loads_, "copies", "TMA load copies issued");
  s.counter(prefix + ".stores", &stores_, "copies", "TMA store copies issued");
  s.counter(prefix + ".lines", &lines_sent_, "lines", "line requests sent to memory");
  s.counter(prefix + ".bytes", &bytes_, "bytes", "bytes moved (touched sectors of answered lines)");
  s.counter(prefix + ".descriptor_misses", &desc_misses_, "copies", "descriptor-cache misses");
  s.counter(prefix + ".port_stalls", &port_stalls_, "events", "line sends refused by the memory port");
  s.counter(prefix + ".busy_cycles", busy_.raw_total(), "cycles", "cycles with a copy queued or lines in flight");
}

}  // namespace simfa::core
