// Timeline flags: parse and check them up front, record during the run, write at the end.
#include "cli/common.h"
#include "cli/timeline_flags.h"

#include <charconv>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/files.h"

namespace simfa::cli {

void add_timeline_flags(CLI::App* app, TimelineFlags& f) {
  app->add_option("--timeline", f.file,
                  "write a timeline: FILE.json (Perfetto / chrome://tracing) or FILE.svg (one SM, paper Fig. 7)")
                      ->check(output_file());
  app->add_option("--timeline-sms", f.sms, "SMs to record: 0,1 or 0-3 or all (the SVG draws the first)")
      ->default_str("0");
  app->add_option("--timeline-window-us", f.window_us,
                  "SVG time window A:B in microseconds (A: or :B open); default: the first few ping-pong iterations");
  app->add_option("--timeline-max-spans", f.max_spans, "stop recording after this many spans (memory bound)")
      ->default_str(std::to_string(report::TimelineRecorder::kDefaultMaxSpans));
}

namespace {

double parse_us(std::string_view t, const std::string& whole) {
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v) || v < 0)
    user_error("--timeline-window-us '{}': expected A:B in microseconds (e.g. 0:20 or 5:), got '{}'", whole, t);
  return v;
}

}  // namespace

TimelineSession::TimelineSession(const TimelineFlags& f, const Config& cfg)
    : f_(f), clock_hz_(cfg.f("gpu.clock")) {
  const auto ends_with = [&](std::string_view ext) {
    return f.file.size() >= ext.size() && f.file.compare(f.file.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (f.file == kStdout)
    user_error("--timeline -: the format comes from the file name's extension (.json or .svg), so the timeline "
               "cannot go to standard output");
  if (!ends_with(".json") && !ends_with(".svg"))
    user_error("--timeline {}: the file name must end in .json (Perfetto trace) or .svg (picture of one SM)", f.file);
  const int num_sms = static_cast<int>(cfg.i("gpu.num_sms"));
  std::vector<std::uint16_t> sms;
  if (f.sms == "all")
    for (int i = 0; i < num_sms; ++i) sms.push_back(static_cast<std::uint16_t>(i));
  else
    sms = report::parse_sm_list(f.sms, num_sms);
  if (sms.empty()) user_error("--timeline-sms: no SMs given");
  if (!f.window_us.empty()) {
    const auto colon = f.window_us.find(':');
    if (colon == std::string::npos)
      user_error("--timeline-window-us '{}': expected A:B in microseconds (e.g. 0:20)", f.window_us);
    const std::string_view w = f.window_us, a = w.substr(0, colon), b = w.substr(colon + 1);
    from_us_ = a.empty() ? 0 : parse_us(a, f.window_us);
    to_us_ = b.empty() ? -1 : parse_us(b, f.window_us);
    if (to_us_ >= 0 && to_us_ <= from_us_)
      user_error("--timeline-window-us '{}': the end must be after the start", f.window_us);
  }
  if (f.max_spans == 0) user_error("--timeline-max-spans must be at least 1");
  // Check the file can be written before a long run.
  check_output_path(f.file, "--timeline");
  rec_ = std::make_unique<report::TimelineRecorder>(std::move(sms), f.max_spans);
}

trace::TraceSource& TimelineSession::wrap(trace::TraceSource& src) {
  tap_ = std::make_unique<report::RoleTap>(src);
  return *tap_;
}

std::string TimelineSession::finish(const RunResult& r, const std::string& title) {
  report::TimelineInfo info;
  info.clock_hz = r.clock_hz > 0 ? r.clock_hz : clock_hz_;
  if (tap_) info.roles = tap_->roles();
  info.title = title;
  info.total_cycles = r.cycles;
  report::SvgOptions svg;
  svg.sm = rec_->sms().front();
  if (from_us_ >= 0) {
    const double cpus = info.clock_hz / 1e6;  // cycles per µs
    svg.from = static_cast<Cycle>(std::llround(from_us_ * cpus));
    svg.to = to_us_ >= 0 ? static_cast<Cycle>(std::llround(to_us_ * cpus)) : std::max<Cycle>(r.cycles, svg.from + 1);
  }
  report::write_timeline_file(f_.file, *rec_, info, svg);
  const report::PingPongStats pp = report::pingpong_stats(*rec_, info, svg.sm);
  std::string s = fmt::format("timeline          {} ({} spans from {} SM{})\n", f_.file, rec_->spans().size(),
                              rec_->sms().size(), rec_->sms().size() == 1 ? "" : "s");
  if (pp.groups)
    s += fmt::format("ping-pong         SM {}: consumers' WGMMA groups overlap {:.1f}% of their busy time ({} of {} cycles)\n",
                     svg.sm, 100.0 * pp.overlap_fraction(), pp.overlap, pp.busy);
  if (rec_->truncated()) s += "warning: " + rec_->truncation_message() + "\n";
  return s;
}

}  // namespace simfa::cli
