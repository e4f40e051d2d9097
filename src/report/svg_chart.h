// A small SVG line chart for `simfa plot`, drawn with the shared SVG writer (svg.h; deterministic
// output: same input, same bytes). Python users get matplotlib figures from simfa.plot instead.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace simfa::report {

struct ChartSeries {
  std::string label;
  std::vector<double> x, y;
  std::string color = "#1f77b4";
  bool line = true;      // connect the points
  bool markers = true;   // draw a marker at each point
  bool dashed = false;
  bool dotted = false;    // when not dashed
  bool in_legend = true;  // false: drawn, not listed (a legend-only series has no points)
};

// Tick labels: Plain (1e5 and up in scientific notation), Tokens (16K; on a log axis, ticks at
// powers of two), Scientific, Si (2000, 50k, 1M, 3G; no exponents).
enum class TickStyle { Plain, Tokens, Scientific, Si };

// Where the legend goes: inside the plot's top left corner, or under the x label (as many entries
// a row as fit; the picture grows by the rows), or nowhere.
enum class LegendPlace { Inside, Below, None };

struct Chart {
  std::string title, subtitle, xlabel, ylabel;
  bool logx = false, logy = false;
  TickStyle xticks = TickStyle::Plain;
  // The y tick labels; unset: Scientific on a log axis, Plain otherwise.
  std::optional<TickStyle> yticks;
  LegendPlace legend = LegendPlace::Inside;
  // Log axes: false, whole decades with a tick at each; true, the data's range (a little room
  // around it) with ticks at 1, 2 and 5 x 10^k (or every digit over less than a decade).
  bool tight_log = false;
  std::vector<ChartSeries> series;
  // Optional shaded x-interval with a label (the realistic regime).
  double shade_from = 0, shade_to = 0;
  std::string shade_label;
  // Optional vertical marker lines with labels.
  std::vector<std::pair<double, std::string>> vlines;
  // Optional horizontal/sloped reference lines are ordinary series.
  double width = 760, height = 480;  // without the rows of a legend below
};

std::string render_svg(const Chart& c);

}  // namespace simfa::report
