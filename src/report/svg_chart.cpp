// SVG line chart: linear or log axes with "nice" ticks, series with lines and markers, a shaded
// interval, vertical markers and a legend. Coordinates are printed with fixed precision.
#include "report/svg_chart.h"

#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace simfa::report {
namespace {

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double map(double v, double a, double b) const {  // value -> pixel in [a, b]
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
                         : (v - lo) / (hi - lo);
    return a + t * (b - a);
  }
};

std::vector<double> ticks(Axis& ax, int target, bool include_zero, bool tokens = false, bool tight_log = false) {
  std::vector<double> t;
  if (tight_log && !tokens && ax.log && ax.lo > 0) {
    // The ends move out to the nearest ticks: 1-2-5 ones when that makes at most 10, whole
    // decades when more, every digit when fewer than 3.
    if (ax.hi <= ax.lo) ax.lo /= 2, ax.hi *= 2;
    const double lo = ax.lo / 1.05, hi = ax.hi * 1.05;
    const int e0 = int(std::floor(std::log10(lo))) - 1, e1 = int(std::ceil(std::log10(hi))) + 1;
    auto snap = [&](std::initializer_list<double> mantissas) {
      std::vector<double> all;
      for (int e = e0; e <= e1; ++e)
        for (double m : mantissas) all.push_back(m * std::pow(10.0, e));
      std::vector<double> out;
      for (std::size_t k = 0; k < all.size(); ++k)
        if ((k + 1 < all.size() && all[k + 1] > lo && all[k] <= hi) || (k > 0 && all[k - 1] < hi && all[k] >= lo))
          out.push_back(all[k]);
      return out;
    };
    t = snap({1, 2, 5});
    if (t.size() > 10) t = snap({1});
    else if (t.size() < 3) t = snap({1, 2, 3, 4, 5, 6, 7, 8, 9});
    ax.lo = t.front(), ax.hi = t.back();
    return t;
  }
  if (tokens && ax.log && ax.lo > 0) {
    // Token counts on a log axis: a little room around the data, ticks at powers of two
    // (every other one when there are too many).
    ax.lo /= std::exp2(0.15), ax.hi *= std::exp2(0.15);
    const int e0 = int(std::ceil(std::log2(ax.lo))), e1 = int(std::floor(std::log2(ax.hi)));
    const int step = std::max(1, (e1 - e0 + target) / target);
    for (int e = e0; e <= e1; e += step) t.push_back(std::exp2(e));
    return t;
  }
  if (tokens && !ax.log && ax.hi - ax.lo >= 2048) {
    // Token counts: steps of 1K·2^k, so labels read 16K, 24K, 32K ...
    double step = 1024;
    while ((ax.hi - ax.lo) / step > target) step *= 2;
    const double first = std::ceil(ax.lo / step) * step;
    for (double v = first; v <= ax.hi; v += step) t.push_back(v);
    return t;
  }
  if (ax.log) {
    if (ax.hi <= ax.lo) ax.hi = ax.lo * 10;
    ax.lo = std::pow(10.0, std::floor(std::log10(ax.lo / 1.2)));  // headroom for markers
    ax.hi = std::pow(10.0, std::ceil(std::log10(ax.hi * 1.2)));
    for (double v = ax.lo; v <= ax.hi * 1.0001; v *= 10) t.push_back(v);
    return t;
  }
  if (include_zero) ax.lo = std::min(ax.lo, 0.0);
  if (ax.hi <= ax.lo) ax.hi = ax.lo + 1;
  const double step = nice_step(ax.hi - ax.lo, target, {1, 2, 2.5, 5, 10});
  ax.lo = std::floor(ax.lo / step) * step;
  ax.hi = std::ceil(ax.hi / step) * step;
  for (double v = ax.lo; v <= ax.hi + step * 1e-9; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return t;
}

std::string label(double v, TickStyle s) {
  if (s == TickStyle::Tokens) {
    if (v >= 1024 && std::fmod(v, 1024) == 0) return fmt::format("{:g}K", v / 1024);
    return fmt::format("{:g}", v);
  }
  if (s == TickStyle::Si) {
    const double a = std::fabs(v);
    if (a >= 1e9) return fmt::format("{:g}G", v / 1e9);
    if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
    if (a >= 1e4) return fmt::format("{:g}k", v / 1e3);
    return fmt::format("{:g}", v);
  }
  if (s == TickStyle::Scientific || std::fabs(v) >= 1e5 || (v != 0 && std::fabs(v) < 1e-3)) {
    const int e = int(std::floor(std::log10(std::fabs(v))));
    const double m = v / std::pow(10.0, e);
    if (std::fabs(m - 1) < 1e-9) return fmt::format("1e{}", e);
    return fmt::format("{:g}e{}", m, e);
  }
  return fmt::format("{:g}", v);
}

const char* dash(const ChartSeries& s) {
  return s.dashed ? " stroke-dasharray=\"6,4\"" : s.dotted ? " stroke-dasharray=\"2,3\"" : "";
}

}  // namespace

