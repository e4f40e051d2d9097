// Greedy interval partitioning per (SM, [CTA,] WarpGroup, lane kind): spans sorted by start go to
// the lowest-numbered lane whose last span ended by then.
#include "report/timeline_lanes.h"

#include <algorithm>
#include <tuple>

namespace simfa::report {

using core::Span;
using core::SpanKind;

const char* lane_kind_name(LaneKind k) {
  switch (k) {
    case LaneKind::State: return "state";
    case LaneKind::Wgmma: return "WGMMA groups";
    case LaneKind::TmaLoad: return "TMA loads";
    case LaneKind::TmaStore: return "TMA stores";
    case LaneKind::Cta: return "CTA";
  }
  return "?";
}

LaneKind lane_kind_of(SpanKind k) {
  switch (k) {
    case SpanKind::WgmmaGroup: return LaneKind::Wgmma;
    case SpanKind::TmaLoad: return LaneKind::TmaLoad;
    case SpanKind::TmaStore: return LaneKind::TmaStore;
    case SpanKind::Cta: return LaneKind::Cta;
    default: return LaneKind::State;
  }
}

std::vector<LanedSpan> assign_lanes(const std::vector<Span>& spans, bool split_ctas, int max_lanes) {
  std::vector<LanedSpan> out;
  out.reserve(spans.size());
  for (const Span& s : spans) out.push_back({&s, 0, lane_kind_of(s.kind), 0, 0});
  // Group key: (sm, cta or 0, wg, kind); CTA spans form their own group per CTA.
  auto group = [&](const LanedSpan& l) {
    const Span& s = *l.span;
    const std::uint32_t cta = split_ctas || l.lane_kind == LaneKind::Cta ? s.cta : 0;
    const unsigned wg = l.lane_kind == LaneKind::Cta ? 255u : s.wg;
    return std::make_tuple(s.sm, cta, wg, l.lane_kind);
  };
  std::sort(out.begin(), out.end(), [&](const LanedSpan& a, const LanedSpan& b) {
    return std::make_tuple(group(a), a.span->start, a.span->end, a.span->id) <
           std::make_tuple(group(b), b.span->start, b.span->end, b.span->id);
  });
  // Lanes per kind within each group.
  std::vector<Cycle> lane_end;
  for (std::size_t i = 0; i < out.size();) {
    std::size_t j = i;
    while (j < out.size() && group(out[j]) == group(out[i])) ++j;
    lane_end.clear();
    for (std::size_t k = i; k < j; ++k) {
      const Span& s = *out[k].span;
      int lane = -1;
      for (std::size_t x = 0; x < lane_end.size(); ++x)
        if (lane_end[x] <= s.start) {
          lane = static_cast<int>(x);
          break;
        }
      if (lane < 0) {
        if (static_cast<int>(lane_end.size()) < max_lanes) {
          lane = static_cast<int>(lane_end.size());
          lane_end.push_back(0);
        } else {
          lane = max_lanes - 1;
        }
      }
      lane_end[lane] = std::max(lane_end[lane], s.end);
      out[k].lane_index = lane;
    }
    i = j;
  }
  // Number lanes within each (sm, cta, wg): state first, then WGMMA, TMA loads, TMA stores.
  struct Count {
    std::tuple<std::uint16_t, std::uint32_t, unsigned> key;
    int lanes[4] = {0, 0, 0, 0};
  };
  std::vector<Count> counts;
  for (const LanedSpan& l : out) {
    if (l.lane_kind == LaneKind::Cta) continue;
    const auto g = group(l);
    const auto key = std::make_tuple(std::get<0>(g), std::get<1>(g), std::get<2>(g));
    if (counts.empty() || counts.back().key != key) counts.push_back({key});
    int& n = counts.back().lanes[static_cast<int>(l.lane_kind)];
    n = std::max(n, l.lane_index + 1);
  }
  std::size_t c = 0;
  for (LanedSpan& l : out) {
    const Span& s = *l.span;
    const std::int64_t cta = split_ctas || l.lane_kind == LaneKind::Cta ? s.cta : 0;
    if (l.lane_kind == LaneKind::Cta) {
      l.tid = cta * 128 + 127;
      continue;
    }
    const auto g = group(l);
    const auto key = std::make_tuple(std::get<0>(g), std::get<1>(g), std::get<2>(g));
    while (counts[c].key != key) ++c;  // same order as `out` (CTA groups skipped)
    int offset = 0;
    for (int k = 0; k < static_cast<int>(l.lane_kind); ++k) offset += counts[c].lanes[k];
    l.lane = std::min(offset + l.lane_index, 15);
    l.tid = cta * 128 + static_cast<std::int64_t>(s.wg) * 16 + l.lane;
  }
  std::stable_sort(out.begin(), out.end(), [](const LanedSpan& a, const LanedSpan& b) {
    return std::make_tuple(a.span->sm, a.tid, a.span->start) < std::make_tuple(b.span->sm, b.tid, b.span->start);
  });
  return out;
}

}  // namespace simfa::report
