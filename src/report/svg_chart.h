// A small SVG line chart for `simfa plot`, drawn with the shared SVG writer (svg.h; deterministic
// output: same input, same bytes). Python users get matplotlib figures from simfa.plot instead.
#pragma once
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
};

enum class TickStyle { Plain, Tokens /* 16K */, Scientific };

struct Chart {
  std::string title, subtitle, xlabel, ylabel;
  bool logx = false, logy = false;
  TickStyle xticks = TickStyle::Plain;
  std::vector<ChartSeries> series;
  // Optional shaded x-interval with a label (the realistic regime).
  double shade_from = 0, shade_to = 0;
  std::string shade_label;
  // Optional vertical marker lines with labels.
  std::vector<std::pair<double, std::string>> vlines;
  // Optional horizontal/sloped reference lines are ordinary series.
  double width = 760, height = 480;
};

std::string render_svg(const Chart& c);

}  // namespace simfa::report
