// Hierarchy: wires L1, coalescer, crossbar, slices and DRAM. Timing is carried by timestamps: an
// accepted request is pushed into its first slice's lane at its arrival cycle (one wake), a served
// request comes back as one kArrive message at its arrival at the SM, where the SM's ejection port
// may delay it (kDeliver; or the SM takes it ahead of time, MemClient::defer_response). DRAM
// responses reach the slice after the L2-DRAM link (kFill).
#include "mem/hierarchy.h"

#include "mem/sectors.h"

#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/stats.h"

namespace simfa::mem {

Hierarchy::Hierarchy(const HierarchyParams& p, Engine& engine, int num_sms,
                     const DramFactory& make_dram)
    : p_(p),
      engine_(engine),
      all_sectors_(static_cast<std::uint8_t>((1u << (p.line_bytes / 32)) - 1)),
      line_div_(p.line_bytes),
      hash_(make_slice_hash(p.l2.hash, p.l2.slices)),
      xbar_(p.xbar, p.l2, num_sms),
      lrc_(p.lrc, num_sms),
      rc_(p.l2),
      credits_(p.l2.req_queue + p.xbar.slice_buffer),
      clients_(num_sms, nullptr),
      credit_waiters_(p.l2.slices),
      waiting_on_credit_(num_sms, 0),
      retry_pending_(num_sms, 0) {
  validate(p_);
  if (p_.l1.enabled) l1_ = std::make_unique<L1Cache>(p_.l1, p_.line_bytes, num_sms, p_.l2.seed);
  const std::uint64_t slice_lines = p_.l2.size / p_.l2.slices / p_.line_bytes;
  const auto sets = static_cast<std::uint32_t>(slice_lines / p_.l2.assoc);
  slices_.reserve(p_.l2.slices);
  for (std::uint32_t i = 0; i < p_.l2.slices; ++i)
    slices_.push_back(
        std::make_unique<L2Slice>(i, p_.l2, p_.line_bytes, sets, txns_,
                                  static_cast<SliceFabric&>(*this), engine));
  dram_ = make_dram(this);
  dram_wait_.resize(dram_->num_channels());
  const double ref = p_.dram_reference_latency > 0
                        ? p_.dram_reference_latency
                        : static_cast<double>(dram_->unloaded_read_latency());
  lat_ = derive_latencies(p_.l2, static_cast<Cycle>(std::llround(ref)));
}

Hierarchy::~Hierarchy() = default;

void Hierarchy::connect(std::uint16_t sm, MemClient* client) { clients_.at(sm) = client; }

// flatten: once per line request (the coalescer, crossbar and slice lane inlined).
[[gnu::flatten]] bool Hierarchy::try_send(const MemReq& r, Cycle now) {
  SIMFA_ASSERT(r.sm < clients_.size() && clients_[r.sm], fmt::format("memory at cycle {}", now),
               "request from unconnected SM {}", r.sm);
  const std::uint64_t line = line_div_.div(r.line);
  SIMFA_ASSERT(line * p_.line_bytes == r.line, fmt::format("memory at cycle {}", now),
               "address {:#x} is not line-aligned", r.line);
  const std::uint8_t sectors = norm_sectors(r.sectors);
  const bool write = is_write(r.kind);
  Cycle ready = now;
  if (l1_) {
    if (r.kind == ReqKind::Load) {
      if (l1_->hit(r.sm, line, sectors)) {
        ++in_flight_;
        ++accepted_;
        engine_.send(this, kL1Hit, Payload::of(r), now + std::max<Cycle>(1, p_.l1.hit_latency));
        return true;
      }
      ready = now + p_.l1.miss_latency;
    } else if (write) {
      l1_->invalidate(r.sm, line);
    }
  }
  Coalescer::Probe probe;
  if (!write && lrc_.enabled()) {
    ++lrc_reads_;
    const std::uint32_t t = lrc_.match(r, line, sectors, now, txns_, probe);
    if (t != kNoTxn) {
      lrc_.merge(t, r, txns_);
      ++in_flight_;
      ++accepted_;
      return true;
    }
  }
  const std::uint32_t home = hash_->slice(line);
  const std::uint32_t part = xbar_.sm_partition(r.sm);
  std::uint32_t first = home;
  L2Slice::Lane lane = L2Slice::kLaneNear;
  Route route = Route::Near;
  Cycle hop = lat_.req_near;
  if (xbar_.slice_partition(home) != part) {
    if (!write && rc_.enabled()) {
      first = xbar_.mirror(home, part);
      route = Route::Probe;
    } else {
      lane = L2Slice::kLaneFar;
      route = Route::FarDirect;
      hop = lat_.req_far;
    }
  }
  if (slices_[first]->queued() >= credits_) {
    ++refusals_credit_;
    if (!waiting_on_credit_[r.sm]) {
      waiting_on_credit_[r.sm] = 1;
      credit_waiters_[first].push_back(r.sm);
      slices_[first]->note_credit_waiter();
    }
    return false;
  }
  Cycle retry_at = 0;
  if (!xbar_.can_inject(r.sm, now, retry_at)) {
    ++refusals_port_;
    schedule_retry(r.sm, std::max(retry_at, now + 1));
    return false;
  }
  const std::uint32_t bytes =
      p_.xbar.header_bytes + (write ? 32u * sector_count(sectors) : 0u);
  const Cycle depart = xbar_.inject(r.sm, bytes, ready);
  const std::uint32_t t = txns_.alloc();
  Txn& x = txns_[t];
  x.req = r;
  x.line = line;
  x.accepted = now;
  x.home = static_cast<std::uint16_t>(home);
  x.sectors = sectors;
  x.route = route;
  x.write = write;
  if (!write) lrc_.track(t, line, r.sm, txns_, probe);
  slices_[first]->push(t, lane, depart + hop);
  ++in_flight_;
  ++accepted_;
  return true;
}

void Hierarchy::schedule_retry(std::uint16_t sm, Cycle t) {
  if (retry_pending_[sm]) return;
  retry_pending_[sm] = 1;
  engine_.send(this, kRetry, Payload::of(sm), t);
}

[[gnu::flatten]]
void Hierarchy::respond(std::uint32_t t, std::uint32_t slice, Cycle depart, bool from_dram,
                        Cycle now) {
  Txn& x = txns_[t];
  const std::uint32_t part = xbar_.sm_partition(x.req.sm);
  const bool near = xbar_.slice_partition(slice) == part;
  Cycle arrive = depart + (near ? lat_.resp_near : lat_.resp_far);
  if (from_dram && !near) arrive += lat_.far_miss_extra;
  if (!near && !x.write && rc_.enabled() && slice == x.home) {
    L2Slice& m = *slices_[xbar_.mirror(slice, part)];
    if (rc_.insert(m.tags().shadow_lines(), m.tags().lines())) m.insert_shadow(x.line, x.sectors, now);
  }
  // The message carries the request itself, so that its arrival does not read the transaction.
  engine_.send(this, kArrive, Payload::of(Arrival{x.req, t}), std::max(arrive, now + 1));
}

void Hierarchy::forward(std::uint32_t t, std::uint32_t, Cycle now) {
  Txn& x = txns_[t];
  x.route = Route::Forwarded;
  slices_[x.home]->push(t, L2Slice::kLaneForward, now + p_.l2.lookup_latency + lat_.cross);
}

void Hierarchy::credit_freed(std::uint32_t slice, Cycle now) {
  auto& w = credit_waiters_[slice];
  if (w.empty()) return;
  for (std::uint16_t sm : w) {
    waiting_on_credit_[sm] = 0;
    schedule_retry(sm, now + 1);
  }
  w.clear();
}

void Hierarchy::invalidate_shadows(std::uint64_t line, std::uint32_t home) {
  if (!rc_.enabled()) return;
  const std::uint32_t hp = xbar_.slice_partition(home);
  for (std::uint32_t part = 0; part < xbar_.partitions(); ++part)
    if (part != hp) slices_[xbar_.mirror(home, part)]->drop_shadow(line);
}

bool Hierarchy::dram_send(const DramReq& r, Cycle now) {
  const std::uint32_t ch = dram_->channel_of(r.line);
  RingQueue<DramReq>& w = dram_wait_[ch];
  if (w.empty() && dram_->try_enqueue(r, now)) return true;
  ++dram_refusals_;
  w.push(r);
  return false;
}

void Hierarchy::on_dram_response(const DramReq& r, Cycle now) {
  const std::uint32_t slice = r.tag >> 16;
  const std::uint32_t entry = r.tag & 0xFFFF;
  if (entry == 0xFFFF) {
    ++writebacks_done_;
    return;
  }
  if (lat_.dram_link == 0)
    slices_[slice]->fill(entry, now);
  else
    engine_.send(this, kFill, Payload::of(r.tag), now + lat_.dram_link);
}

void Hierarchy::on_dram_retry(std::uint32_t channel, Cycle now) {
  // The channel offers its waiting requests in order until one is refused again. Only the channel
  // that called has new room (the DRAM contract): offering every blocked channel's requests at
  // each retry, as before, was one refused try per blocked channel, 11% of a DRAM-bound run.
  RingQueue<DramReq>& w = dram_wait_[channel];
  while (!w.empty() && dram_->try_enqueue(w.front(), now)) {
    const DramReq& r = w.front();
    if (r.write) slices_[r.tag >> 16]->writeback_accepted(now);  // the slice may go on
    w.pop();
  }
}

// flatten: delivery and the coalescer run once per line response; inlined into the handler.
[[gnu::flatten]] void Hierarchy::on_event(std::uint32_t tag, const Payload& p, Cycle now) {
  switch (tag) {
    case kL1Hit: finish(p.as<MemReq>(), now); break;
    case kArrive: {
      const auto a = p.as<Arrival>();
      deliver(a.req, now);
      lrc_.complete(a.txn, line_div_.div(a.req.line), a.req.sm, !is_write(a.req.kind),
                    [&](const MemReq& r) { deliver(r, now); });
      txns_.release(a.txn);
      break;
    }
    case kDeliver: finish(p.as<MemReq>(), now); break;
    case kFill: {
      const auto dtag = p.as<std::uint32_t>();
      slices_[dtag >> 16]->fill(dtag & 0xFFFF, now);
      break;
    }
    case kRetry: {
      const auto sm = p.as<std::uint16_t>();
      retry_pending_[sm] = 0;
      clients_[sm]->on_retry(now);
      break;
    }
    default: SIMFA_ASSERT(false, "memory hierarchy", "unknown event tag {}", tag);
  }
}

void Hierarchy::deliver(const MemReq& r, Cycle now) {
  const std::uint8_t s = norm_sectors(r.sectors);
  const std::uint32_t bytes =
      is_write(r.kind) ? p_.xbar.header_bytes : 32u * sector_count(s);
  const Cycle at = xbar_.eject(r.sm, bytes, now);
  if (at <= now)
    finish(r, now);
  else if ((l1_ && r.kind == ReqKind::Load) || !clients_[r.sm]->defer_response(r, at, now))
    engine_.send(this, kDeliver, Payload::of(r), at);  // (a deferred one is counted when applied)
}

void Hierarchy::finish(const MemReq& r, Cycle now) {
  if (l1_ && r.kind == ReqKind::Load) l1_->fill(r.sm, r.line / p_.line_bytes, norm_sectors(r.sectors));
  --in_flight_;
  ++responses_;
  clients_[r.sm]->on_response(r, now);
}

std::uint64_t Hierarchy::total(std::uint64_t SliceCounters::*field) const {
  std::uint64_t sum = 0;
  for (const auto& s : slices_) sum += s->counters().*field;
  return sum;
}

void Hierarchy::warm(Addr line, std::uint8_t sectors, bool write) {
  const std::uint32_t h = home_slice(line);
  if (replays(h)) return;  // a replay slice replays the whole span
  slices_[h]->warm(line / p_.line_bytes, sectors, write);
}

void Hierarchy::discount_warm_writebacks() {
  if (replay_stride_) return;
  for (auto& s : slices_) s->discount_warm_writebacks();
  dram_->discount_warm_writes();
}

void Hierarchy::enable_replay(std::uint32_t stride) {
  std::uint32_t smallest = num_slices();
  for (std::uint32_t k = 0; k < xbar_.partitions(); ++k) {
    std::uint32_t n = 0;
    for (std::uint32_t s = 0; s < num_slices(); ++s) n += xbar_.slice_partition(s) == k;
    smallest = std::min(smallest, n);
  }
  replay_stride_ = std::max<std::uint32_t>(1, std::min(stride, smallest));
  replay_slice_.assign(num_slices(), 0);
  replay_rank_.assign(num_slices(), 0);
  for (std::uint32_t s = 0; s < num_slices(); ++s) {
    replay_slice_[s] = xbar_.slice_offset(s) % replay_stride_ == 0;
    replay_rank_[s] = xbar_.slice_offset(s) / replay_stride_;  // a mirror's is its home's
    if (replays(s)) slices_[s]->count_set_classes();
  }
}

void Hierarchy::set_replay_set_stride(std::uint32_t k) {
  SIMFA_ASSERT(k >= 1 && L2Slice::kSetClasses % k == 0, "span replay", "set stride {} does not divide {}", k,
               L2Slice::kSetClasses);
  replay_set_stride_ = k;
}

double Hierarchy::replay_sets() const {
  double n = 0;
  for (std::uint32_t s = 0; s < num_slices(); ++s)
    if (replays(s)) n += slices_[s]->tags().sets();
  return n;
}

// The detailed route without time: a read from an SM of the other partition probes the home
// slice's mirror in the SM's partition first and is served there when a copy holds its sectors;
// otherwise the home slice serves it and the mirror may take a shadow copy (RemoteCopy's rule),
// which competes for capacity there.
void Hierarchy::replay(Addr line, std::uint8_t sectors, bool write, bool warm, int sm) {
  if (!replay_stride_) return;
  const std::uint32_t h = home_slice(line);
  const std::uint64_t idx = line / p_.line_bytes;
  // A mirror counts the same sets as its home (the same offset in its partition).
  const bool counted = replays(h) && sampled_set(h, slices_[0]->tags().set_index(idx));
  if (counted == warm) return;
  replay_at(h, idx, sectors, write, counted, sm);
}

void Hierarchy::replay_at(std::uint32_t h, std::uint64_t idx, std::uint8_t sectors, bool write, bool counted, int sm) {
  sectors = norm_sectors(sectors);
  const bool far = sm >= 0 && !write && rc_.enabled() &&
                   xbar_.slice_partition(h) != xbar_.sm_partition(static_cast<std::uint16_t>(sm));
  std::uint32_t m = h;
  if (far) {
    m = xbar_.mirror(h, xbar_.sm_partition(static_cast<std::uint16_t>(sm)));
    if (slices_[m]->probe_copy(idx, sectors, counted)) return;
  }
  if (counted)
    slices_[h]->replay(idx, sectors, write);
  else
    slices_[h]->warm(idx, sectors, write, /*flag=*/false);
  if (far && rc_.insert(slices_[m]->tags().shadow_lines(), slices_[m]->tags().lines()))
    slices_[m]->replay_shadow(idx, sectors, counted);
}

// The replay slices' sampled sets stand for the whole L2: all the L2's sets over the sampled ones.
double Hierarchy::replay_scale() const {
  double sets = 0, sampled_sets = 0;
  for (std::uint32_t i = 0; i < num_slices(); ++i) {
    const std::uint32_t s = slices_[i]->tags().sets();
    sets += s;
    if (!replays(i)) continue;
    for (std::uint32_t j = 0; j < s; ++j) sampled_sets += sampled_set(i, j);
  }
  return sets / sampled_sets;
}

double Hierarchy::dirty_bytes() const {
  // Without span replay every slice and set counts.
  double sectors = 0;
  for (std::uint32_t i = 0; i < num_slices(); ++i)
    if (!replay_stride_)
      sectors += static_cast<double>(slices_[i]->tags().dirty_sectors([](std::uint32_t) { return true; }));
    else if (replays(i))
      sectors += static_cast<double>(
          slices_[i]->tags().dirty_sectors([this, i](std::uint32_t set) { return sampled_set(i, set); }));
  return 32.0 * sectors * (replay_stride_ ? replay_scale() : 1.0);
}

MemorySystem::ReplayCounts Hierarchy::replay_counts() const {
  ReplayCounts c;
  if (!replay_stride_) return c;
  const std::uint32_t k = replay_set_stride_;
  for (std::uint32_t i = 0; i < num_slices(); ++i) {
    if (!replays(i)) continue;
    const L2Slice::Replayed& r = slices_[i]->replayed();
    c.lines += static_cast<double>(r.lines);
    c.read_bytes += 32.0 * static_cast<double>(r.read_sectors);
    c.write_bytes += 32.0 * static_cast<double>(r.written_sectors);
    // What the slice did in detail, over the sampled sets only (every class when k = 1: the
    // classes add up to the slice's dram_read_sectors, dram_write_sectors, read_misses, evictions,
    // probes, shadow_hits and shadow_inserts).
    std::uint64_t rd = 0, wr = 0, misses = 0, ev = 0, pr = 0, sh = 0, si = 0;
    const auto& cls = slices_[i]->set_classes();
    for (std::uint32_t j = (k - replay_rank_[i] % k) % k; j < cls.size(); j += k) {  // sampled_set's
      rd += cls[j].read_sectors, wr += cls[j].write_sectors, misses += cls[j].read_misses, ev += cls[j].evictions;
      pr += cls[j].probes, sh += cls[j].shadow_hits, si += cls[j].shadow_inserts;
    }
    c.run_read_bytes += 32.0 * static_cast<double>(rd + r.read_sectors);
    c.run_write_bytes += 32.0 * static_cast<double>(wr + r.written_sectors);
    c.run_read_misses += static_cast<double>(misses + r.read_misses);
    c.run_evictions += static_cast<double>(ev + r.evictions);
    c.run_probes += static_cast<double>(pr + r.probes);
    c.run_shadow_hits += static_cast<double>(sh + r.shadow_hits);
    c.run_shadow_inserts += static_cast<double>(si + r.shadow_inserts);
  }
  c.scale = replay_scale();
  c.read_bytes *= c.scale, c.write_bytes *= c.scale;
  c.run_read_bytes *= c.scale, c.run_write_bytes *= c.scale, c.run_read_misses *= c.scale;
  c.run_evictions *= c.scale, c.run_probes *= c.scale, c.run_shadow_hits *= c.scale;
  c.run_shadow_inserts *= c.scale;
  return c;
}

}  // namespace simfa::mem
