// Fa3Sampler: windows, the fit, fast-forward spans and check windows (docs/sampling.md).
#include "workload/sampler.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <ostream>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/engine.h"
#include "sim/stats.h"
#include "workload/programs.h"

namespace simfa::workload {
namespace {

// A block at position `pos` of a tile of `n` blocks is one of its interior: neither of its first two
// nor its last, which carry the tile boundary's cost (track_block).
bool interior(std::int64_t n, std::int64_t pos) { return pos >= 2 && pos <= n - 2; }

// Indices (below `n`) of a family of counters, one per channel or slice: the names that start with
// `prefix` and end with `suffix` ("gpu.l2.slice[" i "].evictions").
std::vector<std::size_t> counter_family(const std::vector<std::string>& names, std::size_t n, std::string_view prefix,
                                        std::string_view suffix) {
  std::vector<std::size_t> m;
  for (std::size_t i = 0; i < names.size() && i < n; ++i)
    if (names[i].starts_with(prefix) && names[i].ends_with(suffix)) m.push_back(i);
  return m;
}

}  // namespace

std::pair<std::size_t, std::size_t> rate_windows(const std::vector<double>& tiles,
                                                 const std::vector<double>& tiles_before, std::size_t from,
                                                 std::size_t to) {
  to = std::min({to, tiles.size(), tiles_before.size()});
  std::size_t lo = std::min(from, to), hi = to;
  while (lo < hi && tiles_before[lo] > 0) ++lo;
  while (hi > lo && tiles[hi - 1] > 0) --hi;
  if (lo == hi) return {std::min(from, to), to};
  return {lo, hi};
}

SampleParams SampleParams::from_config(const Config& cfg) {
  SampleParams p;
  p.on = cfg.s("sample.mode") == "on";
  p.window_blocks = static_cast<int>(cfg.i("sample.window_blocks"));
  p.warmup_windows = static_cast<int>(cfg.i("sample.warmup_windows"));
  p.min_windows = static_cast<int>(cfg.i("sample.min_windows"));
  p.checks = static_cast<int>(cfg.i("sample.checks"));
  p.check_windows = static_cast<int>(cfg.i("sample.check_windows"));
  p.tail_blocks = static_cast<int>(cfg.i("sample.tail_blocks"));
  p.min_skip_blocks = static_cast<int>(cfg.i("sample.min_skip_blocks"));
  p.tolerance = cfg.f("sample.tolerance");
  p.drift = cfg.b("sample.drift");
  p.first_reads = cfg.b("sample.first_reads");
  p.drift_warning = cfg.f("sample.drift_warning");
  p.replay_after_drain = cfg.b("sample.replay_after_drain");
  p.lock_window = cfg.b("mem.lrc.enabled") ? static_cast<double>(cfg.u("mem.lrc.window")) : 0.0;
  p.sms = static_cast<int>(cfg.i("gpu.num_sms"));
  p.replay_lines = cfg.f("sample.replay_lines");
  const std::int64_t k = cfg.i("sample.replay_set_stride");
  if (!std::has_single_bit(static_cast<std::uint64_t>(k)))
    throw UserError(fmt::format("sample.replay_set_stride = {}: must be a power of two from 1 to 64 (the "
                                "replay counts every k-th of 64 set classes)", k));
  p.replay_set_stride = static_cast<std::uint32_t>(k);
  p.l2_bytes = static_cast<double>(cfg.u("mem.l2.size"));
  p.line_bytes = static_cast<double>(cfg.u("mem.line_bytes"));
  return p;
}

Fa3Sampler::Fa3Sampler(const Fa3Plan& plan, SampleParams p) : plan_(plan), p_(p) {
  const Fa3Kernel& k = plan.k;
  ctas_ = k.grid;
  cluster_ = static_cast<std::uint32_t>(std::max(1, k.cluster));
  n_.resize(ctas_);
  suffix_.resize(ctas_);
  left_.assign(ctas_, 0);
  Tile t;
  for (std::uint32_t c = 0; c < ctas_; ++c) {
    for (std::int64_t i = 0; plan.sched.tile(c, i, t); ++i)
      n_[c].push_back(static_cast<std::int32_t>(block_range(k, t.m_block).count()));
    suffix_[c].assign(n_[c].size() + 1, 0);
    for (std::size_t i = n_[c].size(); i-- > 0;) suffix_[c][i] = suffix_[c][i + 1] + n_[c][i];
    left_[c] = suffix_[c][0];
    total_blocks_ += static_cast<double>(left_[c]);
    running_ += left_[c] > 0;
  }
  clusters_.resize((ctas_ + cluster_ - 1) / cluster_);
  kv_cursor_.assign(ctas_, KvCursor{});
  pace_.assign(ctas_, Pace{});
  shift_.assign(clusters_.size(), 0.0);
  pair_shift_.assign(clusters_.size(), 0.0);
  resume_.assign(clusters_.size(), Resume{});
  track_.assign(ctas_, Track{});
  const double tile_bytes = static_cast<double>(k.tile_m) * k.head_dim * (k.elem_bytes + k.out_bytes);
  warm_tiles_ = static_cast<std::uint64_t>(std::ceil(p_.l2_bytes / (tile_bytes * std::max<std::uint32_t>(ctas_, 1))));
  warm_tiles_ = std::max<std::uint64_t>(warm_tiles_, 1);
  checks_left_ = p_.checks;
  discard_ = p_.warmup_windows;
  // A tile's head is its KV head with PackGQA, else a query head (its KV head: head / group).
  kv_heads_ = k.shape.heads_kv;
  kv_blocks_ = (k.shape.seqlen_kv + k.tile_n - 1) / k.tile_n;
  // Two times per K/V block, within 64 MiB of host memory (the prepared copies' budget, sampler.h);
  // beyond it, no first reads. None in a sampler that only logs (sample.mode = off, a block log).
  constexpr auto kMaxKvBlocks = static_cast<std::int64_t>((std::size_t{64} << 20) / (2 * sizeof(Cycle)));
  if (k.shape.batch * kv_heads_ * kv_blocks_ > kMaxKvBlocks || !p_.on) p_.first_reads = false;
  if (p_.first_reads) {
    first_read_.assign(static_cast<std::size_t>(k.shape.batch * kv_heads_ * kv_blocks_), kNever);
    last_read_ = first_read_;
    fr_plan_.assign(clusters_.size(), FirstReadPlan{});
  }
  if (!p_.on) why_detail_ = "sample.mode = off";
}

void Fa3Sampler::attach(const Engine& engine, Stats& stats, trace::CopyReplay* replay) {
  engine_ = &engine;
  stats_ = &stats;
  replay_ = replay;
  counters_.assign(stats.counter_values().size(), Fit{});
  dram_peak_ = replay ? replay->dram_peak_bytes_per_cycle() : 0;
  dram_reads_ = counter_family(stats.counter_names(), counters_.size(), "gpu.dram.ch[", "].read_bytes");
  l2_evictions_ = counter_family(stats.counter_names(), counters_.size(), "gpu.l2.slice[", "].evictions");
  wall_mark_ = std::chrono::steady_clock::now();
  wall_at_ = kWallSearch;
}

void Fa3Sampler::wall_to(WallPhase next) {
  const auto t = std::chrono::steady_clock::now();
  wall_[wall_at_] += std::chrono::duration<double>(t - wall_mark_).count();
  wall_mark_ = t;
  wall_at_ = next;
}

Cycle Fa3Sampler::now() const { return engine_->now(); }

void Fa3Sampler::account(Cycle now) {
  if (open_ && now > last_t_) win_cta_cycles_ += static_cast<double>(running_) * static_cast<double>(now - last_t_);
  last_t_ = std::max(last_t_, now);
}

// Least squares y ~ a·blocks + b·tiles over the steady-state windows (no intercept). When the
// windows cannot tell tile starts from blocks (none seen, or always in the same proportion), the
// whole cost goes to blocks.
Fa3Sampler::Fit Fa3Sampler::fit(const std::vector<double>& y, std::size_t from, std::size_t to) const {
  double bb = 0, bt = 0, tt = 0, by = 0, ty = 0, sy = 0, sb = 0;
  for (std::size_t w = from; w < std::min(to, windows_.size()); ++w) {
    const Window& x = windows_[w];
    bb += x.blocks * x.blocks, bt += x.blocks * x.tiles, tt += x.tiles * x.tiles;
    by += x.blocks * y[w], ty += x.tiles * y[w];
    sy += y[w], sb += x.blocks;
  }
  Fit f;
  const double det = bb * tt - bt * bt;
  if (tt > 0 && det > 1e-6 * bb * tt) {
    f.a = (by * tt - ty * bt) / det;
    f.b = (ty * bb - by * bt) / det;
  }
  if (!(tt > 0 && det > 1e-6 * bb * tt) || f.a < 0 || f.b < 0) {
    f.a = sb > 0 ? sy / sb : 0;
    f.b = 0;
  }
  return f;
}

void Fa3Sampler::refit() {
  std::vector<double> y(windows_.size());
  for (std::size_t w = 0; w < windows_.size(); ++w) y[w] = windows_[w].cta_cycles;
  if (!costs_from_marks()) {
    time_ = fit(y);
    // The block cost drifts through a run (which heads the CTAs share, the L2's contents): the next
    // span takes it from the latest detail period (its tile-start cost from every window, since a
    // short period may hold no tile start).
    double sy = 0, sb = 0, st = 0;
    for (std::size_t w = recent_from_; w < windows_.size(); ++w)
      sy += windows_[w].cta_cycles, sb += windows_[w].blocks, st += windows_[w].tiles;
    if (sb > 0) time_.a = std::max(0.0, (sy - time_.b * st) / sb);
  }
  // Counters: over every window. (The check windows alone over-count write-backs: right after a
  // span the warmed dirty lines are evicted in a burst; the windows before the first span may
  // under-count them: the L2 has not filled with dirty lines yet. docs/sampling.md "Limits".)
  for (std::size_t k = 0; k < counters_.size(); ++k) {
    for (std::size_t w = 0; w < windows_.size(); ++w) y[w] = windows_[w].delta[k];
    counters_[k] = fit(y);
  }
}

double Fa3Sampler::predicted_left(std::uint32_t leader) const {
  const Cluster& c = clusters_[leader / cluster_];
  const auto& suf = suffix_[leader];
  const std::int64_t tile = std::max<std::int64_t>(c.frontier.first, 0);
  if (tile >= static_cast<std::int64_t>(n_[leader].size())) return 0;
  const std::int64_t blocks = suf[tile] - c.frontier.second - p_.tail_blocks;
  const std::int64_t tiles = static_cast<std::int64_t>(n_[leader].size()) - tile - 1;
  return blocks <= 0 ? 0 : time_.a * static_cast<double>(blocks) + time_.b * static_cast<double>(tiles);
}

// The start is a transient (caches fill, the CTAs' relative timing settles): the first span waits
// until the block cost fitted on the latest min_windows windows agrees with the fit on the
// min_windows before them within sample.tolerance; the windows before both are dropped.
bool Fa3Sampler::steady() {
  const std::size_t m = static_cast<std::size_t>(p_.min_windows);
  if (windows_.size() < 2 * m) return false;
  const std::size_t n = windows_.size();
  std::vector<double> y(n);
  for (std::size_t w = 0; w < n; ++w) y[w] = windows_[w].cta_cycles;
  const Fit late = fit(y, n - m, n), early = fit(y, n - 2 * m, n - m);
  if (!(std::abs(late.a - early.a) <= p_.tolerance * late.a)) return false;
  const std::size_t dropped = n - 2 * m;
  windows_.erase(windows_.begin(), windows_.begin() + static_cast<std::ptrdiff_t>(dropped));
  for (SpanWork& sw : span_work_)  // a limited span's period before it, if any, goes with them
    sw.from = sw.from > dropped ? sw.from - dropped : 0, sw.to = sw.to > dropped ? sw.to - dropped : 0;
  recent_from_ = 0;
  refit();
  return true;
}

void Fa3Sampler::maybe_start_span(Cycle now) {
  if (phase_ != Phase::Detail || static_cast<int>(windows_.size()) < p_.min_windows) return;
  if (first_ && !steady()) return;
  limited_ = false;
  double span = 0;
  if (first_) {
    // Tile starts must have been seen (so the fit knows their cost) unless no CTA has another one.
    double tiles = 0;
    for (const Window& w : windows_) tiles += w.tiles;
    bool more_tiles = false;
    for (std::uint32_t c = 0; c < ctas_ && !more_tiles; c += cluster_) {
      const Cluster& cl = clusters_[c / cluster_];
      more_tiles = cl.frontier.first + 1 < static_cast<std::int64_t>(n_[c].size());
    }
    if (more_tiles && tiles < running_) {
      if (limited_done_) return;
      // Long tiles (Llama-3 405B at 64K tokens: 372 blocks) reach a steady state long before their
      // first tile ends. A limited span skips inside every cluster's current tile (the same time
      // for all, as any span), ending limit_guard() blocks before the earliest tile end; the tile
      // ends and starts then run in detail and the first regular span follows (one limited span
      // at most: it is the first tile's long steady state that it skips).
      std::int64_t room = std::numeric_limits<std::int64_t>::max();
      for (std::uint32_t c = 0; c < ctas_; c += cluster_) {
        if (left_[c] <= 0) continue;
        const Cluster& cl = clusters_[c / cluster_];
        const std::int64_t tile = std::max<std::int64_t>(cl.frontier.first, 0);
        if (tile >= static_cast<std::int64_t>(n_[c].size())) return;
        room = std::min(room, n_[c][tile] - cl.frontier.second - limit_guard());
      }
      if (room < limit_min() || time_.a <= 0) return;
      span = time_.a * static_cast<double>(room);
      limited_ = limited_done_ = true;
    }
  }
  if (!limited_) {
    double sum = 0;
    int n = 0;
    for (std::uint32_t c = 0; c < ctas_; c += cluster_)
      if (left_[c] > 0) sum += predicted_left(c), ++n;
    span = n ? sum / n / (checks_left_ + 1) : 0;
    if (span < p_.min_skip_blocks * time_.a || time_.a <= 0) {
      phase_ = Phase::Done;
      wall_to(kWallTail);
      if (first_)
        why_detail_ = fmt::format("too little work left after the steady state was found ({:.0f} cycles per CTA)", span);
      return;
    }
    first_ = false;
  }
  span_resume_ = resume_n_ > 0 ? resume_sum_ / resume_n_ : 0;
  span_costs_.push_back({time_.a, time_.b, span_resume_});
  span_work_.push_back({0, 0, recent_from_, windows_.size()});
  ++span_id_;
  span_cuts_.clear();
  span_asked_ = span_active_ = 0;
  for (std::uint32_t c = 0; c < ctas_; c += cluster_) span_active_ += left_[c] > 0;
  span_start_ = now;
  span_end_ = now + static_cast<Cycle>(span);
  plan_drift();
  phase_ = Phase::Span;
  wall_to(kWallSpans);
}

void Fa3Sampler::close_window(Cycle now) {
  account(now);
  open_ = false;
  if (p_.first_reads) in_flight_ = dram_read_latency();
  // Windows of the detailed tail (after the last span) are not steady state: not used.
  const bool valid = win_start_ >= awake_from_ && (phase_ == Phase::Detail || phase_ == Phase::Check);
  const double tiles_before = last_win_tiles_;
  last_win_tiles_ = win_tiles_;
  if (!valid) return;
  if (discard_ > 0) {
    --discard_;
    return;
  }
  Window w;
  w.tiles_before = tiles_before;
  w.kinds[0] = win_kinds_[0], w.kinds[1] = win_kinds_[1];
  w.int_n = win_int_n_, w.int_cycles = win_int_cycles_;
  w.bnd_n = win_bnd_n_, w.bnd_cycles = win_bnd_cycles_, w.bnd_blocks = win_bnd_blocks_;
  w.cta_cycles = win_cta_cycles_;
  w.blocks = win_blocks_;
  w.tiles = win_tiles_;
  const std::vector<std::uint64_t> c = stats_->counter_values();
  w.delta.resize(c.size());
  for (std::size_t k = 0; k < c.size(); ++k)
    w.delta[k] = static_cast<double>(c[k]) - static_cast<double>(win_counters_[k]);
  if (p_.first_reads) {
    // The L2's residency: its lines over the lines it evicts per cycle in detail (an LRU cache keeps
    // a line until as many others came in after its last use; the evictions count every line that
    // came in: DRAM fills, shadow copies, written lines). None evicted yet: none leaves.
    for (const std::size_t i : l2_evictions_) evicted_lines_ += w.delta[i];
    evict_cycles_ += static_cast<double>(now - win_start_);
    if (evicted_lines_ > 0) residency_ = p_.l2_bytes / p_.line_bytes * evict_cycles_ / evicted_lines_;
  }
  if (phase_ == Phase::Check) {
    check_meas_ += w.cta_cycles;
    check_pred_ += time_.a * w.blocks + time_.b * w.tiles;
  }
  windows_.push_back(std::move(w));
  if (phase_ == Phase::Check) {
    if (++check_seen_ < p_.check_windows) return;
    if (check_pred_ > 0) check_errors_.push_back((check_meas_ - check_pred_) / check_pred_);
    phase_ = Phase::Detail;
  }
  if (phase_ == Phase::Detail) {
    refit();
    maybe_start_span(now);
  }
}

void Fa3Sampler::log_blocks(std::ostream* os) {
  log_ = os;
  if (log_) *log_ << "cta,tile,block,cycle,phase\n";
}

void Fa3Sampler::mark(std::uint32_t cta, bool tile_start, std::int64_t tile, std::int64_t pos) {
  if (!engine_) return;
  const Cycle t = now();
  if (log_) {
    // The phase the sampler is in (a CTA that has not reached its cut yet runs in detail during a
    // span; the detail after the last span is the tail).
    static constexpr const char* kPhase[] = {"search", "span", "check", "tail"};
    static_assert(static_cast<int>(Phase::Done) == 3, "kPhase follows Phase");
    *log_ << cta << ',' << tile << ',' << pos << ',' << t << ','
          << (p_.on ? kPhase[static_cast<int>(phase_)] : "full") << '\n';
  }
  if (!p_.on) return;
  // The K/V block this mark starts: its kind (first reads, a cluster's first CTA) and the lag
  // inside an SM pair (below) look it up.
  const bool leads = p_.first_reads && cta % cluster_ == 0;
  const std::int64_t partner = pair_partner(cta);
  const std::int64_t key = leads || partner >= 0 ? kv_key(cta, tile, pos) : -1;
  if (leads) {
    // The block that ends here counts by its kind (a cluster's CTAs share their K/V: its first CTA
    // stands for it), when measured in detail after the last wake-up.
    Track& m = track_[cta];  // its latest mark (track_block records this one later)
    const bool detail = (phase_ == Phase::Detail || phase_ == Phase::Check) && t >= awake_from_;
    if (m.kind >= 0 && m.counts && !tile_start && detail) {
      const double d = static_cast<double>(t - m.t);
      kind_cycles_[m.kind] += d;
      kind_squares_[m.kind] += d * d;
      kind_blocks_[m.kind] += 1;
      win_kinds_[m.kind] += 1;
    }
    // A tile's first two blocks carry its start (the prologue, the masked first blocks): b's share.
    m.counts = !tile_start && pos >= 2;
    m.kind = read_kind(key, t);
  }
  if (cta % cluster_ == 0) measure_resume(cta, tile, pos, t);
  if (held_next_ < held_.size()) replay_held(t);
  if (phase_ == Phase::Span && t >= span_end_) {
    replay_span();  // clusters that asked after the span's end were not cut
    // The span is over: check windows next, or the detailed tail after the last span. After a
    // limited span the sampler waits for tile starts again, as before it.
    if (limited_) {
      phase_ = Phase::Detail;
      wall_to(kWallSearch);
      recent_from_ = windows_.size();
      reset_pace();
      discard_ = 1;  // the pipelines refill after the sleep
    } else if (checks_left_ > 0) {
      --checks_left_;
      phase_ = Phase::Check;
      wall_to(kWallChecks);
      check_seen_ = 0;
      check_meas_ = check_pred_ = 0;
      recent_from_ = windows_.size();
      reset_pace();
      discard_ = 1;  // the pipelines refill after the sleep
    } else {
      phase_ = Phase::Done;
      wall_to(kWallTail);
    }
  }
  account(t);
  const bool detail = (phase_ == Phase::Detail || phase_ == Phase::Check) && t >= awake_from_;
  track_block(cta, tile, pos, t, detail);
  if (detail) {
    Pace& pc = pace_[cta];
    // The lag inside an SM pair: from the partner's mark of the K/V block this CTA starts now to
    // this mark, when the partner marked it among its last 8 blocks (the partner's lag is minus
    // that). That is the time between the two CTAs' reads of the same lines, which decides whether
    // the pair's request coalescer merges them, and it is not bounded by a block: the time from the
    // partner's latest mark, modulo the block, which session 18 took, reads a pair a block and a
    // tenth apart as a tenth apart (docs/sampling.md step 4).
    if (partner >= 0 && key >= 0) {
      Pace& pq = pace_[partner];
      for (const Pace::KvMark& m : pq.kv) {
        if (m.key != key) continue;
        const double d = static_cast<double>(t - m.t);
        pc.lag += d, pq.lag -= d;
        pc.lags += 1, pq.lags += 1;
        pc.lag_times += static_cast<double>(t), pq.lag_times += static_cast<double>(t);
        break;
      }
      pc.kv[pc.kv_next++ % pc.kv.size()] = {key, t};
    }
    if (pc.seen) {
      pc.blocks += 1;
      pc.tiles += tile_start ? 1 : 0;
    } else {
      pc.seen = true;
      pc.first = t;
    }
    pc.last = t;
  }
  // Windows run from one mark to a later one and count the marks after the first: the CTAs start
  // their blocks in bunches, and a window that counted its opening mark too would see one bunch
  // more than the time it spans.
  if (!open_) {
    open_window(t);
  } else {
    win_blocks_ += 1;
    win_tiles_ += tile_start ? 1 : 0;
  }
  if (left_[cta] > 0 && --left_[cta] == 0) --running_;
  if (win_blocks_ >= static_cast<double>(p_.window_blocks) * std::max<std::uint32_t>(running_, 1)) {
    close_window(t);
    open_window(t);  // the next window starts where this one ended
  }
}

// Once the block marks have timed interior blocks and tile boundaries (track_block), the spans'
// costs come from them instead of the windows' fit, which splits a tile boundary's cost between a
// and b by where the window edges fall (a boundary costs over two or three blocks: on Llama-3 70B
// 8K the previous tile's last block and the boundary 6,100 cycles, the next two blocks 2,500-4,200
// and 5,200, against 3,458 inside a tile) and then lets a period's tile starts into its a. Both
// from the latest detail period when it timed enough, else from every period. Method choices, as
// the search's condition that the running CTAs' tile starts were seen (maybe_start_span): an
// interior block per running CTA, and a boundary of half of them (a lock-step kernel's period has
// all its CTAs' boundaries or none; a few are a few CTAs' tile starts, not the GPU's).
bool Fa3Sampler::costs_from_marks() {
  double in = 0, ic = 0, rn = 0, rc = 0, bn = 0, bc = 0, bb = 0, rbn = 0, rbc = 0, rbb = 0;
  for (std::size_t w = 0; w < windows_.size(); ++w) {
    const Window& x = windows_[w];
    in += x.int_n, ic += x.int_cycles, bn += x.bnd_n, bc += x.bnd_cycles, bb += x.bnd_blocks;
    if (w >= recent_from_) rn += x.int_n, rc += x.int_cycles, rbn += x.bnd_n, rbc += x.bnd_cycles, rbb += x.bnd_blocks;
  }
  if (in <= 0 || bn <= 0) return false;
  const double all = ic / in;
  time_.a = rn >= running_ ? rc / rn : all;
  time_.b = rbn >= 0.5 * running_ ? std::max(0.0, (rbc - time_.a * rbb) / rbn) : std::max(0.0, (bc - all * bb) / bn);
  return true;
}

// The resume overhead of a cut cluster: from its consumer 0's mark of the block before the cut to
// that of the block after the resumed one, less the sleep and those two blocks at the block cost.
// (The consumer is handed the resumed position, a mark, before it sleeps.)
void Fa3Sampler::measure_resume(std::uint32_t cta, std::int64_t tile, std::int64_t pos, Cycle t) {
  Resume& r = resume_[cta / cluster_];
  if (r.pending) {
    if (tile == r.tile && pos == r.pos) {
      r.before = track_[cta].t;
      r.have_before = true;
    } else if (r.have_before && tile == r.tile && pos == r.pos + 1) {
      const double over = static_cast<double>(t - r.before) - static_cast<double>(r.sleep) - 2 * time_.a;
      resume_sum_ += over;
      resume_n_ += 1;
      r.pending = false;
    } else if (r.have_before) {
      r.pending = false;
    }
  }
}

// Block costs from the block marks (docs/sampling.md step 2): a block of a tile's interior (neither
// of its first two nor its last) costs from its mark to the next; a tile boundary covers the
// previous tile's last block, the boundary itself and the new tile's first two blocks (fewer when
// the tile is shorter: never its last). Every block is in one or the other, so a tile of n blocks
// costs n·a + b with a the interior mean and b the boundary less the blocks it covers at a. Both
// marks must be in detail after the last wake-up.
void Fa3Sampler::track_block(std::uint32_t cta, std::int64_t tile, std::int64_t pos, Cycle t, bool detail) {
  Track& k = track_[cta];
  const auto& n = n_[cta];
  const bool ok = detail && k.detail && k.t >= awake_from_;
  if (ok && k.tile == tile && k.pos == pos - 1 && interior(n[tile], k.pos)) {
    win_int_cycles_ += static_cast<double>(t - k.t);
    win_int_n_ += 1;
  }
  if (ok && pos == 0 && k.tile == tile - 1 && k.tile >= 0 && k.pos == n[k.tile] - 1) {
    k.bnd = static_cast<int>(std::min<std::int64_t>(2, n[tile] - 1));
    k.bnd_from = k.t;
    k.bnd_blocks = 1;
  } else if (ok && k.bnd > 0 && k.tile == tile && k.pos == pos - 1 && pos <= 2) {
    k.bnd_blocks += 1;
  } else {
    k.bnd = -1;
  }
  if (k.bnd >= 0 && pos == k.bnd) {  // the new tile's first blocks seen: the sample is complete
    win_bnd_cycles_ += static_cast<double>(t - k.bnd_from);
    win_bnd_blocks_ += k.bnd_blocks;
    win_bnd_n_ += 1;
    k.bnd = -1;
  }
  k.t = t, k.tile = tile, k.pos = pos, k.detail = detail;
}

void Fa3Sampler::open_window(Cycle t) {
  open_ = true;
  win_start_ = last_t_ = t;
  win_cta_cycles_ = win_blocks_ = win_tiles_ = 0;
  win_kinds_[0] = win_kinds_[1] = 0;
  win_int_n_ = win_int_cycles_ = win_bnd_n_ = win_bnd_cycles_ = win_bnd_blocks_ = 0;
  win_counters_ = stats_->counter_values();
}

std::int64_t Fa3Sampler::kv_key(std::uint32_t cta, std::int64_t tile, std::int64_t pos) const {
  Tile t;
  if (!plan_.sched.tile(cta, tile, t)) return -1;
  const Fa3Kernel& k = plan_.k;
  const std::int64_t kv = block_range(k, t.m_block).n_max - 1 - pos;  // blocks run from n_max - 1 down
  const std::int64_t h = k.pack_gqa ? t.head : t.head / std::max<std::int64_t>(1, k.shape.group);
  if (kv < 0 || kv >= kv_blocks_ || h >= kv_heads_) return -1;
  return (t.batch * kv_heads_ + h) * kv_blocks_ + kv;
}

Fa3Sampler::ReadKind Fa3Sampler::read_kind(std::int64_t key, Cycle t) {
  if (key < 0) return kHit;
  Cycle& first = first_read_[static_cast<std::size_t>(key)];
  Cycle& last = last_read_[static_cast<std::size_t>(key)];
  // Not read within the L2's residency: its lines are gone, the read is a first read again.
  const bool gone = first != kNever && residency_ > 0 && t > last && static_cast<double>(t - last) > residency_;
  if (first == kNever || gone || t < first) {
    first = t;
    if (last == kNever || t > last) last = t;
    return kFirst;
  }
  if (t > last) last = t;
  return static_cast<double>(t - first) < in_flight_ ? kFirst : kHit;
}

// The window within which a second read of a K/V block finds its lines still in flight: the DRAM's
// mean read latency so far in the run (the L2's MSHRs merge such a read into the first one's miss).
// Read at every window's end (a lookup by name) and kept in in_flight_ for the block marks.
double Fa3Sampler::dram_read_latency() const {
  return stats_ && stats_->has("gpu.dram.avg_read_latency") ? stats_->value("gpu.dram.avg_read_latency") : 0;
}

std::int64_t Fa3Sampler::max_skip(std::uint32_t leader, std::int64_t tile, std::int64_t pos) const {
  const auto& n = n_[leader];
  if (tile >= static_cast<std::int64_t>(n.size())) return 0;
  std::int64_t m = suffix_[leader][tile] - pos - p_.tail_blocks;
  if (limited_) m = std::min<std::int64_t>(m, n[tile] - pos - limit_guard());
  return m;
}

// Every cluster's span at once, in time order (a priority queue of the clusters' next block
// starts), so that who reads a K/V block first is decided in the order the predicted reads happen:
// a block whose K/V is read first costs a times the measured first-read block time over the mean,
// one read from the L2 a times the hit time over the mean (the times over every detail period so
// far; the mean at the mix of the latest period, whose windows a is fitted on). A follower thus
// catches up with the cluster that fetches its K/V until it reads within the DRAM latency of it
// and waits for the same lines: the lock-step packs of the full-detail runs (docs/sampling.md step
// 4). Clusters that have not asked yet start at their next position, at the time the first asks.
void Fa3Sampler::plan_first_reads(std::uint32_t asker, std::int64_t tile, std::int64_t pos, Cycle now) {
  fr_plan_span_ = span_id_;
  for (FirstReadPlan& p : fr_plan_) p.valid = false;
  trace::FirstReadSpan& rep = fr_spans_.emplace_back();
  in_flight_ = dram_read_latency();
  // Method choice: a window's worth of blocks of each kind before their times are trusted.
  const double least = static_cast<double>(p_.window_blocks);
  if (in_flight_ <= 0 || kind_blocks_[kFirst] < least || kind_blocks_[kHit] < least) return;
  rep.first_read_cycles = kind_cycles_[kFirst] / kind_blocks_[kFirst];
  rep.hit_cycles = kind_cycles_[kHit] / kind_blocks_[kHit];
  // The fit's block cost a is the latest detail period's, at that period's mix of kinds: a block
  // costs a times its kind's time over the mean time at that mix.
  double kinds[2] = {0, 0};
  for (std::size_t w = recent_from_; w < windows_.size(); ++w)
    kinds[0] += windows_[w].kinds[0], kinds[1] += windows_[w].kinds[1];
  if (kinds[0] + kinds[1] <= 0) return;
  const double mean = (kinds[kFirst] * rep.first_read_cycles + kinds[kHit] * rep.hit_cycles) / (kinds[0] + kinds[1]);
  // Kinds that cost the same (compute-bound blocks) change nothing: the uniform walk then, also when
  // their difference is within sample.tolerance or not significant (under 1.96 standard errors of
  // the difference of the two means: 95% confidence, as SMARTS states its samples'). The uniform
  // walk is also cheaper: Llama-3 405B at 64K tokens would plan 3 million blocks a span.
  double se2 = 0;
  for (int k = 0; k < 2; ++k) {
    const double m = kind_cycles_[k] / kind_blocks_[k];
    se2 += std::max(0.0, kind_squares_[k] / kind_blocks_[k] - m * m) / kind_blocks_[k];
  }
  const double diff = std::abs(rep.first_read_cycles - rep.hit_cycles);
  if (diff <= p_.tolerance * mean || diff <= 1.96 * std::sqrt(se2)) return;
  const double cost[2] = {time_.a * rep.first_read_cycles / mean, time_.a * rep.hit_cycles / mean};
  const double target = static_cast<double>(span_end_ - span_start_);
  // A cluster's walk: its position, blocks and time are its plan's (fr_plan_).
  struct Walk {
    std::uint32_t leader;
    std::int64_t max_skip;
    std::int64_t key_ti = -1, key0 = -1;  // kv_key of position 0 of tile key_ti (blocks count down)
  };
  std::vector<Walk> walks;
  using Next = std::pair<double, std::size_t>;  // (cycles into the span, walk): ties by cluster
  std::priority_queue<Next, std::vector<Next>, std::greater<>> q;
  for (std::uint32_t c = 0; c < ctas_; c += cluster_) {
    const Cluster& cl = clusters_[c / cluster_];
    const bool asks = c / cluster_ == asker / cluster_;
    if (left_[c] <= 0 || (cl.span == span_id_ && !asks)) continue;
    std::int64_t ti = tile, tp = pos;
    if (!asks) {
      ti = std::max<std::int64_t>(cl.frontier.first, 0);
      tp = cl.frontier.first < 0 ? 0 : cl.frontier.second + 1;
    }
    const auto size = static_cast<std::int64_t>(n_[c].size());
    while (ti < size && tp >= n_[c][ti]) ++ti, tp = 0;
    if (ti >= size) continue;
    FirstReadPlan& p = fr_plan_[c / cluster_];
    p = FirstReadPlan{};
    p.valid = true;
    p.tile = p.ti = ti;
    p.pos = p.tp = tp;
    walks.push_back({c, max_skip(c, ti, tp)});
    q.push({0.0, walks.size() - 1});
  }
  double firsts = 0, blocks = 0;
  while (!q.empty()) {
    const auto [at, i] = q.top();
    q.pop();
    Walk& w = walks[i];
    FirstReadPlan& p = fr_plan_[w.leader / cluster_];
    const auto& n = n_[w.leader];
    const auto size = static_cast<std::int64_t>(n.size());
    while (p.ti < size && p.tp >= n[p.ti]) ++p.ti, p.tp = 0;
    if (p.skipped >= w.max_skip || p.ti >= size) continue;
    if (w.key_ti != p.ti) w.key_ti = p.ti, w.key0 = kv_key(w.leader, p.ti, 0);
    const std::int64_t key = w.key0 >= 0 && w.key0 % kv_blocks_ >= p.tp ? w.key0 - p.tp : -1;
    const ReadKind kind = read_kind(key, now + static_cast<Cycle>(at));
    const double c = cost[kind] + (p.tp == 0 ? time_.b : 0);
    if (at + c > target) continue;
    p.cycles = at + c;
    p.starts += p.tp == 0;
    ++p.skipped;
    ++p.tp;
    firsts += kind == kFirst;
    blocks += 1;
    q.push({p.cycles, i});
  }
  rep.planned_first_share = blocks > 0 ? firsts / blocks : 0;
}

Cut Fa3Sampler::make_cut(std::uint32_t leader, std::int64_t tile, std::int64_t pos, Cycle now) {
  Cut x;
  const auto& n = n_[leader];
  // Every cluster skips the work of the whole span, from wherever it is when it first asks: the
  // CTAs keep their offsets in time (and so their positions relative to one another), which is
  // what the L2 sharing between CTAs of one head depends on.
  const double target = static_cast<double>(span_end_ - span_start_);
  const std::int64_t most = max_skip(leader, tile, pos);
  if (most < p_.min_skip_blocks || target < p_.min_skip_blocks * time_.a) return x;
  // Greedy walk: blocks (and the tile starts among them) while their predicted time fits the span.
  double acc = 0;
  std::int64_t skipped = 0, starts = 0, ti = tile, tp = pos;
  const auto size = static_cast<std::int64_t>(n.size());
  bool planned = false;
  if (p_.first_reads) {
    if (fr_plan_span_ != span_id_) plan_first_reads(leader, tile, pos, now);
    // The plan holds where it starts where this cluster asks (else the uniform walk below).
    const FirstReadPlan& pl = fr_plan_[leader / cluster_];
    if (pl.valid && pl.skipped > 0 && pl.tile == tile && pl.pos == pos) {
      planned = true;
      skipped = pl.skipped, starts = pl.starts, ti = pl.ti, tp = pl.tp, acc = pl.cycles;
    }
  }
  while (!planned && skipped < most) {
    while (ti < size && tp >= n[ti]) ++ti, tp = 0;
    const double cost = time_.a + (tp == 0 ? time_.b : 0);
    if (acc + cost > target) break;
    acc += cost;
    starts += tp == 0;
    ++skipped;
    ++tp;
  }
  while (ti < size && tp >= n[ti]) ++ti, tp = 0;
  if (skipped < p_.min_skip_blocks || ti >= size) return x;
  // The span's time charges every tile start it skips. The resumed tile runs its prologue again in
  // detail, but that costs a resume overhead of a few hundred to two thousand cycles (measured
  // below), not a tile start: the skipped tile's epilogue and the pipeline's drain between tiles
  // are not repeated, and the producer, which reached the cut blocks before the consumers, wakes
  // first and has the loads in flight. (Until session 15 the resumed start cancelled one skipped
  // start: the development set's h100 D256 4K MHA, batch 4, came out 2.5% fast.) Its counters do
  // cancel: the detail loads the resumed tile's Q once more, as the real kernel did at that start.
  const std::int64_t t_skip = starts - ((tp > 0 && (ti != tile || pos == 0)) ? 1 : 0);
  const double d = planned ? acc : time_.a * static_cast<double>(skipped) + time_.b * static_cast<double>(starts);
  x.cut = true;
  // Drift: the cluster wakes as much later (earlier) as its pace says it falls behind (gets ahead)
  // over the span, its shift summed over the spans held within the tile-start burst.
  double sleep = d;
  if (const double pace = drift_bound_ > 0 ? cluster_pace(leader) : 0; pace > 0) {
    // The shift has two parts. The cluster's (an SM pair's: cluster_pace), held within the
    // tile-start burst. And, for a CTA that shares its SM pair's coalescer with another cluster,
    // its part of the pair's own offset, which grows as measured so far: in proportion to the
    // time since launch, held within a quarter of a block each (method choice, kept from session
    // 18: docs/sampling.md step 4 measures larger limits).
    double& common = shift_[leader / cluster_];
    double& rel = pair_shift_[leader / cluster_];
    const double before = common + rel;
    common = std::clamp(common + d * (pace - 1), -drift_bound_, drift_bound_);
    if (const Pace& pc = pace_[leader]; pair_partner(leader) >= 0 && pc.lags > 0 && pc.lag_times > 0) {
      // The pair's mean lag, grown from zero at launch at a steady rate: the lag over the mean
      // time it was measured at (the search's lags, from launch on, average half the lag at its
      // end). Each CTA of the pair moves by half of the growth.
      const double lag = pc.lag / pc.lags;
      const double at = pc.lag_times / pc.lags;
      rel = std::clamp(rel + 0.5 * lag * d / at, -0.25 * time_.a, 0.25 * time_.a);
      pair_sum_ += 2 * std::abs(rel);
      pair_n_ += 1;
      pair_offsets_.back() = pair_sum_ / pair_n_;
    }
    sleep = std::max(0.0, d + common + rel - before);
  }
  // The detail after the wake-up pays the resume overhead the real kernel does not: off the sleep.
  sleep = std::max(0.0, sleep - span_resume_);
  x.sleep = static_cast<std::uint64_t>(std::llround(sleep));
  // Measured where both blocks around the cut, the last run before it and the resumed one, are
  // interior ones (no boundary cost in it).
  if (interior(n[tile], pos - 1) && interior(n[ti], tp)) resume_[leader / cluster_] = {true, false, ti, tp, x.sleep, 0};
  x.tile = ti;
  x.pos = tp;
  const double members = cluster_;
  span_work_.back().tiles += members * static_cast<double>(std::max<std::int64_t>(t_skip, 0));
  span_work_.back().blocks += members * static_cast<double>(skipped);
  for (std::uint32_t c = leader; c < leader + cluster_ && c < ctas_; ++c) {
    left_[c] -= skipped;
    if (left_[c] <= 0) left_[c] = 0;
  }
  skipped_cycles_ += members * d;
  // The consumers reach the cut a few blocks after the producer: margin before windows count again.
  awake_from_ = std::max(awake_from_, now + x.sleep + static_cast<Cycle>(4 * time_.a));
  return x;
}

void Fa3Sampler::reset_pace() {
  for (Pace& p : pace_) p = Pace{};
}

double Fa3Sampler::cluster_pace(std::uint32_t leader) const {
  if (pace_ref_ <= 0) return 0;
  double meas = 0, pred = 0;
  std::uint32_t members = 0;
  for (std::uint32_t c = leader; c < leader + cluster_ && c < ctas_; ++c)
    meas += pace_[c].measured(), pred += pace_[c].predicted(time_), ++members;
  // An SM pair moves at one pace (make_cut adds the growth of the offset within it).
  if (const std::int64_t q = pair_partner(leader); q >= 0 && pace_[q].seen)
    meas += pace_[q].measured(), pred += pace_[q].predicted(time_), ++members;
  // Method choice: at least half a window's blocks per CTA (a pace from a block or two is noise).
  if (pred < 0.5 * time_.a * p_.window_blocks * members) return 0;
  return meas / pred / pace_ref_;
}

std::int64_t Fa3Sampler::pair_partner(std::uint32_t cta) const {
  if (cluster_ != 1 || p_.sms <= 0 || ctas_ > static_cast<std::uint32_t>(p_.sms)) return -1;
  const std::uint32_t q = cta ^ 1u;
  return q < ctas_ ? static_cast<std::int64_t>(q) : -1;
}

// The bound is the DRAM burst of a tile start: the bytes a tile start reads from DRAM (the fit's
// tile-start term), times the CTAs that start tiles together, at the DRAM's peak bandwidth. A CTA
// that comes late to the burst queues behind it and falls further behind; one that is later than
// the whole burst no longer does (docs/sampling.md "Limits": on h800 D64 8K GQA 8x4 the full-detail
// offsets grow and stop near 3,800 cycles; on a 16-CTA grid they stay near 200).
void Fa3Sampler::plan_drift() {
  drift_bound_ = 0;
  pace_ref_ = 0;
  if (p_.drift && dram_peak_ > 0) {
    double tile_bytes = 0;
    for (const std::size_t i : dram_reads_) tile_bytes += counters_[i].b;
    drift_bound_ = std::max(0.0, tile_bytes * running_ / dram_peak_);
    // A CTA that the burst delays by less than the coalescer's window still merges its requests
    // into its SM-pair partner's in-flight ones and catches up with it (merged requests complete
    // together): no drift then.
    if (drift_bound_ <= p_.lock_window) drift_bound_ = 0;
    double meas = 0, pred = 0;
    for (const Pace& pc : pace_) meas += pc.measured(), pred += pc.predicted(time_);
    if (pred > 0) pace_ref_ = meas / pred;
  }
  drift_bounds_.push_back(drift_bound_);
  pair_offsets_.push_back(0);
  pair_sum_ = pair_n_ = 0;
}

Cut Fa3Sampler::at(std::uint32_t cta, std::int64_t tile, std::int64_t pos) {
  if (!engine_ || !p_.on) return {};
  Cluster& c = clusters_[cta / cluster_];
  const std::pair<std::int64_t, std::int64_t> key{tile, pos};
  if (key <= c.frontier) {
    const auto it = c.cuts.find(key);
    return it == c.cuts.end() ? Cut{} : it->second;
  }
  c.frontier = key;
  const Cycle t = now();
  if (phase_ != Phase::Span || t >= span_end_ || c.span == span_id_) return {};
  c.span = span_id_;
  ++span_asked_;
  const std::uint32_t leader = cta / cluster_ * cluster_;
  const Cut x = make_cut(leader, tile, pos, t);
  if (x.cut) {
    c.cuts.emplace(key, x);
    c.frontier = {x.tile, x.pos};
    span_cuts_.push_back({leader, tile, pos, x.tile, x.pos, t, t + x.sleep});
  }
  // Every cluster is cut now (the first cut sleeps a whole span): the skipped work's traffic goes
  // through the counted sets before any of it wakes. With sample.replay_after_drain, once what the
  // cut WarpGroups issue before their sleeps has reached the L2 (on_event), as in the real kernel,
  // where that traffic came before the skipped work's.
  if (span_asked_ >= span_active_) {
    if (p_.replay_after_drain && replay_ && !span_cuts_.empty() && span_cuts_.size() >= span_active_)
      replay_->call_at(this, kDrainTag, t + 1);
    else
      replay_span();
  }
  return x;
}

// The statistics of the skipped work come from the fit over every steady-state and check window
// of the run (not only those before each span): memory counters are noisy per window (L2
// write-backs come in bursts after the tile starts that evict dirty O lines) and the fit over
// more windows averages that out.
double Fa3Sampler::skipped_blocks() const {
  double n = 0;
  for (const SpanWork& sw : span_work_) n += sw.blocks;
  return n;
}

void Fa3Sampler::finish(Cycle end, Stats& stats) {
  if (engine_ && p_.on) wall_to(wall_at_);
  end_ = end;
  replay_held(kNever);
  if (skipped_blocks() <= 0) return;
  refit();
  // Each span's skipped work at the rates of the detail periods on either side of it (the mean of
  // the two; the last span has only the one before): what a block adds to a counter drifts
  // through a run as the CTAs drift apart (the L2 request coalescer merges fewer of their
  // requests). A tile start's share comes from every window (a period holds few tile starts).
  std::vector<double> extra(counters_.size(), 0.0);
  // Every counter's per-block rate over the detail period before each span (empty: no blocks), from
  // the windows rate_windows() keeps: after a wake-up every CTA crosses a tile boundary in the
  // dropped windows, and the check's first window carries that boundary's traffic without its marks
  // (h100 D256 8K MHA: 1,490 L2 sectors per block there, against 1,268-1,300 in every window of full
  // detail that neither holds a tile start nor follows one).
  std::vector<double> tiles(windows_.size()), tiles_before(windows_.size());
  for (std::size_t w = 0; w < windows_.size(); ++w) tiles[w] = windows_[w].tiles, tiles_before[w] = windows_[w].tiles_before;
  std::vector<std::vector<double>> rate(span_work_.size());
  for (std::size_t s = 0; s < span_work_.size(); ++s) {
    const auto [lo, hi] = rate_windows(tiles, tiles_before, span_work_[s].from, span_work_[s].to);
    double sb = 0, st = 0;
    std::vector<double> sy(counters_.size(), 0.0);
    for (std::size_t w = lo; w < hi; ++w) {
      sb += windows_[w].blocks, st += windows_[w].tiles;
      for (std::size_t k = 0; k < counters_.size(); ++k) sy[k] += windows_[w].delta[k];
    }
    if (sb <= 0) continue;
    rate[s].resize(counters_.size());
    for (std::size_t k = 0; k < counters_.size(); ++k) rate[s][k] = (sy[k] - counters_[k].b * st) / sb;
  }
  for (std::size_t s = 0; s < span_work_.size(); ++s) {
    const std::vector<double>* after = s + 1 < rate.size() && !rate[s + 1].empty() ? &rate[s + 1] : nullptr;
    for (std::size_t k = 0; k < counters_.size(); ++k) {
      double a = counters_[k].a;
      if (!rate[s].empty()) a = after ? 0.5 * (rate[s][k] + (*after)[k]) : rate[s][k];
      extra[k] += std::max(0.0, a) * span_work_[s].blocks + counters_[k].b * span_work_[s].tiles;
    }
  }
  const std::vector<std::size_t> l2 = counter_family(stats.counter_names(), counters_.size(), "gpu.l2.slice[", "].sectors");
  for (const std::vector<double>& r : rate) {
    if (r.empty()) continue;
    double sum = 0;
    for (std::size_t i : l2) sum += r[i];
    l2_per_block_.push_back(sum);
  }
  apply_replay(extra);
  stats.add_to_counters(extra);
}

// The copies come block by block across the clusters (the j-th skipped block of every cluster, in
// the order the clusters were cut, then the (j+1)-th): the CTAs' relative positions during the
// span, which decide whether a K/V line another CTA brought in is still in the L2. Per block: the
// Q load of a tile whose prologue was skipped (the resumed tile runs its own), each cluster
// member's K and V loads (multicast: each member's share), and the O stores of a tile whose
// epilogue was skipped. Every copy runs through the replay slices as it comes. The other slices
// then take the last L2-capacity of distinct copies as warming, each at its last use (an LRU
// cache's final state depends only on the order of last uses; a K/V tile that recurs across CTAs
// and tiles counts once), so that all slices leave the span holding what the real kernel would
// have left: a second walk, back from the span's end, finds them. Nothing of the span is stored
// but that window.
void Fa3Sampler::replay_span() {
  if (!replay_ || span_cuts_.empty()) {
    span_cuts_.clear();
    return;
  }
  if (!replayed_) choose_set_stride();
  // Every cluster with work left sleeps through the span: the memory system sees no new request
  // before the first of them wakes. Until then the replay may run ahead of time; the blocks
  // predicted after it wait for the detailed run to get there (replay_held), since a cluster
  // awake then (one that woke early near its end, or was not cut) sends its requests in between.
  replay_held(kNever);  // a span's held blocks all come before the next span's cuts
  Cycle awake = now();
  if (span_cuts_.size() >= span_active_) {
    awake = first_wake();
    replay_->quiet_until(awake);
  }
  held_.clear();
  held_next_ = 0;
  held_cuts_ = span_cuts_;
  // Each cut cluster's skipped blocks, as indices into its CTAs' block sequence.
  const std::size_t nc = span_cuts_.size();
  std::vector<std::int64_t> first(nc), len(nc);
  std::int64_t most = 0;
  for (std::size_t i = 0; i < nc; ++i) {
    const SpanCut& c = span_cuts_[i];
    first[i] = block_index(c.leader, c.tile, c.pos);
    len[i] = block_index(c.leader, c.end_tile, c.end_pos) - first[i];
    most = std::max(most, len[i]);
  }
  // Counting: every copy, in the kernel's order, through the replay slices.
  std::vector<std::pair<std::int64_t, std::int64_t>> at(nc);
  for (std::size_t i = 0; i < nc; ++i) at[i] = block_at(span_cuts_[i].leader, first[i]);
  for (std::int64_t j = 0; j < most; ++j)
    for (std::size_t i = 0; i < nc; ++i) {
      if (j >= len[i]) continue;
      const SpanCut& c = span_cuts_[i];
      auto& [ti, tp] = at[i];
      const auto& n = n_[c.leader];
      while (tp >= n[ti]) ++ti, tp = 0;
      // The cluster's skipped blocks, evenly over its sleep.
      const double when = static_cast<double>(c.from) + static_cast<double>(c.wake - c.from) *
                                                            static_cast<double>(j) / static_cast<double>(len[i]);
      if (when >= static_cast<double>(awake))
        held_.push_back({when, static_cast<std::uint32_t>(i), ti, tp});
      else
        replay_block(c, ti, tp);
      ++tp;
    }
  // The Q of each resumed tile that started inside the span: the real kernel loaded it there,
  // within a tile of the span's end, so the warming below takes it with the newest copies.
  // The woken CTA loads that Q again in detail (its tile's prologue): the other slices then serve it
  // instead of DRAM, where all the woken CTAs' Q loads would arrive at once, a burst (132 x 32 KiB
  // on the default run) that the real kernel, whose tile starts are spread out, never has. The
  // replay slices do not take it: there the load at the wake is the one that counts.
  std::vector<trace::Instr> q, o;
  const KvCopies* kv = nullptr;
  std::vector<std::pair<trace::Instr, std::uint32_t>> resumed;
  for (std::size_t i = 0; i < nc; ++i) {
    const SpanCut& c = span_cuts_[i];
    if (c.end_pos <= 0 || block_index(c.leader, c.end_tile, 0) < first[i]) continue;
    for (std::uint32_t cta = c.leader; cta < c.leader + cluster_ && cta < ctas_; ++cta) {
      Tile t;
      if (!plan_.sched.tile(cta, c.end_tile, t) || block_range(plan_.k, t.m_block).count() <= 0) continue;
      q.clear();
      plan_.em.load_q(q, t);
      for (const trace::Instr& in : q) resumed.emplace_back(in, cta);
    }
  }
  // Warming: the span's last L2-capacity of distinct copies (a K/V tile that recurs across CTAs
  // and tiles counts once, at its last use), found walking back from the span's end, then warmed
  // oldest first. The copy that crosses the capacity is included.
  auto key_of = [](const trace::Instr& in) {  // the same copy: same tensor map (or none), origin and kind
    return in.gmem * 0x9E3779B97F4A7C15ULL ^ (std::uint64_t{in.map} << 1) ^ static_cast<std::uint64_t>(in.op);
  };
  std::vector<std::pair<trace::Instr, std::uint32_t>> warm;  // newest first
  std::unordered_set<std::uint64_t> seen;
  double bytes = 0;
  bool full = false;
  auto take = [&](const trace::Instr& in, std::uint32_t cta) {
    const double b = static_cast<double>(replay_->bytes(in));
    if (b <= 0 || !seen.insert(key_of(in)).second) return;
    warm.emplace_back(in, cta);
    bytes += b;
    full = bytes >= p_.l2_bytes;
  };
  for (auto it = resumed.rbegin(); it != resumed.rend() && !full; ++it) take(it->first, it->second);
  for (std::size_t i = 0; i < nc; ++i)
    if (len[i] > 0) at[i] = block_at(span_cuts_[i].leader, first[i] + len[i] - 1);
  for (std::int64_t j = most - 1; j >= 0 && !full; --j)
    for (std::size_t i = nc; i-- > 0 && !full;) {
      if (j >= len[i]) continue;
      const SpanCut& c = span_cuts_[i];
      auto& [ti, tp] = at[i];
      for (std::uint32_t cta = std::min(c.leader + cluster_, ctas_); cta-- > c.leader && !full;) {
        if (!block_copies(c, ti, tp, cta, q, kv, o)) continue;
        for (auto it = o.rbegin(); it != o.rend() && !full; ++it) take(*it, cta);
        for (std::uint32_t x = kv->end; x-- > kv->begin && !full;) take(kv_instrs_[x], cta);
        for (auto it = q.rbegin(); it != q.rend() && !full; ++it) take(*it, cta);
      }
      if (j > 0) {
        const auto& n = n_[c.leader];
        while (--tp < 0) tp = n[--ti];
      }
    }
  for (auto it = warm.rbegin(); it != warm.rend(); ++it) replay_->replay(it->first, it->second, true);
  span_cuts_.clear();
  replayed_ = true;
  std::stable_sort(held_.begin(), held_.end(), [](const HeldBlock& a, const HeldBlock& b) { return a.at < b.at; });
  // Block marks replay them as the awake clusters pass their time; a cluster that wakes where no
  // mark comes before (the early ones done) gets them replayed first, before its first request.
  if (!held_.empty()) {
    std::vector<Cycle> wakes;
    for (const SpanCut& c : held_cuts_)
      if (c.wake > now()) wakes.push_back(c.wake);
    std::sort(wakes.begin(), wakes.end());
    wakes.erase(std::unique(wakes.begin(), wakes.end()), wakes.end());
    for (Cycle w : wakes) replay_->call_at(this, kWakeTag, w);
  }
}

Cycle Fa3Sampler::first_wake() const {
  Cycle wake = kNever;
  for (const SpanCut& c : span_cuts_) wake = std::min(wake, c.wake);
  return wake;
}

void Fa3Sampler::on_event(std::uint32_t tag, const Payload&, Cycle now) {
  if (tag == kDrainTag) {
    // Every WarpGroup still running sleeps and no request is in flight: the span replay runs. The
    // poll's period changes nothing (nothing reaches the L2 once all sleep and it is empty); the
    // first wake-up comes first in any case.
    if (span_cuts_.empty()) return;
    if (replay_->quiescent(now) || now + kDrainPoll >= first_wake())
      replay_span();
    else
      replay_->call_at(this, kDrainTag, now + kDrainPoll);
    return;
  }
  if (held_next_ < held_.size()) replay_held(now);
}

// Every cluster member's copies of block (ti, tp) of cut `c` through the replay slices.
void Fa3Sampler::replay_block(const SpanCut& c, std::int64_t ti, std::int64_t tp) {
  std::vector<trace::Instr>& q = block_q_;
  std::vector<trace::Instr>& o = block_o_;
  const KvCopies* kv = nullptr;
  for (std::uint32_t cta = c.leader; cta < c.leader + cluster_ && cta < ctas_; ++cta) {
    if (!block_copies(c, ti, tp, cta, q, kv, o)) continue;
    for (const trace::Instr& in : q) replay_->replay(in, cta, false);
    for (std::uint32_t x = kv->begin; x < kv->end; ++x) replay_->replay_prepared(kv_ids_[x], cta);
    for (const trace::Instr& in : o) replay_->replay(in, cta, false);
  }
}

// The held blocks predicted before `upto`, in time order (kNever: all of them).
void Fa3Sampler::replay_held(Cycle upto) {
  for (; held_next_ < held_.size(); ++held_next_) {
    const HeldBlock& h = held_[held_next_];
    if (upto != kNever && h.at > static_cast<double>(upto)) break;
    replay_block(held_cuts_[h.cut], h.ti, h.tp);
  }
  if (held_next_ >= held_.size()) {
    held_.clear();
    held_next_ = 0;
  }
}

// Index of block `pos` of tile `tile` in the CTA's sequence of KV blocks (tile == its tile count:
// the end).
std::int64_t Fa3Sampler::block_index(std::uint32_t leader, std::int64_t tile, std::int64_t pos) const {
  const auto& suf = suffix_[leader];
  return suf[0] - suf[static_cast<std::size_t>(tile)] + pos;
}

// The (tile, pos) of block index g (< the CTA's blocks): the last tile that starts at or before g.
std::pair<std::int64_t, std::int64_t> Fa3Sampler::block_at(std::uint32_t leader, std::int64_t g) const {
  const auto& suf = suffix_[leader];
  std::size_t lo = 0, hi = n_[leader].size();  // start(lo) <= g < start(hi)
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    (suf[0] - suf[mid] <= g ? lo : hi) = mid;
  }
  return {static_cast<std::int64_t>(lo), g - (suf[0] - suf[lo])};
}

