// Internal to simfa_report: packs a WarpGroup's spans into non-overlapping lanes (tracks), one
// family of lanes per kind of activity, so that every track's slices are disjoint.
#pragma once
#include <cstdint>
#include <vector>

#include "core/observer.h"

namespace simfa::report {

enum class LaneKind : std::uint8_t { State, Wgmma, TmaLoad, TmaStore, Cta };
const char* lane_kind_name(LaneKind k);  // "WGMMA groups", "TMA loads", ...
LaneKind lane_kind_of(core::SpanKind k);

struct LanedSpan {
  const core::Span* span;
  std::int64_t tid;      // track id (see write_perfetto_json)
  LaneKind lane_kind;
  int lane_index;        // within its kind, from 0
  int lane;              // within its WarpGroup, from 0 (state lanes first)
};

// Spans grouped by (SM, CTA, WarpGroup) when `split_ctas`, else by (SM, WarpGroup); within a
// group, each kind's spans are assigned greedily (by start) to the first lane free at their start.
// At most `max_lanes` lanes per group: beyond that spans share the kind's last lane. The result is
// sorted by (SM, tid, start). tid = CTA * 128 + WG * 16 + lane; a CTA's lifetime: CTA * 128 + 127
// (CTA = 0 when not split_ctas).
std::vector<LanedSpan> assign_lanes(const std::vector<core::Span>& spans, bool split_ctas = true,
                                    int max_lanes = 15);

}  // namespace simfa::report
