// Perfetto/Chrome trace-event JSON: spans grouped per (SM, CTA, WarpGroup); overlapping
// asynchronous operations are packed greedily into lanes so every track's slices nest.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/timeline.h"
#include "report/timeline_lanes.h"

namespace simfa::report {

namespace {

using core::Span;
using core::SpanKind;

const char* event_name(const Span& s) {
  switch (s.kind) {
    case SpanKind::Bubble: return "bubble (softmax)";
    case SpanKind::WaitStage: return "wait stage";
    case SpanKind::WaitAcquire: return "wait acquire";
    case SpanKind::WaitBarrier: return "wait barrier";
    case SpanKind::WaitWgmma: return "wait wgmma";
    case SpanKind::WaitTmaStore: return "wait tma store";
    case SpanKind::WaitTmaQueue: return "tma queue full";
    case SpanKind::WaitWgmmaBuffer: return "wgmma buffer full";
    case SpanKind::WaitLoad: return "wait load";
    case SpanKind::TmaLoad: return "TMA load";
    case SpanKind::TmaStore: return "TMA store";
    case SpanKind::WgmmaGroup: return s.id == 0 ? "WGMMA group 0" : s.id == 1 ? "WGMMA group 1" : "WGMMA group";
    default: return "CTA";
  }
}

const char* category(SpanKind k) {
  switch (k) {
    case SpanKind::Bubble: return "bubble";
    case SpanKind::TmaLoad:
    case SpanKind::TmaStore: return "tma";
    case SpanKind::WgmmaGroup: return "wgmma";
    case SpanKind::Cta: return "cta";
    default: return "wait";
  }
}

// What the id of a span means, for the slice's args.
const char* id_meaning(SpanKind k) {
  switch (k) {
    case SpanKind::WaitStage:
    case SpanKind::WaitAcquire:
    case SpanKind::TmaLoad: return "stage";
    case SpanKind::WaitBarrier: return "barrier";
    case SpanKind::WaitWgmma:
    case SpanKind::WgmmaGroup:
    case SpanKind::WaitTmaStore:
    case SpanKind::TmaStore: return "group";
    default: return nullptr;
  }
}

// Microseconds with nanosecond resolution, from integer nanoseconds (so adjacent slices share
// their boundary exactly).
std::string us(std::int64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); }

}  // namespace

void write_perfetto_json(std::ostream& out, const TimelineRecorder& rec, const TimelineInfo& info) {
  const double ns_per_cycle = info.clock_hz > 0 ? 1e9 / info.clock_hz : 1.0;
  auto ns = [&](Cycle c) { return static_cast<std::int64_t>(std::llround(static_cast<double>(c) * ns_per_cycle)); };
  const std::vector<LanedSpan> laned = assign_lanes(rec.spans());

  std::string buf;
  buf.reserve(1 << 16);
  bool first = true;
  auto emit = [&](const std::string& ev) {
    buf += first ? "\n" : ",\n";
    buf += ev;
    first = false;
    if (buf.size() > (1 << 16)) {
      out << buf;
      buf.clear();
    }
  };

  buf += "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
  buf += fmt::format("\"generator\":\"simfa\",\"title\":{},\"clock_mhz\":{},\"kernel_cycles\":{},\"spans\":{},"
                     "\"dropped_spans\":{}",
                     nlohmann::json(info.title).dump(), info.clock_hz / 1e6, info.total_cycles, rec.spans().size(),
                     rec.dropped());
  if (rec.truncated()) buf += fmt::format(",\"complete_until_cycle\":{}", rec.complete_until());
  buf += "},\"traceEvents\":[";

  // Metadata: one process per SM, one named thread per track.
  for (auto sm : rec.sms()) {
    emit(fmt::format(R"({{"ph":"M","pid":{},"tid":0,"name":"process_name","args":{{"name":"SM {}"}}}})", sm, sm));
    emit(fmt::format(R"({{"ph":"M","pid":{},"tid":0,"name":"process_sort_index","args":{{"sort_index":{}}}}})", sm, sm));
  }
  std::map<std::pair<int, std::int64_t>, std::string> tracks;  // (sm, tid) -> name
  for (const LanedSpan& l : laned) {
    const Span& s = *l.span;
    auto key = std::make_pair(int(s.sm), l.tid);
    if (tracks.count(key)) continue;
    std::string name = fmt::format("sm{} cta{}", s.sm, s.cta);
    if (s.kind != SpanKind::Cta) {
      name += " " + wg_label(info, s.wg);
      if (l.lane_kind != LaneKind::State)
        name += fmt::format(": {} #{}", lane_kind_name(l.lane_kind), l.lane_index + 1);
    }
    tracks.emplace(key, std::move(name));
  }
  for (const auto& [key, name] : tracks) {
    emit(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":"{}"}}}})", key.first,
                     key.second, name));
    emit(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})",
                     key.first, key.second, key.second));
  }

  // Slices.
  for (const LanedSpan& l : laned) {
    const Span& s = *l.span;
    const std::int64_t a = ns(s.start), b = ns(s.end);
    std::string args = fmt::format(R"("start_cycle":{},"cycles":{})", s.start, s.end - s.start);
    if (const char* m = id_meaning(s.kind)) args += fmt::format(R"(,"{}":{})", m, s.id);
    if (s.kind != SpanKind::Cta) args += fmt::format(R"(,"wg":{})", s.wg);
    args += fmt::format(R"(,"cta":{})", s.cta);
    emit(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":"{}","cat":"{}","args":{{{}}}}})", s.sm,
                     l.tid, us(a), us(b - a), event_name(s), category(s.kind), args));
  }
  buf += "\n]}\n";
  out << buf;
}

}  // namespace simfa::report
