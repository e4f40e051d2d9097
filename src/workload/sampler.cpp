// Fa3Sampler: windows, the fit, fast-forward spans and check windows (docs/sampling.md).
#include "workload/sampler.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/engine.h"
#include "sim/stats.h"
#include "workload/programs.h"

namespace simfa::workload {

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
  p.l2_bytes = static_cast<double>(cfg.u("mem.l2.size"));
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
  const double tile_bytes = static_cast<double>(k.tile_m) * k.head_dim * (k.elem_bytes + k.out_bytes);
  warm_tiles_ = static_cast<std::uint64_t>(std::ceil(p_.l2_bytes / (tile_bytes * std::max<std::uint32_t>(ctas_, 1))));
  warm_tiles_ = std::max<std::uint64_t>(warm_tiles_, 1);
  checks_left_ = p_.checks;
  discard_ = p_.warmup_windows;
  if (!p_.on) why_detail_ = "sample.mode = off";
}

void Fa3Sampler::attach(const Engine& engine, Stats& stats) {
  engine_ = &engine;
  stats_ = &stats;
  counters_.assign(stats.counter_values().size(), Fit{});
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
  time_ = fit(y);
  // The block cost drifts through a run (which heads the CTAs share, the L2's contents): the next
  // span takes it from the latest detail period (its tile-start cost from every window, since a
  // short period may hold no tile start).
  double sy = 0, sb = 0, st = 0;
  for (std::size_t w = recent_from_; w < windows_.size(); ++w)
    sy += windows_[w].cta_cycles, sb += windows_[w].blocks, st += windows_[w].tiles;
  if (sb > 0) time_.a = std::max(0.0, (sy - time_.b * st) / sb);
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
  windows_.erase(windows_.begin(), windows_.begin() + static_cast<std::ptrdiff_t>(n - 2 * m));
  recent_from_ = 0;
  refit();
  return true;
}

void Fa3Sampler::maybe_start_span(Cycle now) {
  if (phase_ != Phase::Detail || static_cast<int>(windows_.size()) < p_.min_windows) return;
  if (span_id_ < 0 && !steady()) return;
  if (span_id_ < 0) {
    // Tile starts must have been seen (so the fit knows their cost) unless no CTA has another one.
    double tiles = 0;
    for (const Window& w : windows_) tiles += w.tiles;
    bool more_tiles = false;
    for (std::uint32_t c = 0; c < ctas_ && !more_tiles; c += cluster_) {
      const Cluster& cl = clusters_[c / cluster_];
      more_tiles = cl.frontier.first + 1 < static_cast<std::int64_t>(n_[c].size());
    }
    if (more_tiles && tiles < running_) return;
  }
  double sum = 0;
  int n = 0;
  for (std::uint32_t c = 0; c < ctas_; c += cluster_)
    if (left_[c] > 0) sum += predicted_left(c), ++n;
  const double span = n ? sum / n / (checks_left_ + 1) : 0;
  if (span < p_.min_skip_blocks * time_.a || time_.a <= 0) {
    phase_ = Phase::Done;
    if (span_id_ < 0)
      why_detail_ = fmt::format("too little work left after the steady state was found ({:.0f} cycles per CTA)", span);
    return;
  }
  ++span_id_;
  span_start_ = now;
  span_end_ = now + static_cast<Cycle>(span);
  phase_ = Phase::Span;
}