// The copies of CTA `cta`'s block (ti, tp) in span cut `c`, in the kernel's order: the Q load of a
// tile whose prologue was skipped (the resumed tile runs its own), the CTA's K and V loads
// (multicast: its share; prepared, kv_copies), the O stores of a tile whose epilogue was skipped.
// False when the CTA has no such block (a cluster member with a shorter tile).
bool Fa3Sampler::block_copies(const SpanCut& c, std::int64_t ti, std::int64_t tp, std::uint32_t cta,
                              std::vector<trace::Instr>& q, const KvCopies*& kv, std::vector<trace::Instr>& o) {
  const Fa3Kernel& k = plan_.k;
  const Fa3Emitter& e = plan_.em;
  Tile t;
  if (!plan_.sched.tile(cta, ti, t)) return false;
  const BlockRange r = block_range(k, t.m_block);
  if (tp >= r.count()) return false;
  q.clear();
  o.clear();
  if (tp == 0 && ti != c.end_tile) e.load_q(q, t);
  kv = &kv_copies(cta, ti, t, r.n_max - 1 - tp, cta % static_cast<std::uint32_t>(k.cluster));
  // A cut inside a tile leaves that tile's epilogue to run in detail (the mainloop ends at the
  // cut); a cut before its prologue skips the whole tile.
  const bool epilogue_skipped = ti != c.end_tile && !(ti == c.tile && c.pos > 0);
  if (tp == r.count() - 1 && epilogue_skipped)
    for (int wg = 0; wg < k.consumer_wgs; ++wg) {
      if (k.o_from_registers) e.store_o_from_registers(o, t, wg);
      else if (k.paper_recipe) e.store_o(o, t, 64 * wg);
      else if (wg == k.consumer_wgs - 1) e.store_o(o, t, 0);
    }
  return true;
}

