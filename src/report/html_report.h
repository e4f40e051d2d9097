// `simfa report`: one self-contained HTML page (inline CSS and SVG; no scripts, fonts or images
// from elsewhere) about the results database of `simfa sweep` (results_db.h). Per study: a header
// (name, points, ok and failed, simfa version, what varies and what is fixed), the failed points
// with their messages, latency and TFLOPS against the sequence length (or whichever numeric input
// varies) with one line per GPU, variant and combination of the other varied inputs, simulated
// beside analytic L2 and DRAM traffic (and the paper's Fig. 9 regime lines per line), the pipe
// utilizations, and a table of every point. Deterministic: the same database gives the same bytes.
#pragma once
#include <string>
#include <vector>

#include "report/results_db.h"

namespace simfa::report {

struct HtmlReportOptions {
  std::vector<std::string> studies;  // only these, in this order, once each (empty: every study, by name)
  std::string title;                 // empty: "simfa report: FILE" (the database's file name)
};

// The page. UserError naming the database and the study when a study of `o.studies` has no
// points and no row in table `studies`.
std::string html_report(const ResultsDb& db, const HtmlReportOptions& o = {});

// At most this many regime charts (Fig. 9 style, one per line of the traffic charts) per study.
inline constexpr std::size_t kMaxRegimeCharts = 12;

}  // namespace simfa::report
