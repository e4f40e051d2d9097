// Channel: at each DRAM edge every pseudo-channel updates its refresh deadline and read/write
// drain mode, then proposes a row command (refresh first, else its scheduler's) and a column
// command; the channel grants each command bus to the oldest proposal (refresh counts as oldest),
// issues the winners and computes the next edge at which anything can happen.
#include "mem/dram/channel.h"

#include <algorithm>
#include <bit>

#include "sim/error.h"

namespace simfa::mem {

Channel::Channel(const DramParams& p, const ClockDomain& clk, const DramScheduler& sched,
                 std::uint32_t index, Engine& engine, DramClient* client)
    : p_(p), clk_(clk), sched_(sched), index_(index), engine_(engine), client_(client) {
  const std::uint32_t total = p.channels * p.pseudo_channels;
  for (std::uint32_t i = 0; i < p.pseudo_channels; ++i)
    pcs_.emplace_back(PcTiming(p.t, p.bank_groups, p.banks_per_group),
                      Refresh(p.refresh, p.t, p.banks(), index * p.pseudo_channels + i, total),
                      p.banks());
  indexed_ = p.read_queue <= BankIndex::kMaxQueue && p.write_queue <= BankIndex::kMaxQueue;
  for (Pc& pc : pcs_) {
    pc.rq.reserve(p.read_queue);
    pc.wq.reserve(p.write_queue);
  }
}

void Channel::start() {
  for (const Pc& pc : pcs_) next_ = std::min(next_, pc.refresh.due());
  if (next_ != kNeverD) engine_.wake(this, clk_.to_core(next_));
}

bool Channel::try_enqueue(const DramReq& r, const DramCoord& c, std::uint64_t seq, Cycle now) {
  Pc& pc = pcs_[c.pc];
  std::vector<DramEntry>& q = r.write ? pc.wq : pc.rq;
  if (q.size() >= (r.write ? p_.write_queue : p_.read_queue)) {
    ++n_.refusals;
    (r.write ? pc.refused_write : pc.refused_read) = true;
    return false;
  }
  // Bursts touched by the sector mask (32-byte sectors; a burst covers burst_bytes).
  const std::uint32_t sectors = p_.line_bytes / 32;
  const std::uint32_t mask =
      r.sectors == 0 ? (1u << sectors) - 1 : r.sectors & ((1u << sectors) - 1);
  std::uint32_t bursts = 0, seen = 0;
  for (std::uint32_t s = 0; s < sectors; ++s)
    if (mask & (1u << s)) {
      const std::uint32_t b = s * 32 / p_.burst_bytes();
      if (!(seen & (1u << b))) ++bursts, seen |= 1u << b;
    }
  SIMFA_ASSERT(bursts > 0, "dram", "request for line {:#x} with sector mask {:#x} moves no data",
               r.line, r.sectors);
  DramEntry e;
  e.req = r;
  e.seq = seq;
  e.arrival = now;
  e.row = c.row;
  e.bank = static_cast<std::uint8_t>(c.bank);
  e.bursts = e.bursts_left = static_cast<std::uint8_t>(bursts);
  q.push_back(e);
  (r.write ? pc.wq_newest : pc.rq_newest) = now;
  if (indexed_) {
    const bool hit = pc.timing.bank(e.bank).open_row == e.row;
    (r.write ? pc.wbanks : pc.rbanks).push(e.bank, q.size() - 1, hit);
  }
  if (!pc.dirty && changes_pick(pc, r.write, c)) pc.dirty = true;
  ++in_flight_;
  const DCycle edge = clk_.last_edge(now) + 1;  // first edge at which the request is visible
  next_ = std::min(next_, edge);
  engine_.wake(this, clk_.to_core(edge));
  return true;
}

// Whether a request just queued can change what the last scan of its pseudo-channel decided (so
// that it must look again). It cannot when it joins the queue being served behind an older
// request of its bank in the same row state (hit, closed bank or conflict: the scan weighed that
// one, and FR-FCFS takes the oldest of each), or joins the other queue without turning the drain
// mode at the next look (a read while writes drain above the low watermark; a write while reads
// wait, below the high watermark).
bool Channel::changes_pick(const Pc& pc, bool write, const DramCoord& c) const {
  if (write != pc.draining) {
    if (write) return pc.rq_visible == 0 || pc.wq.size() >= p_.write_high;
    return pc.wq_visible <= p_.write_low;
  }
  const std::uint32_t open = pc.timing.bank(c.bank).open_row;
  const std::uint64_t seen = open == c.row    ? pc.cover_hit
                             : open == kNoRow ? pc.cover_closed
                                              : pc.cover_conflict;
  return !(seen & (1ULL << c.bank));
}

// flatten: one DRAM edge per tick, most of them in process().
[[gnu::flatten]] Cycle Channel::tick(Cycle now) {
  const DCycle last = clk_.last_edge(now);
  DCycle d = now == 0 ? 0 : clk_.last_edge(now - 1) + 1;
  if (processed_ != kNeverD && d <= processed_) d = processed_ + 1;
  const bool reference = !engine_.skip_idle();
  SIMFA_ASSERT(reference || next_ >= d, fmt::format("dram.ch[{}]", index_),
               "edge {} needed processing but the channel woke at edge {} (core cycle {})", next_,
               d, now);
  for (; d <= last; ++d) {
    if (!reference && next_ > d) {
      if (next_ > last) break;
      d = next_;
    }
    next_ = process(d, now);
    processed_ = d;
  }
  return next_ == kNeverD ? kNever : clk_.to_core(next_);
}

DCycle Channel::process(DCycle at, Cycle now) {
  const DCycle expected = next_;
  Candidate row, col;
  bool lost = false;  // a ready command did not get its bus: run again next edge
  DCycle next = kNeverD;
  auto offer = [&](Candidate& slot, const Candidate& c) {
    if (slot.pc < 0 || c.age < slot.age) {
      if (slot.pc >= 0) lost = true;
      slot = c;
    } else {
      lost = true;
    }
  };
  for (std::size_t i = 0; i < pcs_.size(); ++i) {
    Pc& pc = pcs_[i];
    const int pi = static_cast<int>(i);
    // Unchanged since its last scan, nothing is ready yet (the reference mode always scans).
    if (!pc.dirty && at < pc.ready_at && engine_.skip_idle()) {
      next = std::min(next, pc.ready_at);
      continue;
    }
    const bool changed = pc.dirty;
    pc.dirty = false;
    DCycle pc_next = kNeverD;
    // A fast-forward span of a sampled run (quiet_until): an idle pseudo-channel, its banks closed,
    // counts the refreshes due until two intervals before the span ends instead of simulating each
    // (they change no row and no request waits on them). The last two run as usual, so that the
    // first request after the span meets the refresh state a simulated idle period leaves: a
    // method choice, checked by DramSystem.AQuietPeriodCountsItsRefreshesWithoutSimulatingThem.
    if (quiet_ > at && pc.rq.empty() && pc.wq.empty() && pc.timing.all_closed()) {
      const DCycle margin = 2 * pc.refresh.interval();
      if (quiet_ - at > margin) n_.refreshes += pc.refresh.skip_before(quiet_ - margin);
    }
    pc.refresh.update(at);
    // Requests accepted in this core cycle are not visible yet (they sit at the queue tails).
    auto visible = [now](const std::vector<DramEntry>& q, Cycle newest) {
      std::size_t v = q.size();
      if (newest < now) return v;
      while (v > 0 && q[v - 1].arrival >= now) --v;
      return v;
    };
    pc.rq_visible = visible(pc.rq, pc.rq_newest);
    pc.wq_visible = visible(pc.wq, pc.wq_newest);
    if (pc.rq_visible < pc.rq.size() || pc.wq_visible < pc.wq.size())
      pc_next = std::min(pc_next, clk_.last_edge(now) + 1);
    // Write draining with hysteresis.
    if (!pc.draining) {
      if (pc.wq_visible >= p_.write_high || (pc.rq_visible == 0 && pc.wq_visible > 0))
        pc.draining = true;
    } else if (pc.wq_visible == 0 || (pc.wq_visible <= p_.write_low && pc.rq_visible > 0)) {
      pc.draining = false;
    }
    if (pc.refresh.pending()) {
      const Refresh::Step s = pc.refresh.step(pc.timing);
      pc_next = std::min(pc_next, s.ready);
      if (s.ready <= at) offer(row, {pi, -1, s.cmd, s.bank, 0});
    } else {
      pc_next = std::min(pc_next, pc.refresh.due());
    }
    const std::vector<DramEntry>& q = pc.draining ? pc.wq : pc.rq;
    const std::size_t shown = pc.draining ? pc.wq_visible : pc.rq_visible;
    const std::uint64_t blocked = pc.refresh.blocked();
    const BankIndex* index = indexed_ ? (pc.draining ? &pc.wbanks : &pc.rbanks) : nullptr;
    const SchedView v{pc.timing, q, shown, pc.draining, blocked, p_.row_hit_cap, index};
    SchedPick s;
    if (!engine_.skip_idle()) {
      s = sched_.pick(v, at);
    } else if (!changed && at == pc.ahead_at && blocked == pc.ahead_blocked) {
      // Nothing changed since the scan that found this edge: its pick stands. (Nor did the drain
      // mode: without a command the visible counts only grow by requests changes_pick() let
      // through, and none of those can turn it.)
      s = pc.ahead;
    } else {
      s = sched_.pick_ahead(v, at);
    }
    pc.ahead_at = kNeverD;
    pc.cover_hit = s.hit_banks;
    pc.cover_closed = s.closed_banks;
    pc.cover_conflict = s.conflict_banks;
    if (s.next > at) {
      // Nothing ready now. Keep the pick for the edge it names, unless requests accepted this
      // core cycle become visible before it (they change the queue without a command).
      if (s.next != kNeverD && pc.rq_visible == pc.rq.size() && pc.wq_visible == pc.wq.size()) {
        pc.ahead = s;
        pc.ahead_at = s.next;
        pc.ahead_blocked = blocked;
      }
      s.column = s.row = -1;
    }
    pc_next = std::min(pc_next, s.next);
    if (s.column >= 0) {
      const DramEntry& e = q[s.column];
      offer(col, {pi, s.column, pc.draining ? Cmd::Wr : Cmd::Rd, e.bank, e.seq + 1});
    }
    if (s.row >= 0) {
      const DramEntry& e = q[s.row];
      offer(row, {pi, s.row, s.row_cmd, e.bank, e.seq + 1});
    }
    pc.ready_at = pc_next;
    next = std::min(next, pc_next);
  }
  // A row command to the bank that gets the column command this edge waits (row hit first).
  if (row.pc >= 0 && col.pc == row.pc && col.bank == row.bank) {
    row.pc = -1;
    lost = true;
  }
  const bool issued = row.pc >= 0 || col.pc >= 0;
  SIMFA_ASSERT(!issued || at >= expected, fmt::format("dram.ch[{}]", index_),
               "command at edge {} before the edge {} the channel would have slept until", at,
               expected);
  if (row.pc >= 0) issue_row(pcs_[row.pc], row.pc, row, at);  // never moves queue entries
  if (col.pc >= 0) issue_column(pcs_[col.pc], col.pc, col.entry, at, now);
  if (issued || lost) return at + 1;
  return std::max(next, at + 1);
}

void Channel::issue_row(Pc& pc, int pci, const Candidate& c, DCycle at) {
  pc.dirty = true;
  const std::uint32_t closed = pc.timing.bank(c.bank).open_row;
  if (c.entry < 0) {  // refresh: PRE of a reserved bank, or the REF itself
    pc.timing.issue(c.cmd, c.bank, kNoRow, at);
    row_changed(pc, c.bank);
    log(at, pci, c.cmd, c.bank, c.cmd == Cmd::Pre ? closed : 0);
    if (c.cmd == Cmd::Pre) {
      ++n_.pres;
    } else {
      ++n_.refreshes;
      pc.refresh.done();
    }
    return;
  }
  DramEntry& e = (pc.draining ? pc.wq : pc.rq)[c.entry];
  pc.timing.issue(c.cmd, e.bank, e.row, at);
  row_changed(pc, e.bank);
  log(at, pci, c.cmd, e.bank, c.cmd == Cmd::Act ? e.row : closed);
  if (c.cmd == Cmd::Act) {
    ++n_.acts;
  } else {
    ++n_.pres;
  }
  if (e.outcome == RowOutcome::None) {
    e.outcome = c.cmd == Cmd::Act ? RowOutcome::Miss : RowOutcome::Conflict;
    ++(c.cmd == Cmd::Act ? n_.row_misses : n_.row_conflicts);
  }
}

// A row command to `bank` was issued: which queued requests hit its open row changed.
void Channel::row_changed(Pc& pc, std::uint32_t bank) {
  if (!indexed_) return;
  const std::uint32_t open = pc.timing.bank(bank).open_row;
  if (open == kNoRow) {
    pc.rbanks.closed(bank);
    pc.wbanks.closed(bank);
  } else {
    pc.rbanks.opened(bank, open, pc.rq);
    pc.wbanks.opened(bank, open, pc.wq);
  }
}

void Channel::issue_column(Pc& pc, int pci, int idx, DCycle at, Cycle now) {
  std::vector<DramEntry>& q = pc.draining ? pc.wq : pc.rq;
  DramEntry& e = q[idx];
  const bool w = e.req.write;
  pc.dirty = true;
  pc.timing.issue(w ? Cmd::Wr : Cmd::Rd, e.bank, e.row, at);
  log(at, pci, w ? Cmd::Wr : Cmd::Rd, e.bank, e.row);
  n_.data_busy += p_.t.tBL;
  if (e.outcome == RowOutcome::None) {
    e.outcome = RowOutcome::Hit;
    ++n_.row_hits;
  }
  if (--e.bursts_left > 0) return;
  // Last burst: the data is complete at `end`; the response crosses back after ctrl_latency.
  const DCycle end = at + (w ? p_.t.tCWL : p_.t.tCL) + p_.t.tBL;
  const Cycle t = std::max(now + 1, clk_.to_core(end) + p_.ctrl_latency);
  engine_.send(this, kResponse, Payload::of(e.req), t);
  const std::uint64_t bytes = std::uint64_t{e.bursts} * p_.burst_bytes();
  if (w) {
    ++n_.writes;
    n_.write_bytes += bytes;
    if (e.req.warm) ++n_.warm_writes, n_.warm_write_bytes += bytes;
  } else {
    ++n_.reads;
    n_.read_bytes += bytes;
    n_.read_latency += t - e.arrival;
  }
  if (indexed_) (w ? pc.wbanks : pc.rbanks).erase(e.bank, static_cast<std::size_t>(idx));
  q.erase(q.begin() + idx);
  --(w ? pc.wq_visible : pc.rq_visible);
  bool& refused = w ? pc.refused_write : pc.refused_read;
  if (refused) {
    refused = false;
    engine_.send(this, kRetry, Payload::of(index_), now + 1);
  }
}

void Channel::on_event(std::uint32_t tag, const Payload& p, Cycle now) {
  if (tag == kResponse) {
    --in_flight_;
    client_->on_dram_response(p.as<DramReq>(), now);
  } else {
    client_->on_dram_retry(p.as<std::uint32_t>(), now);
  }
}

}  // namespace simfa::mem