// The K and V copies of KV block `n` for cluster rank `rank` of tile `t`'s head: they depend only on
// the batch, the head, n and the rank (Fa3Emitter::load_kv, stage 0), and recur for every tile of
// that head, so they are emitted and prepared (CopyReplay::prepare) once, and CTA `cta` finds its
// tile `ti`'s head again without a lookup. Bounded: past kMaxPreparedLines the prepared copies are
// dropped and prepared again as they come.
const Fa3Sampler::KvCopies& Fa3Sampler::kv_copies(std::uint32_t cta, std::int64_t ti, const Tile& t, std::int64_t n,
                                                   std::uint32_t rank) {
  KvCursor& cur = kv_cursor_[cta];
  if (cur.ti != ti || cur.gen != kv_gen_) {
    if (replay_->prepared_lines() > kMaxPreparedLines) {
      replay_->forget();
      kv_.clear();
      kv_instrs_.clear();
      kv_ids_.clear();
      ++kv_gen_;
    }
    cur = {ti, kv_gen_, &kv_[HeadKey{t.batch, t.head, rank}]};
  }
  std::vector<KvCopies>& v = *cur.v;
  const auto i = static_cast<std::size_t>(n);
  if (i >= v.size()) v.resize(i + 1);
  KvCopies& c = v[i];
  if (c.end != KvCopies::kUnset) return c;
  c.begin = static_cast<std::uint32_t>(kv_instrs_.size());
  std::vector<trace::Instr> tmp;
  plan_.em.load_k(tmp, 0, t, n, rank);
  plan_.em.load_v(tmp, 0, t, n, rank);
  for (const trace::Instr& in : tmp) {
    if (replay_->bytes(in) == 0) continue;
    kv_instrs_.push_back(in);
    kv_ids_.push_back(replay_->prepare(in));
  }
  c.end = static_cast<std::uint32_t>(kv_instrs_.size());
  return c;
}

