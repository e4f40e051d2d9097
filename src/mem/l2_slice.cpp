// L2Slice: lanes are FIFOs of transactions ordered by arrival (each lane has one fixed crossbar
// latency, so push order is arrival order); tick() serves the earliest-arrived lane head, up to
// lookups_per_cycle per cycle. Hits and fills leave through the response port at
// max(ready, port free) and occupy it sectors*32 / bytes_per_cycle cycles; the departure times of
// responses not yet gone form the response queue, bounded by resp_queue.
#include "mem/l2_slice.h"

#include "mem/sectors.h"

#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/prefetch.h"

namespace simfa::mem {
namespace {
constexpr std::uint32_t kWritebackTag = 0xFFFF;
int popcount(std::uint8_t s) { return static_cast<int>(sector_count(s)); }
}  // namespace

L2Slice::L2Slice(std::uint32_t id, const L2Params& p, std::uint32_t line_bytes,
                 std::uint32_t sets, TxnPool& txns, SliceFabric& fabric, Engine& engine)
    : id_(id),
      p_(p),
      line_bytes_(line_bytes),
      all_sectors_(static_cast<std::uint8_t>((1u << (line_bytes / 32)) - 1)),
      txns_(txns),
      fabric_(fabric),
      engine_(engine),
      tags_(sets, p.assoc, p.slices,
            make_replacement(p.replacement, sets * p.assoc, p.seed, fmt::format("l2.{}", id))),
      mshr_(p.mshrs),
      departs_(p.resp_queue * 2) {
  engine.add(this);
  engine.want_prefetch(this);
}

void L2Slice::refresh_first() {
  std::uint8_t best = kLanes;
  Cycle at = kNever;
  for (std::uint8_t l = 0; l < kLanes; ++l)
    if (head_arrive_[l] < at) at = head_arrive_[l], best = l;
  first_lane_ = best;
  first_ = best == kLanes ? LaneEntry{kNever, 0, kNoTxn} : lanes_[best].front();
}

int L2Slice::pick(Cycle now) const { return first_.arrive <= now ? first_lane_ : -1; }

void L2Slice::prefetch(Cycle now) {
  if (first_.arrive > now) return;
  simfa::prefetch(&txns_[first_.txn]);
  tags_.prefetch(first_.line);
  for (const auto& l : lanes_)  // the tick compares every lane's head
    if (!l.empty()) simfa::prefetch(&l.front());
  if (!departs_.empty()) simfa::prefetch(&departs_.front());  // and retires departed responses
}

bool L2Slice::idle() const {
  for (const auto& l : lanes_)
    if (!l.empty()) return false;
  return mshr_.used() == 0;
}

// flatten: the lookup and what it calls in this file run once per line request; inlined into
// the tick (the compiler left lookup, serve and refresh_first out of line).
[[gnu::flatten]] Cycle L2Slice::tick(Cycle now) {
  for (std::uint32_t served = 0; served < p_.lookups_per_cycle; ++served) {
    const int lane = pick(now);
    if (lane < 0) break;
    while (!departs_.empty() && departs_.front() <= now) departs_.pop();
    if (departs_.size() >= p_.resp_queue) {
      resp_stall_.set(now, true);
      return departs_.front();  // > now: the oldest queued response leaves then
    }
    resp_stall_.set(now, false);
    RingQueue<LaneEntry>& q = lanes_[lane];
    const std::uint32_t t = q.front().txn;
    if (pool_full() && would_block(t)) {
      blocked_ = true;
      mshr_stall_.set(now, true);
      return kNever;  // fill() or writeback_accepted() wakes the slice when an entry frees
    }
    mshr_stall_.set(now, false);
    q.pop();
    head_arrive_[lane] = q.empty() ? kNever : q.front().arrive;
    refresh_first();
    if (lane != kLaneForward) {
      --queued_;
      if (credit_waiter_) {  // (credit_freed() has nothing to do for a slice nobody waits on)
        credit_waiter_ = false;
        fabric_.credit_freed(id_, now);
      }
    }
    lookup(t, now);
  }
  if (first_.arrive == kNever) return kNever;
  return std::max(first_.arrive, now + 1);
}

bool L2Slice::would_block(std::uint32_t t) const {
  const Txn& x = txns_[t];
  if (x.route == Route::Probe || !pool_full()) return false;
  const std::int32_t idx = tags_.find(x.line);
  if (x.write) return idx == TagArray::kMiss && mshr_.find(x.line) == MshrTable::kNone;  // allocates
  if (idx != TagArray::kMiss && (tags_.valid(idx) & x.sectors) == x.sectors) return false;
  return mshr_.find(x.line) == MshrTable::kNone;
}

void L2Slice::lookup(std::uint32_t t, Cycle now) {
  Txn& x = txns_[t];
  const std::uint8_t s = x.sectors;
  if (x.route != Route::Forwarded) {  // a forwarded probe was counted at the mirror slice
    ++c_.requests;
    c_.sectors += popcount(s);
  }
  const std::int32_t idx = tags_.find(x.line);
  if (x.route == Route::Probe) {
    ++c_.probes;
    ClassCounts* cls = set_class(x.line);
    if (cls) ++cls->probes;
    if (idx != TagArray::kMiss && (tags_.valid(idx) & s) == s) {
      tags_.touch(idx);
      ++c_.shadow_hits;
      if (cls) ++cls->shadow_hits;
      c_.hit_sectors += popcount(s);
      serve(t, now + p_.lookup_latency, now, false);
    } else {
      fabric_.forward(t, id_, now);
    }
    return;
  }
  if (x.write) {
    c_.hit_sectors += popcount(s);  // a whole-sector write never reads DRAM
    fabric_.invalidate_shadows(x.line, id_);
    const std::uint32_t e = mshr_.find(x.line);
    if (e != MshrTable::kNone) {  // the line is being filled: apply the write with the fill
      MshrEntry& m = mshr_[e];
      m.write |= s;
      txns_[m.tail].next = t;
      m.tail = t;
      ++m.merged;
      return;
    }
    if (!warm_dirty_.empty()) warm_dirty_.erase(x.line);  // detailed data now: its write-back counts
    if (idx != TagArray::kMiss) {
      tags_.add_sectors(idx, s, s);
      tags_.touch(idx);
    } else {
      TagArray::Victim v;
      tags_.insert(x.line, s, s, false, v);
      evict(v, now);
    }
    serve(t, now + p_.lookup_latency, now, false);
    return;
  }
  const std::uint8_t have = idx == TagArray::kMiss ? 0 : tags_.valid(idx);
  if ((have & s) == s) {
    tags_.touch(idx);
    c_.hit_sectors += popcount(s);
    serve(t, now + p_.lookup_latency, now, false);
    return;
  }
  c_.hit_sectors += popcount(static_cast<std::uint8_t>(have & s));
  ++c_.read_misses;
  ClassCounts* cls = set_class(x.line);
  if (cls) ++cls->read_misses;
  const std::uint8_t missing = static_cast<std::uint8_t>(s & ~have);
  std::uint32_t e = mshr_.find(x.line);
  if (e != MshrTable::kNone) {
    MshrEntry& m = mshr_[e];
    ++c_.mshr_merges;
    ++m.merged;
    txns_[m.tail].next = t;
    m.tail = t;
    const std::uint8_t extra = static_cast<std::uint8_t>(missing & ~m.fetch);
    if (extra) {  // the merged request needs sectors the entry does not fetch yet
      m.fetch |= extra;
      ++m.pending;
      c_.dram_read_sectors += popcount(extra);
      if (cls) cls->read_sectors += popcount(extra);
      fabric_.dram_send({x.line * line_bytes_, (id_ << 16) | e, false, extra}, now);
    }
    return;
  }
  account_mshr(now);
  e = mshr_.allocate(x.line);
  SIMFA_ASSERT(e != MshrTable::kNone, fmt::format("l2 slice {} at cycle {}", id_, now),
               "MSHR allocation after would_block() said there was room");
  c_.mshr_peak = std::max<std::uint64_t>(c_.mshr_peak, mshr_.used());
  MshrEntry& m = mshr_[e];
  m.fetch = missing;
  m.pending = 1;
  m.head = m.tail = t;
  c_.dram_read_sectors += popcount(missing);
  if (cls) cls->read_sectors += popcount(missing);
  fabric_.dram_send({x.line * line_bytes_, (id_ << 16) | e, false, missing}, now);
}

void L2Slice::serve(std::uint32_t t, Cycle ready, Cycle now, bool from_dram) {
  const Txn& x = txns_[t];
  const double bytes = x.write ? 32.0 : 32.0 * popcount(x.sectors);
  const double start = std::max(static_cast<double>(ready), resp_free_);
  resp_free_ = start + bytes / p_.bytes_per_cycle;
  const Cycle depart = ceil_cycle(start);
  departs_.push(depart);
  fabric_.respond(t, id_, depart, from_dram, now);
}

[[gnu::flatten]] void L2Slice::fill(std::uint32_t e, Cycle now) {
  MshrEntry& m = mshr_[e];
  SIMFA_ASSERT(m.pending > 0, fmt::format("l2 slice {} at cycle {}", id_, now),
               "fill of MSHR entry {} with nothing pending", e);
  if (--m.pending > 0) return;
  const std::int32_t idx = tags_.find(m.line);
  if (m.write && !warm_dirty_.empty()) warm_dirty_.erase(m.line);
  if (idx != TagArray::kMiss) {
    tags_.add_sectors(idx, m.fetch | m.write, m.write);
  } else {
    TagArray::Victim v;
    tags_.insert(m.line, m.fetch | m.write, m.write, false, v);
    evict(v, now);
  }
  for (std::uint32_t t = m.head; t != kNoTxn;) {
    const std::uint32_t next = txns_[t].next;
    txns_[t].next = kNoTxn;
    serve(t, now, now, !txns_[t].write);
    t = next;
  }
  account_mshr(now);
  mshr_.release(e);
  entry_freed(now);
}

void L2Slice::evict(const TagArray::Victim& v, Cycle now) {
  if (!v.valid) return;
  ++c_.evictions;
  ClassCounts* cls = set_class(v.line);
  if (cls) ++cls->evictions;
  if (v.dirty) {
    ++c_.writebacks;
    const bool warm = !warm_dirty_.empty() && warm_dirty_.erase(v.line) > 0;
    c_.warm_writebacks += warm;
    c_.dram_write_sectors += popcount(v.dirty);
    if (cls) cls->write_sectors += popcount(v.dirty);
    if (!fabric_.dram_send({v.line * line_bytes_, (id_ << 16) | kWritebackTag, true, v.dirty, warm}, now))
      ++wb_waiting_;  // it holds an entry of the MSHR pool until writeback_accepted()
  }
}

void L2Slice::insert_shadow(std::uint64_t line, std::uint8_t sectors, Cycle now) {
  const std::int32_t idx = tags_.find(line);
  if (idx != TagArray::kMiss) {
    tags_.add_sectors(idx, sectors, 0);
    return;
  }
  ++c_.shadow_inserts;
  if (ClassCounts* cls = set_class(line)) ++cls->shadow_inserts;
  TagArray::Victim v;
  tags_.insert(line, sectors, 0, true, v);
  evict(v, now);
}

void L2Slice::warm(std::uint64_t line, std::uint8_t sectors, bool write, bool flag) {
  // Written lines are warmed dirty, so the L2 holds as many dirty lines as the real kernel's and
  // evicts (writes back) what it would. Such a write-back belongs to the skipped work, whose
  // extrapolated statistics count it already: it is flagged and discounted at the end.
  const std::uint8_t dirty = write ? sectors : 0;
  if (write && flag) warm_dirty_.insert(line);
  const std::int32_t idx = tags_.find(line);
  if (idx != TagArray::kMiss) {
    tags_.add_sectors(idx, sectors, dirty);
    tags_.touch(idx);
    return;
  }
  TagArray::Victim v;
  tags_.insert(line, sectors, dirty, false, v);
}

void L2Slice::replay(std::uint64_t line, std::uint8_t sectors, bool write) {
  // The detailed lookup's rules without time: a whole-sector write allocates without reading, a
  // read fetches the sectors it lacks, a victim with dirty sectors writes them back.
  ++replayed_.lines;
  const std::int32_t idx = tags_.find(line);
  if (idx != TagArray::kMiss) {
    const std::uint8_t missing = write ? 0 : static_cast<std::uint8_t>(sectors & ~tags_.valid(idx));
    if (missing) ++replayed_.read_misses, replayed_.read_sectors += popcount(missing);
    tags_.add_sectors(idx, sectors, write ? sectors : 0);
    tags_.touch(idx);
    return;
  }
  if (!write) ++replayed_.read_misses, replayed_.read_sectors += popcount(sectors);
  TagArray::Victim v;
  tags_.insert(line, sectors, write ? sectors : 0, false, v);
  if (!v.valid) return;
  ++replayed_.evictions;
  if (v.dirty) ++replayed_.writebacks, replayed_.written_sectors += popcount(v.dirty);
}

bool L2Slice::probe_copy(std::uint64_t line, std::uint8_t sectors, bool count) {
  replayed_.probes += count;
  const std::int32_t idx = tags_.find(line);
  if (idx == TagArray::kMiss || (tags_.valid(idx) & sectors) != sectors) return false;
  tags_.touch(idx);
  replayed_.shadow_hits += count;
  return true;
}

void L2Slice::replay_shadow(std::uint64_t line, std::uint8_t sectors, bool count) {
  const std::int32_t idx = tags_.find(line);
  if (idx != TagArray::kMiss) {
    tags_.add_sectors(idx, sectors, 0);
    return;
  }
  TagArray::Victim v;
  tags_.insert(line, sectors, 0, true, v);
  replayed_.shadow_inserts += count;
  if (!count || !v.valid) return;
  ++replayed_.evictions;
  if (v.dirty) ++replayed_.writebacks, replayed_.written_sectors += popcount(v.dirty);
}

void L2Slice::discount_warm_writebacks() {
  c_.writebacks -= c_.warm_writebacks;
  c_.warm_writebacks = 0;
}

void L2Slice::drop_shadow(std::uint64_t line) {
  const std::int32_t idx = tags_.find(line);
  if (idx != TagArray::kMiss && tags_.shadow(idx)) tags_.invalidate(idx);
}

void L2Slice::account_mshr(Cycle now) {
  c_.mshr_area += std::uint64_t{mshr_.used()} * (now - mshr_since_);
  mshr_since_ = now;
}

void L2Slice::register_stats(Stats& s, const std::string& prefix) {
  s.counter(prefix + ".requests", &c_.requests, "requests", "requests looked up (first lookup)");
  s.counter(prefix + ".sectors", &c_.sectors, "sectors", "sectors of requests looked up");
  s.counter(prefix + ".hit_sectors", &c_.hit_sectors, "sectors", "sectors served without DRAM");
  s.counter(prefix + ".read_misses", &c_.read_misses, "requests", "reads that needed DRAM");
  s.counter(prefix + ".mshr_merges", &c_.mshr_merges, "requests",
            "misses merged into an MSHR entry already fetching the line");
  s.counter(prefix + ".probes", &c_.probes, "requests",
            "far-homed reads that probed this slice as the near mirror (RemoteCopy)");
  s.counter(prefix + ".shadow_hits", &c_.shadow_hits, "requests", "probes served by a shadow line");
  s.counter(prefix + ".shadow_inserts", &c_.shadow_inserts, "lines",
            "shadow lines inserted by the RemoteCopy proxy");
  s.counter(prefix + ".evictions", &c_.evictions, "lines", "valid lines evicted");
  s.counter(prefix + ".writebacks", &c_.writebacks, "lines", "dirty lines written back to DRAM");
  // A maximum, not a count: a sampled run does not extrapolate it (its peak is the detailed parts').
  s.maximum(prefix + ".mshr_peak", &c_.mshr_peak, "entries", "largest MSHR occupancy");
}

}  // namespace simfa::mem