std::string render_svg(const Chart& c) {
  const double W = c.width, H = c.height;
  const double left = 84, right = W - 24, top = c.subtitle.empty() ? 48 : 62, bottom = H - 64;
  // The legend's entries: where each goes, and the rows it adds below the chart.
  struct Entry {
    const ChartSeries* s;
    double x, y;
  };
  std::vector<Entry> entries;
  double legend_w = 0, extra_h = 0;
  {
    const double row = 18;
    double x = left, y = c.legend == LegendPlace::Below ? H + 4 : top + 14;
    for (const auto& s : c.series) {
      if (!s.in_legend) continue;
      const double w = 32 + 7.0 * double(s.label.size());
      legend_w = std::max(legend_w, w);
      if (c.legend == LegendPlace::Below) {
        if (x > left && x + w > right) x = left, y += row;
        entries.push_back({&s, x, y});
        x += w + 18;
      } else {
        entries.push_back({&s, left + 12, y});
        y += row;
      }
    }
    if (c.legend == LegendPlace::Below && !entries.empty()) extra_h = entries.back().y - H + 10;
    if (c.legend == LegendPlace::None) entries.clear();
  }
  Axis ax{std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(), c.logx};
  Axis ay{std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(), c.logy};
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if ((c.logx && s.x[i] <= 0) || (c.logy && s.y[i] <= 0)) continue;
      ax.lo = std::min(ax.lo, s.x[i]), ax.hi = std::max(ax.hi, s.x[i]);
      ay.lo = std::min(ay.lo, s.y[i]), ay.hi = std::max(ay.hi, s.y[i]);
    }
  if (ax.lo > ax.hi) ax.lo = 0, ax.hi = 1;
  if (ay.lo > ay.hi) ay.lo = 0, ay.hi = 1;
  if (!c.logx) {  // a little margin on x, none below zero
    const double pad = (ax.hi - ax.lo) * 0.04 + (ax.hi == ax.lo ? 1 : 0);
    ax.lo -= pad, ax.hi += pad;
  }
  const auto xt = ticks(ax, 8, false, c.xticks == TickStyle::Tokens, c.tight_log);
  const auto yt = ticks(ay, 6, !c.logy, false, c.tight_log);
  auto X = [&](double v) { return ax.map(v, left, right); };
  auto Y = [&](double v) { return ay.map(v, bottom, top); };

  std::string o;
  o += svg_begin(W, H + extra_h, "DejaVu Sans, Arial, sans-serif");
  o += fmt::format("<text x=\"{:.1f}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" "
                   "font-weight=\"bold\">{}</text>\n",
                   W / 2, xml_escape(c.title));
  if (!c.subtitle.empty())
    o += fmt::format("<text x=\"{:.1f}\" y=\"40\" text-anchor=\"middle\" fill=\"#444\" "
                     "font-size=\"11\">{}</text>\n",
                     W / 2, xml_escape(c.subtitle));
  // Shaded interval.
  if (c.shade_to > c.shade_from) {
    const double a = std::clamp(X(std::max(c.shade_from, ax.lo)), left, right);
    const double b = std::clamp(X(std::min(c.shade_to, ax.hi)), left, right);
    if (b > a) {
      o += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                       "fill=\"#f2e6d9\"/>\n",
                       a, top, b - a, bottom - top);
      // Centred over the band, or right-aligned in it when that would cross the plot's edge.
      const double half = 3.5 * double(c.shade_label.size());
      const bool fits = (a + b) / 2 + half <= right - 4;
      o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" fill=\"#8a5a2b\">{}"
                       "</text>\n",
                       fits ? (a + b) / 2 : b - 4, top + 16, fits ? "middle" : "end", xml_escape(c.shade_label));
    }
  }
  // Grid and ticks.
  for (double v : xt) {
    const double x = X(v);
    if (x < left - 0.5 || x > right + 0.5) continue;
    o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                     "stroke=\"#e0e0e0\"/>\n",
                     x, top, bottom);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x,
                     bottom + 18, xml_escape(label(v, c.xticks)));
  }
  for (double v : yt) {
    const double y = Y(v);
    o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                     "stroke=\"#e0e0e0\"/>\n",
                     left, y, right);
    const TickStyle ys = c.yticks ? *c.yticks : c.logy ? TickStyle::Scientific : TickStyle::Plain;
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6,
                     y + 4, xml_escape(label(v, ys)));
  }
  o += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                   "fill=\"none\" stroke=\"#333\"/>\n",
                   left, top, right - left, bottom - top);
  o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                   (left + right) / 2, H - 22, xml_escape(c.xlabel));
  o += fmt::format("<text x=\"18\" y=\"{0:.1f}\" text-anchor=\"middle\" "
                   "transform=\"rotate(-90 18 {0:.1f})\">{1}</text>\n",
                   (top + bottom) / 2, xml_escape(c.ylabel));
  // Vertical markers.
  for (const auto& [v, text] : c.vlines) {
    if (v < ax.lo || v > ax.hi) continue;
    const double x = X(v);
    o += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                     "stroke=\"#8a5a2b\" stroke-dasharray=\"2,3\"/>\n",
                     x, top, bottom);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#8a5a2b\" font-size=\"11\">{}</text>\n",
                     x + 4, bottom - 8, xml_escape(text));
  }
  // Series.
  for (const auto& s : c.series) {
    std::string pts;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if ((c.logx && s.x[i] <= 0) || (c.logy && s.y[i] <= 0)) continue;
      pts += fmt::format("{:.1f},{:.1f} ", X(s.x[i]), Y(s.y[i]));
    }
    if (s.line && !pts.empty())
      o += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n",
                       s.color, dash(s), pts);
    if (s.markers)
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if ((c.logx && s.x[i] <= 0) || (c.logy && s.y[i] <= 0)) continue;
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n",
                         X(s.x[i]), Y(s.y[i]), s.color);
      }
  }
  // Legend: top left inside the plot, or in rows below the chart.
  if (!entries.empty() && c.legend == LegendPlace::Inside)
    o += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                     "fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n",
                     left + 6, top + 2, legend_w - 32 + 44, 18.0 * double(entries.size()) + 4);
  for (const auto& [sp, lx, ly] : entries) {
    const auto& s = *sp;
    o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                     "stroke-width=\"2\"{}/>\n",
                     lx, ly - 4, lx + 24, ly - 4, s.line ? s.color : "none", dash(s));
    if (s.markers)
      o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n", lx + 12,
                       ly - 4, s.color);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 32, ly, xml_escape(s.label));
  }
  o += svg_end();
  return o;
}

}  // namespace simfa::report