// The replay slices count the sets of every k-th set class, k at least sample.replay_set_stride
// (8: 1/8 of the L2, spread over every slice; docs/sampling.md step 5). The replay's cost is one
// tag lookup (or a few, for a far read) per counted line: Llama-3 405B at 64K tokens would count
// 5.5e8 lines at k = 8, most of a sampled run's time. Above the budget (sample.replay_lines) k
// doubles. The run's counted lines are estimated from every block not yet run (the skipped work is
// nearly all of it) times one block's K and V lines, per counted share of the L2. At least 256
// sets stay counted, so that no few sets decide the counts.
void Fa3Sampler::choose_set_stride() {
  const double sets = replay_->replay_sets();
  const trace::CopyReplay::Counts rc = replay_->counts();  // every set counts until now: k = 1
  set_stride_ = p_.replay_set_stride;
  replay_->set_set_stride(set_stride_);
  if (sets <= 0 || rc.scale <= 0 || span_cuts_.empty()) return;
  const SpanCut& c = span_cuts_.front();
  Tile t;
  if (!plan_.sched.tile(c.leader, c.tile, t)) return;
  const BlockRange r = block_range(plan_.k, t.m_block);
  std::vector<trace::Instr> tmp;
  for (std::uint32_t cta = c.leader; cta < c.leader + cluster_ && cta < ctas_; ++cta) {
    const auto rank = cta % static_cast<std::uint32_t>(plan_.k.cluster);
    plan_.em.load_k(tmp, 0, t, r.n_max - 1, rank);
    plan_.em.load_v(tmp, 0, t, r.n_max - 1, rank);
  }
  double bytes = 0;
  for (const trace::Instr& in : tmp) bytes += static_cast<double>(replay_->bytes(in));
  const double per_block = bytes / static_cast<double>(cluster_) / replay_->line_bytes();
  double blocks = skipped_blocks();  // this first span's, and what is left after it
  for (std::int64_t l : left_) blocks += static_cast<double>(l);
  const double counted = blocks * per_block / rc.scale;  // at k = 1
  std::uint32_t k = p_.replay_set_stride;
  while (k < 64 && counted / k > p_.replay_lines && sets / (2 * k) >= 256) k *= 2;
  set_stride_ = k;
  replay_->set_set_stride(k);
}