void Fa3Sampler::close_window(Cycle now) {
  account(now);
  open_ = false;
  // Windows of the detailed tail (after the last span) are not steady state: not used.
  const bool valid = win_start_ >= awake_from_ && (phase_ == Phase::Detail || phase_ == Phase::Check);
  if (!valid) return;
  if (discard_ > 0) {
    --discard_;
    return;
  }
  Window w;
  w.cta_cycles = win_cta_cycles_;
  w.blocks = win_blocks_;
  w.tiles = win_tiles_;
  const std::vector<std::uint64_t> c = stats_->counter_values();
  w.delta.resize(c.size());
  for (std::size_t k = 0; k < c.size(); ++k)
    w.delta[k] = static_cast<double>(c[k]) - static_cast<double>(win_counters_[k]);
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

void Fa3Sampler::mark(std::uint32_t cta, bool tile_start) {
  if (!engine_ || !p_.on) return;
  const Cycle t = now();
  if (phase_ == Phase::Span && t >= span_end_) {
    // The span is over: check windows next, or the detailed tail after the last span.
    if (checks_left_ > 0) {
      --checks_left_;
      phase_ = Phase::Check;
      check_seen_ = 0;
      check_meas_ = check_pred_ = 0;
      recent_from_ = windows_.size();
      discard_ = 1;  // the pipelines refill after the sleep
    } else {
      phase_ = Phase::Done;
    }
  }
  account(t);
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

void Fa3Sampler::open_window(Cycle t) {
  open_ = true;
  win_start_ = last_t_ = t;
  win_cta_cycles_ = win_blocks_ = win_tiles_ = 0;
  win_counters_ = stats_->counter_values();
}

Cut Fa3Sampler::make_cut(std::uint32_t leader, std::int64_t tile, std::int64_t pos, Cycle now) {
  Cut x;
  const auto& n = n_[leader];
  const auto& suf = suffix_[leader];
  // Every cluster skips the work of the whole span, from wherever it is when it first asks: the
  // CTAs keep their offsets in time (and so their positions relative to one another), which is
  // what the L2 sharing between CTAs of one head depends on.
  const double target = static_cast<double>(span_end_ - span_start_);
  const std::int64_t max_skip = suf[tile] - pos - p_.tail_blocks;
  if (max_skip < p_.min_skip_blocks || target < p_.min_skip_blocks * time_.a) return x;
  // Greedy walk: blocks (and the tile starts among them) while their predicted time fits the span.
  double acc = 0;
  std::int64_t skipped = 0, starts = 0, ti = tile, tp = pos;
  const auto size = static_cast<std::int64_t>(n.size());
  while (skipped < max_skip) {
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
  // The resumed tile runs its own prologue: a start the real kernel also has in the span cancels.
  const std::int64_t t_skip = starts - ((tp > 0 && (ti != tile || pos == 0)) ? 1 : 0);
  const double d = time_.a * static_cast<double>(skipped) + time_.b * static_cast<double>(std::max<std::int64_t>(t_skip, 0));
  x.cut = true;
  x.sleep = static_cast<std::uint64_t>(std::llround(d));
  x.tile = ti;
  x.pos = tp;
  const double members = cluster_;
  skipped_tiles_ += members * static_cast<double>(std::max<std::int64_t>(t_skip, 0));
  for (std::uint32_t c = leader; c < leader + cluster_ && c < ctas_; ++c) {
    left_[c] -= skipped;
    if (left_[c] <= 0) left_[c] = 0;
  }
  skipped_blocks_ += members * static_cast<double>(skipped);
  skipped_cycles_ += members * d;
  // The consumers reach the cut a few blocks after the producer: margin before windows count again.
  awake_from_ = std::max(awake_from_, now + x.sleep + static_cast<Cycle>(4 * time_.a));
  return x;
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
  const Cut x = make_cut(cta / cluster_ * cluster_, tile, pos, t);
  if (x.cut) {
    c.cuts.emplace(key, x);
    c.frontier = {x.tile, x.pos};
  }
  return x;
}

// The statistics of the skipped work come from the fit over every steady-state and check window
// of the run (not only those before each span): memory counters are noisy per window (L2
// write-backs come in bursts after the tile starts that evict dirty O lines) and the fit over
// more windows averages that out.
void Fa3Sampler::finish(Cycle end, Stats& stats) {
  end_ = end;
  if (skipped_blocks_ <= 0) return;
  refit();
  std::vector<double> extra(counters_.size());
  for (std::size_t k = 0; k < counters_.size(); ++k)
    extra[k] = counters_[k].a * skipped_blocks_ + counters_[k].b * skipped_tiles_;
  stats.add_to_counters(extra);
}

trace::SamplingReport Fa3Sampler::report() const {
  trace::SamplingReport r;
  r.requested = p_.on;
  r.sampled = skipped_blocks_ > 0;
  r.detail_fraction = total_blocks_ > 0 ? 1.0 - skipped_blocks_ / total_blocks_ : 1.0;
  r.spans = span_id_ + 1;
  r.check_errors = check_errors_;
  double ss = 0;
  for (double e : check_errors_) ss += e * e;
  const double rms = check_errors_.empty() ? 0 : std::sqrt(ss / static_cast<double>(check_errors_.size()));
  const double skipped_time = end_ > 0 ? skipped_cycles_ / (static_cast<double>(end_) * ctas_) : 0;
  r.error_estimate = rms * skipped_time;
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
