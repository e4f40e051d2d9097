// Timelines of a run (paper Fig. 7): an Observer that records the core's spans for a chosen set of
// SMs, a TraceSource wrapper that remembers each WarpGroup's role, and writers for Chrome/Perfetto
// trace-event JSON and a static SVG Gantt chart of one SM.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/observer.h"
#include "sim/types.h"
#include "trace/source.h"

namespace simfa::report {

// Records every span of the requested SMs, in the order the core reports them (at their end).
// Memory is bounded: after `max_spans` spans the recorder stops, counts what it drops and remembers
// the cycle of the first dropped span; everything that ended before that cycle is complete.
class TimelineRecorder final : public core::Observer {
 public:
  static constexpr std::size_t kDefaultMaxSpans = 2'000'000;  // 32 bytes each: 64 MB

  explicit TimelineRecorder(std::vector<std::uint16_t> sms, std::size_t max_spans = kDefaultMaxSpans);

  bool wants(std::uint16_t sm) const override;
  void span(const core::Span& s) override;

  const std::vector<core::Span>& spans() const { return spans_; }
  const std::vector<std::uint16_t>& sms() const { return sms_; }
  std::size_t max_spans() const { return max_spans_; }
  bool truncated() const { return dropped_ != 0; }
  std::uint64_t dropped() const { return dropped_; }
  Cycle complete_until() const { return complete_until_; }  // kNever when nothing was dropped
  // One line for the user when spans were dropped, else empty.
  std::string truncation_message() const;

 private:
  std::vector<std::uint16_t> sms_;  // sorted, unique
  std::vector<bool> want_;          // indexed by SM id
  std::size_t max_spans_;
  std::vector<core::Span> spans_;
  std::uint64_t dropped_ = 0;
  Cycle complete_until_ = kNever;
};

// Parses "0,1,4-7" into sorted unique SM ids below `num_sms`. Throws UserError naming `flag`.
std::vector<std::uint16_t> parse_sm_list(const std::string& text, int num_sms,
                                         const std::string& flag = "--timeline-sms");

// Forwards a TraceSource and remembers the role of each WarpGroup index ("producer", "consumer0",
// ...) from the CTAs it opens, so a timeline can name its tracks.
class RoleTap final : public trace::TraceSource {
 public:
  explicit RoleTap(trace::TraceSource& inner) : inner_(inner) {}
  const trace::KernelInfo& kernel() const override { return inner_.kernel(); }
  std::uint32_t wgs_per_cta(std::uint32_t cta) const override { return inner_.wgs_per_cta(cta); }
  trace::CtaProgram open(std::uint32_t cta) override;
  bool prevalidated() const override { return inner_.prevalidated(); }
  void run_started(const Engine& e, Stats& s, trace::CopyReplay* r) override { inner_.run_started(e, s, r); }
  void run_finished(Cycle end, Stats& s) override { inner_.run_finished(end, s); }
  trace::SamplingReport sampling() const override { return inner_.sampling(); }
  const std::vector<std::string>& roles() const { return roles_; }

 private:
  trace::TraceSource& inner_;
  std::vector<std::string> roles_;
};

// What the writers need besides the spans.
struct TimelineInfo {
  double clock_hz = 0;              // SM clock: timestamps are cycles / clock
  std::vector<std::string> roles;   // role per WarpGroup index (may be empty: "wg N")
  std::string title;                // one line describing the run (workload, GPU)
  Cycle total_cycles = 0;           // kernel duration
};

// The display name of WarpGroup `wg`: "producer", "consumer 1" (role "consumer0": the paper
// numbers consumers from 1), or "wg N" when the role is unknown.
std::string wg_label(const TimelineInfo& info, unsigned wg);
// Short display name of a span kind ("TMA load", "wait: stage full", "softmax/bubble", ...).
const char* kind_label(core::SpanKind k);
// Fill colour of a span kind in the SVG (and the legend).
const char* kind_color(core::SpanKind k);

// Chrome/Perfetto trace-event JSON ("X" complete events, ts/dur in microseconds at the SM clock,
// "M" metadata naming processes and threads). pid = SM; each WarpGroup has a state track (its
// waits and bubbles: never overlapping) and lanes for its asynchronous operations (TMA loads and
// stores, WGMMA groups), which overlap and so get one track per concurrent operation; each CTA has
// a lifetime track. tid = CTA * 128 + WG * 16 + lane (lane 0 = state), CTA track: CTA * 128 + 127.
void write_perfetto_json(std::ostream& out, const TimelineRecorder& rec, const TimelineInfo& info);

// Static SVG of one SM in the style of the paper's Fig. 7: one row per WarpGroup (producer,
// consumer 1, consumer 2) with its waits and bubbles, thin lanes below it for its TMA loads/stores
// or WGMMA groups in flight, a time axis in microseconds and a legend. Spans are clipped to
// [from, to) cycles.
struct SvgOptions {
  std::uint16_t sm = 0;
  Cycle from = 0, to = 0;  // to == 0: choose a default window (default_svg_window)
  int width = 1400;        // pixels
};
void write_timeline_svg(std::ostream& out, const TimelineRecorder& rec, const TimelineInfo& info,
                        const SvgOptions& opt);
// The default SVG window on `sm`: from the SM's first span to the end of its `groups`-th WGMMA
// group (about groups / 4 ping-pong iterations with two consumers; QK and PV are one group each),
// or all recorded time when there are fewer groups.
struct Window {
  Cycle from = 0, to = 0;
};
Window default_svg_window(const TimelineRecorder& rec, std::uint16_t sm, int groups = 24);

// Writes the timeline to `path`; the extension picks the format (.json or .svg). Throws UserError
// for any other extension or when the file cannot be written.
void write_timeline_file(const std::string& path, const TimelineRecorder& rec, const TimelineInfo& info,
                         const SvgOptions& svg);

// How much the consumers' WGMMA groups overlap on one SM. The tensor pipe runs one WGMMA at a
// time, so with ping-pong one consumer's GEMMs run while the other does its softmax; two consumers'
// group spans overlap only when their WGMMAs interleave in the pipe.
struct PingPongStats {
  Cycle busy = 0;      // cycles in which at least one consumer has a WGMMA group in flight
  Cycle overlap = 0;   // cycles in which two or more consumers of a CTA have one in flight
  std::uint64_t groups = 0;
  double overlap_fraction() const { return busy ? double(overlap) / double(busy) : 0.0; }
};
// Consumers are the WarpGroups whose role starts with "consumer" when roles are known, else every WG >= 1.
PingPongStats pingpong_stats(const TimelineRecorder& rec, const TimelineInfo& info, std::uint16_t sm);

}  // namespace simfa::report
