// Ping-pong statistics: per CTA, the union of each consumer's WGMMA group spans, then a sweep over
// all consumers' unions counting cycles covered once (busy) and at least twice (overlap).
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "report/timeline.h"

namespace simfa::report {

namespace {

using Interval = std::pair<Cycle, Cycle>;

std::vector<Interval> union_of(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> u;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!u.empty() && iv.first <= u.back().second)
      u.back().second = std::max(u.back().second, iv.second);
    else
      u.push_back(iv);
  }
  return u;
}

bool is_consumer(const TimelineInfo& info, unsigned wg) {
  if (wg < info.roles.size() && !info.roles[wg].empty()) return info.roles[wg].rfind("consumer", 0) == 0;
  return wg >= 1;
}

}  // namespace

PingPongStats pingpong_stats(const TimelineRecorder& rec, const TimelineInfo& info, std::uint16_t sm) {
  // (cta, wg) -> group spans
  std::map<std::pair<std::uint32_t, unsigned>, std::vector<Interval>> groups;
  PingPongStats st;
  for (const core::Span& s : rec.spans()) {
    if (s.sm != sm || s.kind != core::SpanKind::WgmmaGroup || !is_consumer(info, s.wg)) continue;
    groups[{s.cta, s.wg}].emplace_back(s.start, s.end);
    ++st.groups;
  }
  std::map<std::uint32_t, std::vector<std::pair<Cycle, int>>> events;  // cta -> (cycle, +1/-1)
  for (auto& [key, v] : groups)
    for (const auto& iv : union_of(std::move(v))) {
      events[key.first].emplace_back(iv.first, +1);
      events[key.first].emplace_back(iv.second, -1);
    }
  for (auto& [cta, ev] : events) {
    std::sort(ev.begin(), ev.end());  // at equal cycles -1 sorts first: touching spans do not overlap
    int depth = 0;
    Cycle prev = 0;
    for (const auto& [c, d] : ev) {
      if (depth >= 1) st.busy += c - prev;
      if (depth >= 2) st.overlap += c - prev;
      depth += d;
      prev = c;
    }
  }
  return st;
}

}  // namespace simfa::report
