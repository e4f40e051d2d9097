// A static SVG Gantt chart of one SM (paper Fig. 7): per WarpGroup a state row (waits, bubbles)
// and thin lanes of its asynchronous operations, spans clipped to a window, a µs axis, a legend.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "report/timeline.h"
#include "report/svg.h"
#include "report/timeline_lanes.h"
#include "sim/error.h"

namespace simfa::report {

namespace {

using core::Span;
using core::SpanKind;

std::string fmt_us(double v, double step) {
  const int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace

Window default_svg_window(const TimelineRecorder& rec, std::uint16_t sm, int groups) {
  Window w{kNever, 0};
  std::vector<Cycle> group_ends;
  for (const Span& s : rec.spans()) {
    if (s.sm != sm || s.kind == SpanKind::Cta) continue;
    w.from = std::min(w.from, s.start);
    w.to = std::max(w.to, s.end);
    if (s.kind == SpanKind::WgmmaGroup) group_ends.push_back(s.end);
  }
  if (w.from == kNever) return {0, 0};
  if (static_cast<int>(group_ends.size()) > groups) {
    std::nth_element(group_ends.begin(), group_ends.begin() + (groups - 1), group_ends.end());
    w.to = group_ends[groups - 1];
  }
  return w;
}

void write_timeline_svg(std::ostream& out, const TimelineRecorder& rec, const TimelineInfo& info,
                        const SvgOptions& opt) {
  if (!rec.wants(opt.sm))
    user_error("timeline SVG: SM {} was not recorded (add it to --timeline-sms)", opt.sm);
  Window win{opt.from, opt.to};
  if (win.to == 0) win = default_svg_window(rec, opt.sm);
  if (win.to <= win.from) win.to = win.from + 1;

  // The SM's spans inside the window, packed into lanes per WarpGroup (CTAs share rows).
  std::vector<Span> spans;
  for (const Span& s : rec.spans())
    if (s.sm == opt.sm && s.end > win.from && s.start < win.to) spans.push_back(s);
  const std::vector<LanedSpan> laned = assign_lanes(spans, /*split_ctas=*/false);

  // Rows: per WG, its lanes (state lanes tall, async lanes thin).
  std::map<unsigned, std::map<int, LaneKind>> wg_lanes;  // wg -> lane -> kind
  std::vector<const Span*> ctas;
  for (const LanedSpan& l : laned) {
    if (l.lane_kind == LaneKind::Cta) {
      ctas.push_back(l.span);
      continue;
    }
    wg_lanes[l.span->wg][l.lane] = l.lane_kind;
  }
  const double us_per_cycle = info.clock_hz > 0 ? 1e6 / info.clock_hz : 1.0;
  const int left = 190, right = 30, top = 70;
  const int state_h = 24, lane_h = 9, lane_gap = 2, wg_gap = 16;
  const int W = std::max(600, opt.width);
  const double plot_w = W - left - right;
  auto x_of = [&](Cycle c) {
    const Cycle cc = std::clamp(c, win.from, win.to);
    return left + plot_w * static_cast<double>(cc - win.from) / static_cast<double>(win.to - win.from);
  };
  std::map<std::pair<unsigned, int>, int> lane_y;  // (wg, lane) -> y
  std::map<unsigned, std::pair<int, int>> wg_band;  // wg -> (y0, y1)
  int y = top;
  for (const auto& [wg, lanes] : wg_lanes) {
    const int y0 = y;
    for (const auto& [lane, kind] : lanes) {
      lane_y[{wg, lane}] = y;
      y += (kind == LaneKind::State ? state_h : lane_h) + lane_gap;
    }
    wg_band[wg] = {y0, y};
    y += wg_gap;
  }
  const int plot_bottom = std::max(y - wg_gap, top + 10);
  const int axis_y = plot_bottom + 8;

  // Legend entries: the kinds present, in a fixed order.
  std::set<SpanKind> present;
  for (const Span& s : spans)
    if (s.kind != SpanKind::Cta) present.insert(s.kind);
  const int legend_cols = 3, legend_row_h = 18;
  const int legend_y = axis_y + 58;
  const int legend_rows = (static_cast<int>(present.size()) + legend_cols - 1) / legend_cols;
  const int H = legend_y + legend_rows * legend_row_h + 30;

  std::string o;
  o += svg_begin(W, H, "Helvetica, Arial, sans-serif");
  const double t0 = static_cast<double>(win.from) * us_per_cycle, t1 = static_cast<double>(win.to) * us_per_cycle;
  o += fmt::format(R"(<text x="{}" y="24" font-size="16" font-weight="bold">SM {} timeline, {:.2f} – {:.2f} µs (cycles {} – {})</text>
)",
                   left - 170, opt.sm, t0, t1, win.from, win.to);
  if (!info.title.empty())
    o += fmt::format(R"(<text x="{}" y="44" fill="#444">{}</text>
)",
                     left - 170, xml_escape(info.title));