// Counter families the replay measures: the run's DRAM bytes read and written, L2 read misses,
// evictions and RemoteCopy shadow inserts, estimated from the replay slices alone (their detailed
// counts plus what the replay counted, scaled to all slices), become the family's totals. The
// skipped work's share is split over the channels or slices, and carried to the family's
// companions (request counts), in the fit's proportions; a family the fit saw nothing of is spread
// evenly, its companions at the detailed run's ratio. Then the counters derived from them
// (write-backs, shadow hits, sectors served without DRAM).
void Fa3Sampler::apply_replay(std::vector<double>& extra) const {
  if (!replay_ || !replayed_) return;
  const trace::CopyReplay::Counts rc = replay_->counts();
  if (rc.scale <= 0) return;
  const std::vector<std::string> names = stats_->counter_names();
  const std::vector<std::uint64_t> now = stats_->counter_values();
  // A family of counters (counter_family), and sums of their detailed counts and of their skipped
  // work's.
  using Members = std::vector<std::size_t>;
  auto family = [&](std::string_view prefix, std::string_view suffix) {
    return counter_family(names, extra.size(), prefix, suffix);
  };
  auto detailed = [&](const Members& m) {
    double s = 0;
    for (std::size_t i : m) s += static_cast<double>(now[i]);
    return s;
  };
  auto skipped = [&](const Members& m) {
    double s = 0;
    for (std::size_t i : m) s += std::max(0.0, extra[i]);
    return s;
  };
  // The family's skipped work becomes `total`, split over its members as the fit split it (evenly
  // where the fit saw none); returns each member's previous value.
  auto spread = [&](const Members& m, double total) {
    const double fitted = skipped(m);
    std::vector<double> was(m.size());
    for (std::size_t j = 0; j < m.size(); ++j) {
      was[j] = extra[m[j]];
      const double share = fitted > 0 ? std::max(0.0, was[j]) / fitted : 1.0 / static_cast<double>(m.size());
      extra[m[j]] = total * share;
    }
    return was;
  };
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < names.size(); ++i) index[names[i]] = i;
  struct Family {
    std::string prefix, suffix;
    double total;
    std::vector<std::string> companions;
  };
  const Family fams[] = {
      {"gpu.dram.ch[", "].read_bytes", rc.run_read_bytes, {"].reads"}},
      {"gpu.dram.ch[", "].write_bytes", rc.run_write_bytes, {"].writes"}},
      {"gpu.l2.slice[", "].read_misses", rc.run_read_misses, {}},
      {"gpu.l2.slice[", "].evictions", rc.run_evictions, {}},
      {"gpu.l2.slice[", "].shadow_inserts", rc.run_shadow_inserts, {}},
  };
  for (const Family& f : fams) {
    const Members m = family(f.prefix, f.suffix);
    if (m.empty()) continue;
    const std::vector<double> was = spread(m, std::max(0.0, f.total - detailed(m)));
    for (std::size_t j = 0; j < m.size(); ++j) {
      const std::size_t i = m[j];
      const std::string stem = names[i].substr(0, names[i].size() - f.suffix.size());
      for (const std::string& cs : f.companions) {
        const auto it = index.find(stem + cs);
        if (it == index.end() || it->second >= extra.size()) continue;
        double& x = extra[it->second];
        if (was[j] > 0) {
          x = x * extra[i] / was[j];
        } else {
          const double per = now[i] > 0 ? static_cast<double>(now[it->second]) / static_cast<double>(now[i]) : 0;
          x = extra[i] * per;
        }
      }
    }
  }
  // Write-backs: each dirty line an L2 slice evicts is one DRAM write request (equal in detail, but
  // for those still in flight), and the fit over the windows over-counts them (bursts after every
  // wake-up): the skipped work's are the replayed DRAM writes', in the detailed run's ratio.
  const Members wb = family("gpu.l2.slice[", "].writebacks"), writes = family("gpu.dram.ch[", "].writes");
  if (!wb.empty() && detailed(writes) > 0) spread(wb, skipped(writes) * detailed(wb) / detailed(writes));
  // RemoteCopy probes are requests after the request coalescer (fitted, as the L2 requests: the
  // replay has no coalescer and would count every far read); the share of them a shadow copy
  // serves depends on the L2's contents: the replay's.
  const Members shadow_hits = family("gpu.l2.slice[", "].shadow_hits");
  if (!shadow_hits.empty() && rc.run_probes > 0)
    spread(shadow_hits, skipped(family("gpu.l2.slice[", "].probes")) * rc.run_shadow_hits / rc.run_probes);
  // Sectors served without DRAM: the sectors looked up (fitted: the request coalescer's merges
  // depend on timing) less those that needed DRAM, which are the replayed L2 read misses times the
  // detailed run's missed sectors per read miss. The fit alone, over a run's first windows, put the
  // 64K run's sector hit rate at 81% instead of 98%.
  const Members hits = family("gpu.l2.slice[", "].hit_sectors"), sectors = family("gpu.l2.slice[", "].sectors");
  const Members misses = family("gpu.l2.slice[", "].read_misses");
  if (hits.empty() || detailed(misses) <= 0) return;
  const double missed_per_miss = (detailed(sectors) - detailed(hits)) / detailed(misses);
  spread(hits, std::max(0.0, skipped(sectors) - missed_per_miss * skipped(misses)));
}

