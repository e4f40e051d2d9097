// The span recorder (a bounded vector filtered by SM), SM lists, role tap, labels and colours.
#include "report/timeline.h"

#include <algorithm>
#include <charconv>
#include <fstream>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/files.h"

namespace simfa::report {

TimelineRecorder::TimelineRecorder(std::vector<std::uint16_t> sms, std::size_t max_spans)
    : sms_(std::move(sms)), max_spans_(max_spans) {
  std::sort(sms_.begin(), sms_.end());
  sms_.erase(std::unique(sms_.begin(), sms_.end()), sms_.end());
  want_.assign(sms_.empty() ? 0 : sms_.back() + 1u, false);
  for (auto s : sms_) want_[s] = true;
}

bool TimelineRecorder::wants(std::uint16_t sm) const { return sm < want_.size() && want_[sm]; }

void TimelineRecorder::span(const core::Span& s) {
  if (!wants(s.sm)) return;
  if (spans_.size() >= max_spans_) {
    if (dropped_++ == 0) complete_until_ = s.end;
    return;
  }
  spans_.push_back(s);
}

std::string TimelineRecorder::truncation_message() const {
  if (!truncated()) return {};
  return fmt::format(
      "timeline: span limit of {} reached; {} later spans dropped, the timeline is complete only up to "
      "cycle {} (record fewer SMs with --timeline-sms or raise --timeline-max-spans)",
      max_spans_, dropped_, complete_until_);
}

std::vector<std::uint16_t> parse_sm_list(const std::string& text, int num_sms, const std::string& flag) {
  std::vector<std::uint16_t> out;
  auto num = [&](std::string_view t) {
    int v = -1;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size() || v < 0)
      user_error("{} '{}': expected SM ids like 0,1,4-7, got '{}'", flag, text, t);
    if (v >= num_sms) user_error("{} '{}': SM {} does not exist (this GPU has {} SMs)", flag, text, v, num_sms);
    return v;
  };
  std::string_view rest = text;
  while (true) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const auto dash = item.find('-');
    if (dash == std::string_view::npos) {
      out.push_back(static_cast<std::uint16_t>(num(item)));
    } else {
      const int a = num(item.substr(0, dash)), b = num(item.substr(dash + 1));
      if (b < a) user_error("{} '{}': empty range '{}'", flag, text, item);
      for (int i = a; i <= b; ++i) out.push_back(static_cast<std::uint16_t>(i));
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

trace::CtaProgram RoleTap::open(std::uint32_t cta) {
  trace::CtaProgram p = inner_.open(cta);
  if (roles_.size() < p.wgs.size()) roles_.resize(p.wgs.size());
  for (std::size_t i = 0; i < p.wgs.size(); ++i)
    if (roles_[i].empty()) roles_[i] = p.wgs[i].role;
  return p;
}

std::string wg_label(const TimelineInfo& info, unsigned wg) {
  if (wg >= info.roles.size() || info.roles[wg].empty()) return fmt::format("wg {}", wg);
  const std::string& r = info.roles[wg];
  static constexpr std::string_view kConsumer = "consumer";
  if (r.size() > kConsumer.size() && r.compare(0, kConsumer.size(), kConsumer) == 0) {
    int n = 0;
    const char* b = r.data() + kConsumer.size();
    auto [p, ec] = std::from_chars(b, r.data() + r.size(), n);
    if (ec == std::errc() && p == r.data() + r.size()) return fmt::format("consumer {}", n + 1);
  }
  return r;
}

const char* kind_label(core::SpanKind k) {
  using K = core::SpanKind;
  switch (k) {
    case K::Bubble: return "softmax / CUDA-core bubble";
    case K::WaitStage: return "wait: stage full (MB_WAIT)";
    case K::WaitAcquire: return "wait: stage free (ACQUIRE)";
    case K::WaitBarrier: return "wait: named barrier";
    case K::WaitWgmma: return "wait: WGMMA group";
    case K::WaitTmaStore: return "wait: TMA store";
    case K::WaitTmaQueue: return "wait: TMA queue full";
    case K::WaitWgmmaBuffer: return "wait: WGMMA buffer full";
    case K::WaitLoad: return "wait: load (LDG)";
    case K::TmaLoad: return "TMA load in flight";
    case K::TmaStore: return "TMA store in flight";
    case K::WgmmaGroup: return "WGMMA group in flight";
    case K::Cta: return "CTA";
    case K::kCount: break;
  }
  return "?";
}

const char* kind_color(core::SpanKind k) {
  using K = core::SpanKind;
  switch (k) {
    case K::Bubble: return "#f4a259";          // orange: CUDA-core work
    case K::WaitStage: return "#bcd4e6";       // pale blue: waiting for data
    case K::WaitAcquire: return "#d7c4e8";     // lilac: waiting for a free slot
    case K::WaitBarrier: return "#e9e4a6";     // pale yellow: ping-pong / epilogue barrier
    case K::WaitWgmma: return "#c9e4c5";       // pale green: waiting for own GEMMs
    case K::WaitTmaStore: return "#e8c1c1";
    case K::WaitTmaQueue: return "#b0b0b0";
    case K::WaitWgmmaBuffer: return "#9aa39a";
    case K::WaitLoad: return "#d0d0d0";
    case K::TmaLoad: return "#3b75af";         // blue: TMA
    case K::TmaStore: return "#8c3b3b";
    case K::WgmmaGroup: return "#4a9a4a";      // green: Tensor Core
    case K::Cta: return "#666666";
    case K::kCount: break;
  }
  return "#000000";
}

void write_timeline_file(const std::string& path, const TimelineRecorder& rec, const TimelineInfo& info,
                         const SvgOptions& svg) {
  auto ends_with = [&](std::string_view ext) {
    return path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0;
  };
  const bool json = ends_with(".json"), is_svg = ends_with(".svg");
  if (!json && !is_svg) user_error("--timeline {}: the file name must end in .json (Perfetto) or .svg", path);
  OutputFile file(path);
  if (json)
    write_perfetto_json(file.stream(), rec, info);
  else
    write_timeline_svg(file.stream(), rec, info, svg);
  file.commit();
}

}  // namespace simfa::report
