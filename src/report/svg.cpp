// The shared SVG pieces (svg.h).
#include "report/svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace simfa::report {

std::string xml_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string svg_begin(double width, double height, std::string_view font_family) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "font-family=\"{2}\" font-size=\"12\">\n<rect width=\"{0:.0f}\" height=\"{1:.0f}\" fill=\"white\"/>\n",
      width, height, xml_escape(font_family));
}

std::string svg_end() { return "</svg>\n"; }

double nice_step(double span, int target, std::initializer_list<double> mantissas) {
  const double raw = span / std::max(1, target);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : mantissas)
    if (m * p >= raw) return m * p;
  return 10 * p;
}

}  // namespace simfa::report
