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

std::vector<double> ticks(Axis& ax, int target, bool include_zero, bool tokens = false) {
  std::vector<double> t;
  if (tokens && !ax.log && ax.hi - ax.lo >= 2048) {
    // Token counts: steps of 1K·2^k, so labels read 16K, 24K, 32K ...
    double step = 1024;
    while ((ax.hi - ax.lo) / step > target) step *= 2;
    const double first = std::ceil(ax.lo / step) * step;
    for (double v = first; v <= ax.hi; v += step) t.push_back(v);
    return t;
  }
  if (ax.log) {
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
  if (s == TickStyle::Scientific || std::fabs(v) >= 1e5 || (v != 0 && std::fabs(v) < 1e-3)) {
    const int e = int(std::floor(std::log10(std::fabs(v))));
    const double m = v / std::pow(10.0, e);
    if (std::fabs(m - 1) < 1e-9) return fmt::format("1e{}", e);
    return fmt::format("{:g}e{}", m, e);
  }
  return fmt::format("{:g}", v);
}

}  // namespace

std::string render_svg(const Chart& c) {
  const double W = c.width, H = c.height;
  const double left = 84, right = W - 24, top = c.subtitle.empty() ? 48 : 62, bottom = H - 64;
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
  const auto xt = ticks(ax, 8, false, c.xticks == TickStyle::Tokens);
  const auto yt = ticks(ay, 6, !c.logy);
  auto X = [&](double v) { return ax.map(v, left, right); };
  auto Y = [&](double v) { return ay.map(v, bottom, top); };

  std::string o;
  o += svg_begin(W, H, "DejaVu Sans, Arial, sans-serif");
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
      o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#8a5a2b\">{}"
                       "</text>\n",
                       (a + b) / 2, top + 16, xml_escape(c.shade_label));
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
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6,
                     y + 4, xml_escape(label(v, c.logy ? TickStyle::Scientific : TickStyle::Plain)));
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
                       s.color, s.dashed ? " stroke-dasharray=\"6,4\"" : "", pts);
    if (s.markers)
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if ((c.logx && s.x[i] <= 0) || (c.logy && s.y[i] <= 0)) continue;
        o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n",
                         X(s.x[i]), Y(s.y[i]), s.color);
      }
  }
  // Legend (top left inside the plot).
  double ly = top + 14;
  const double lx = left + 12;
  double lw = 0;
  for (const auto& s : c.series) lw = std::max(lw, 7.0 * double(s.label.size()));
  o += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                   "fill=\"white\" fill-opacity=\"0.85\" stroke=\"#ccc\"/>\n",
                   lx - 6, ly - 12, lw + 44, 18.0 * double(c.series.size()) + 4);
  for (const auto& s : c.series) {
    o += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                     "stroke-width=\"2\"{}/>\n",
                     lx, ly - 4, lx + 24, ly - 4, s.line ? s.color : "none",
                     s.dashed ? " stroke-dasharray=\"6,4\"" : "");
    if (s.markers)
      o += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n", lx + 12,
                       ly - 4, s.color);
    o += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 32, ly, xml_escape(s.label));
    ly += 18;
  }
  o += svg_end();
  return o;
}

}  // namespace simfa::report
