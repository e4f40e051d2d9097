// The SVG writer shared by every picture simfa draws (the timeline of one SM, timeline_svg.cpp;
// the analytic model's charts, svg_chart.cpp): the document frame, text escaping and axis steps,
// so that the pictures look alike and are written one way. Output is deterministic: same input,
// same bytes.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>

namespace simfa::report {

// `s` with &, <, > and " escaped for SVG text and attribute values.
std::string xml_escape(std::string_view s);

// The opening of a `width` x `height` document (12-pixel `font_family`) with a white background.
std::string svg_begin(double width, double height, std::string_view font_family);
// The closing tag.
std::string svg_end();

// The axis step near span / target: the smallest of mantissa x 10^k (for the given mantissas, in
// ascending order, ending at 10) that is at least span / target.
double nice_step(double span, int target, std::initializer_list<double> mantissas = {1, 2, 5, 10});

}  // namespace simfa::report