  // Grid and time axis.
  const double step = nice_step(t1 - t0, 10);
  o += "<g stroke=\"#e3e3e3\" stroke-width=\"1\">\n";
  std::string labels;
  for (double t = std::ceil(t0 / step) * step; t <= t1 + 1e-9; t += step) {
    const double x = left + plot_w * (t - t0) / (t1 - t0);
    o += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\"/>\n", x, top - 4, x, axis_y);
    labels += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, axis_y + 15,
                          fmt_us(t, step));
  }
  o += "</g>\n";
  o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#333\"/>\n", left, axis_y, left + plot_w,
                   axis_y);
  o += labels;
  o += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444\">time (µs at {:.0f} MHz)</text>\n",
                   left + plot_w / 2, axis_y + 32, info.clock_hz / 1e6);

  // Row labels and backgrounds.
  for (const auto& [wg, lanes] : wg_lanes) {
    const auto [y0, y1] = wg_band[wg];
    o += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", 10, y0 + 16,
                     xml_escape(wg_label(info, wg)));
    for (const auto& [lane, kind] : lanes) {
      const int ly = lane_y[{wg, lane}];
      const int h = kind == LaneKind::State ? state_h : lane_h;
      o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#f6f6f6\"/>\n", left, ly, plot_w, h);
      if (kind != LaneKind::State && lanes.begin()->first != lane) {
        // Label only the first lane of each async kind.
        auto prev = lanes.find(lane);
        --prev;
        if (prev->second == kind) continue;
      }
      if (kind != LaneKind::State)
        o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555\">{}</text>\n", 24, ly + 8,
                         lane_kind_name(kind));
    }
  }

  // Spans.
  o += "<g stroke=\"none\">\n";
  for (const LanedSpan& l : laned) {
    if (l.lane_kind == LaneKind::Cta) continue;
    const Span& s = *l.span;
    const int ly = lane_y[{s.wg, l.lane}];
    const int h = l.lane_kind == LaneKind::State ? state_h : lane_h;
    const double x0 = x_of(s.start), x1 = x_of(s.end);
    const double w = std::max(0.6, x1 - x0);
    std::string fill = kind_color(s.kind);
    if (s.kind == SpanKind::WgmmaGroup && s.id % 2 == 1) fill = "#8cc98c";  // alternate groups (QK / PV)
    o += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"><title>{} (id {}), CTA {}, cycles {} – {} "
        "({} cycles)</title></rect>\n",
        x0, ly, w, h, fill, kind_label(s.kind), s.id, s.cta, s.start, s.end, s.end - s.start);
  }
  o += "</g>\n";

  // CTA boundaries inside the window.
  for (const Span* c : ctas)
    for (Cycle edge : {c->start, c->end})
      if (edge > win.from && edge < win.to) {
        const double x = x_of(edge);
        o += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n"
            "<text x=\"{:.1f}\" y=\"{}\" font-size=\"10\" fill=\"#333\">CTA {} {}</text>\n",
            x, top - 6, x, plot_bottom, x + 3, top - 8, c->cta, edge == c->start ? "starts" : "ends");
      }

  // Legend.
  int i = 0;
  for (SpanKind k : present) {
    const int col = i % legend_cols, row = i / legend_cols;
    const int lx = left + col * 330, ly = legend_y + row * legend_row_h;
    o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"12\" fill=\"{}\"/>", lx, ly - 10, kind_color(k));
    if (k == SpanKind::WgmmaGroup)
      o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"7\" height=\"12\" fill=\"#8cc98c\"/>", lx + 7, ly - 10);
    o += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 20, ly, xml_escape(kind_label(k)));
    ++i;
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#777\">blank = issuing or ready; WGMMA group "
                   "shades alternate by group id (FA3: 0 = QK, 1 = PV){}</text>\n",
                   left, H - 10, rec.truncated() ? "; TIMELINE TRUNCATED (span limit)" : "");
  o += svg_end();
  out << o;
}

}  // namespace simfa::report
