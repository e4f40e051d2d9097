// Pointer-chase latency: per working set, one run of warm-up + measured hops; an observer on SM 0
// records when each hop's load (or copy) completed, and the latency is the mean time between
// completions over the measured hops (the loop time per hop, as the reference measures it).
#include <cmath>

#include <fmt/format.h>

#include "api/run.h"
#include "core/observer.h"
#include "microbench/microbench.h"
#include "sim/error.h"

namespace simfa::microbench {
namespace {

class HopClock final : public core::Observer {
 public:
  HopClock(core::SpanKind kind, std::uint64_t mark) : kind_(kind), mark_(mark) {}
  bool wants(std::uint16_t sm) const override { return sm == 0; }
  void span(const core::Span& s) override {
    if (s.kind != kind_) return;
    if (++count_ == mark_) at_mark = s.end;
    last = s.end;
  }
  std::uint64_t count() const { return count_; }
  Cycle at_mark = 0, last = 0;

 private:
  core::SpanKind kind_;
  std::uint64_t mark_, count_ = 0;
};

// Bounds of a latency sweep: the default sweep's points, and one working set.
constexpr int kMaxDefaultWorkingSets = 1000;
constexpr double kMaxWorkingSetKib = 64.0 * 1024 * 1024;

std::vector<double> default_sets(double ratio) {
  std::vector<double> v;
  for (double kib = 2; kib <= 2.0 * 1024 * 1024 + 1; kib *= ratio) v.push_back(std::round(kib));
  return v;
}

}  // namespace

Result latency(const Config& cfg, const Options& o, bool tma) {
  if (o.hops == 0) user_error("--hops must be at least 1");
  if (!(o.ws_ratio > 1.0) || !std::isfinite(o.ws_ratio)) user_error("--ws-ratio must exceed 1, got {}", o.ws_ratio);
  if (o.working_sets_kib.empty()) {
    // 2 KiB to 2 GiB: log(2^20) / log(ratio) points.
    const double points = std::log(1024.0 * 1024) / std::log(o.ws_ratio);
    if (points > kMaxDefaultWorkingSets)
      user_error("--ws-ratio {} makes {:.0f} working sets from 2 KiB to 2 GiB; at most {} (a ratio of at least {:.4f})",
                 o.ws_ratio, points, kMaxDefaultWorkingSets, std::pow(1024.0 * 1024, 1.0 / kMaxDefaultWorkingSets));
  }
  Result r;
  r.name = tma ? "tma-latency" : "load-latency";
  r.key_columns = {"working_set_kib"};
  r.value_column = "latency_cycles";
  const double clock_hz = cfg.f("gpu.clock");
  const auto line = static_cast<std::uint32_t>(cfg.u("mem.line_bytes"));
  r.info["gpu"] = cfg.s("gpu.name");
  r.info["clock_mhz"] = clock_hz / 1e6;
  r.info["measured_hops"] = o.hops;
  r.info["warmup_passes"] = o.warmup_passes;
  r.info["warmup_max"] = o.warmup_max;
  if (tma) r.info["hop_bubble_cycles"] = o.hop_bubble;
  const auto sets = o.working_sets_kib.empty() ? default_sets(o.ws_ratio) : o.working_sets_kib;
  for (double kib : sets) {
    if (!(kib * 1024 >= line) || !std::isfinite(kib))
      user_error("working set {} KiB (--ws or the measured file): must be a number of at least one "
                 "{}-byte line ({} KiB)", kib, line, line / 1024.0);
    if (kib > kMaxWorkingSetKib)
      user_error("working set {} KiB (--ws or the measured file): at most {} KiB (64 GiB)", kib, kMaxWorkingSetKib);
  }
  for (double kib : sets) {
    ChaseParams p;
    p.lines = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(kib * 1024 / line));
    const std::uint64_t warm =
        std::max<std::uint64_t>(1, std::min(p.lines * std::max<std::uint64_t>(1, o.warmup_passes), o.warmup_max));
    p.hops = warm + o.hops;
    p.tma = tma;
    p.hop_bubble = tma ? o.hop_bubble : 0;
    p.seed = o.seed;
    p.line_bytes = line;
    ChaseSource src(p);
    HopClock clock(tma ? core::SpanKind::TmaLoad : core::SpanKind::WaitLoad, warm);
    RunOptions ro;
    ro.skip_idle = o.skip_idle;
    ro.observer = &clock;
    const RunResult rr = run_trace(src, cfg, ro);
    SIMFA_ASSERT(clock.count() == p.hops, "microbench " + r.name, "saw {} hops of {}",
                 clock.count(), p.hops);
    const double cyc = static_cast<double>(clock.last - clock.at_mark) / static_cast<double>(o.hops);
    Row row;
    row.keys = {fmt::format("{:g}", kib)};
    row.value = cyc;
    row.extra = {{"latency_ns", cyc / clock_hz * 1e9},
                 {"l2_hit_rate_pct", rr.stat("lts__t_sector_hit_rate.pct")},
                 {"dram_read_latency", rr.stat("gpu.dram.avg_read_latency")},
                 {"dram_row_hit_rate", rr.stat("gpu.dram.row_hit_rate")},
                 {"sim_wall_s", rr.sim_wall_s}};
    if (o.progress) o.progress(fmt::format("{} ws {:g} KiB: {:.1f} cycles", r.name, kib, cyc));
    r.rows.push_back(std::move(row));
  }
  return r;
}

}  // namespace simfa::microbench