trace::SamplingReport Fa3Sampler::report() const {
  trace::SamplingReport r;
  r.requested = p_.on;
  const double skipped = skipped_blocks();
  r.sampled = skipped > 0;
  r.detail_fraction = total_blocks_ > 0 ? 1.0 - skipped / total_blocks_ : 1.0;
  r.spans = span_id_ + 1;
  r.check_errors = check_errors_;
  double ss = 0;
  for (double e : check_errors_) ss += e * e;
  const double rms = check_errors_.empty() ? 0 : std::sqrt(ss / static_cast<double>(check_errors_.size()));
  const double skipped_time = end_ > 0 ? skipped_cycles_ / (static_cast<double>(end_) * ctas_) : 0;
  r.error_estimate = rms * skipped_time;
  if (replay_ && replayed_) {
    const trace::CopyReplay::Counts rc = replay_->counts();
    r.replay_lines = rc.lines;
    r.replay_set_stride = set_stride_;
    r.replay_read_bytes = rc.read_bytes;
    r.replay_write_bytes = rc.write_bytes;
  }
  r.l2_sectors_per_block = l2_per_block_;
  r.drift_bounds = drift_bounds_;
  r.pair_offsets = pair_offsets_;
  r.first_reads = fr_spans_;
  r.span_costs = span_costs_;
  r.wall_search_s = wall_[kWallSearch];
  r.wall_spans_s = wall_[kWallSpans];
  r.wall_checks_s = wall_[kWallChecks];
  r.wall_tail_s = wall_[kWallTail];
  if (l2_per_block_.size() >= 2 && l2_per_block_.front() > 0) {
    const double rise = l2_per_block_.back() / l2_per_block_.front() - 1;
    if (rise > p_.drift_warning)
      r.warning = fmt::format(
          "the L2 sectors a KV block requests rose {:.0f}% from the first detail period to the last, the "
          "sign of CTAs that share K/V drifting apart, which fast-forward spans follow {}: the sampled "
          "L2 request bytes and MSHR merges may then be off by several percent or more, either way "
          "(docs/sampling.md, step 9 and \"Limits\"); sample.mode=off simulates every block",
          100 * rise, p_.drift ? "only in part (sample.drift)" : "not at all (sample.drift=false)");
  }
  if (!p_.on) {
    r.note = "full detail";
  } else if (!r.sampled) {
    r.note = fmt::format("full detail: {}", why_detail_);
  } else {
    r.note = fmt::format("sampled: {:.1f}% of KV blocks in detail, {} fast-forward span{}, {} check{}{}",
                         100 * r.detail_fraction, r.spans, r.spans == 1 ? "" : "s", check_errors_.size(),
                         check_errors_.size() == 1 ? "" : "s",
                         check_errors_.empty() ? "" : fmt::format(", estimated latency error {:.2f}%", 100 * r.error_estimate));
  }
  return r;
}

}  // namespace simfa::workload
