// `--timeline FILE.json|FILE.svg` and its companions for commands that run a simulation: the
// flags, checked before the run, and the recorder attached to it.
#pragma once
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "api/run.h"
#include "report/timeline.h"

namespace simfa::cli {

struct TimelineFlags {
  std::string file;          // empty: no timeline
  std::string sms = "0";     // SM list ("0,1", "0-3", "all"); the SVG draws the first
  std::string window_us;     // "A:B" in µs (SVG only); empty: a default window
  std::size_t max_spans = report::TimelineRecorder::kDefaultMaxSpans;
};

// Adds --timeline, --timeline-sms, --timeline-window-us, --timeline-max-spans.
void add_timeline_flags(CLI::App* app, TimelineFlags& f);

// One timeline being recorded. Construct before the run (it checks the flags: a bad extension, SM
// or window is a UserError before any simulation), run the source returned by wrap() with
// observer(), then finish().
class TimelineSession {
 public:
  TimelineSession(const TimelineFlags& f, const Config& cfg);
  trace::TraceSource& wrap(trace::TraceSource& src);
  core::Observer* observer() { return rec_.get(); }
  // Writes the file; returns the summary lines for the terminal (file, spans, ping-pong overlap,
  // and the truncation message when spans were dropped).
  std::string finish(const RunResult& r, const std::string& title);

 private:
  TimelineFlags f_;
  double clock_hz_;
  std::unique_ptr<report::TimelineRecorder> rec_;
  std::unique_ptr<report::RoleTap> tap_;
  double from_us_ = -1, to_us_ = -1;
};

}  // namespace simfa::cli
