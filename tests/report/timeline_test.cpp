// Unit tests of the timeline pieces on hand-made spans: recorder filtering and span cap, SM lists,
// lane packing, labels, writers, and the ping-pong overlap statistic.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/timeline.h"
#include "report/timeline_lanes.h"
#include "report_test_util.h"
#include "sim/error.h"

namespace simfa::report {
namespace {

using core::Span;
using core::SpanKind;

Span sp(SpanKind k, std::uint16_t sm, std::uint8_t wg, Cycle a, Cycle b, std::uint16_t id = 0, std::uint32_t cta = 0) {
  return Span{k, sm, wg, id, cta, a, b};
}

TEST(TimelineRecorder, KeepsOnlyRequestedSms) {
  TimelineRecorder rec({2, 0, 2});
  EXPECT_EQ(rec.sms(), (std::vector<std::uint16_t>{0, 2}));
  EXPECT_TRUE(rec.wants(0));
  EXPECT_FALSE(rec.wants(1));
  EXPECT_FALSE(rec.wants(300));
  rec.span(sp(SpanKind::Bubble, 1, 1, 0, 10));
  rec.span(sp(SpanKind::Bubble, 2, 1, 0, 10));
  ASSERT_EQ(rec.spans().size(), 1u);
  EXPECT_EQ(rec.spans()[0].sm, 2);
}

TEST(TimelineRecorder, CapsSpansAndSaysWhereTheTimelineEnds) {
  TimelineRecorder rec({0}, 2);
  rec.span(sp(SpanKind::Bubble, 0, 1, 0, 10));
  rec.span(sp(SpanKind::Bubble, 0, 1, 10, 20));
  EXPECT_FALSE(rec.truncated());
  rec.span(sp(SpanKind::Bubble, 0, 1, 20, 30));
  rec.span(sp(SpanKind::Bubble, 0, 1, 30, 40));
  EXPECT_EQ(rec.spans().size(), 2u);
  EXPECT_TRUE(rec.truncated());
  EXPECT_EQ(rec.dropped(), 2u);
  EXPECT_EQ(rec.complete_until(), 30u);
  const std::string m = rec.truncation_message();
  EXPECT_NE(m.find("span limit of 2"), std::string::npos) << m;
  EXPECT_NE(m.find("cycle 30"), std::string::npos) << m;
  EXPECT_NE(m.find("--timeline-sms"), std::string::npos) << m;
}

TEST(TimelineSmList, ParsesListsAndRanges) {
  EXPECT_EQ(parse_sm_list("3,0-2,1", 8), (std::vector<std::uint16_t>{0, 1, 2, 3}));
  EXPECT_EQ(parse_sm_list(" 5 ", 8), (std::vector<std::uint16_t>{5}));
  EXPECT_THROW(parse_sm_list("8", 8), UserError);
  EXPECT_THROW(parse_sm_list("a", 8), UserError);
  EXPECT_THROW(parse_sm_list("3-1", 8), UserError);
  EXPECT_THROW(parse_sm_list("", 8), UserError);
}

TEST(TimelineLabels, NamesWarpGroupsLikeThePaper) {
  TimelineInfo info;
  info.roles = {"producer", "consumer0", "consumer1"};
  EXPECT_EQ(wg_label(info, 0), "producer");
  EXPECT_EQ(wg_label(info, 1), "consumer 1");
  EXPECT_EQ(wg_label(info, 2), "consumer 2");
  EXPECT_EQ(wg_label(info, 3), "wg 3");
}

TEST(TimelineLanes, OverlappingOperationsGetSeparateTracks) {
  std::vector<Span> s = {sp(SpanKind::TmaLoad, 0, 0, 0, 100, 0), sp(SpanKind::TmaLoad, 0, 0, 10, 50, 1),
                         sp(SpanKind::TmaLoad, 0, 0, 60, 120, 2), sp(SpanKind::WaitAcquire, 0, 0, 5, 40),
                         sp(SpanKind::Cta, 0, 0, 0, 200, 0, 3)};
  const auto laned = assign_lanes(s);
  std::map<std::int64_t, std::vector<const Span*>> by_tid;
  for (const auto& l : laned) by_tid[l.tid].push_back(l.span);
  for (const auto& [tid, v] : by_tid)
    for (std::size_t i = 1; i < v.size(); ++i) EXPECT_LE(v[i - 1]->end, v[i]->start) << "tid " << tid;
  // State lane 0; two TMA lanes after it; the CTA's own track.
  EXPECT_EQ(by_tid.size(), 4u);
  EXPECT_TRUE(by_tid.count(0));
  EXPECT_TRUE(by_tid.count(1));
  EXPECT_TRUE(by_tid.count(2));
  EXPECT_TRUE(by_tid.count(3 * 128 + 127));
}

TEST(TimelineJson, HasMetadataAndCompleteEventsInMicroseconds) {
  TimelineRecorder rec({0});
  rec.span(sp(SpanKind::Bubble, 0, 1, 1000, 3000, 0, 5));
  rec.span(sp(SpanKind::WgmmaGroup, 0, 1, 0, 1000, 1, 5));
  TimelineInfo info;
  info.clock_hz = 1e9;  // 1 cycle = 1 ns
  info.roles = {"producer", "consumer0"};
  std::ostringstream out;
  write_perfetto_json(out, rec, info);
  const auto j = nlohmann::json::parse(out.str());
  bool named = false, bubble = false;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "sm0 cta5 consumer 1") named = true;
    if (e["ph"] == "X" && e["name"] == "bubble (softmax)") {
      bubble = true;
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1.0);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 2.0);
      EXPECT_EQ(e["args"]["start_cycle"], 1000);
      EXPECT_EQ(e["pid"], 0);
      EXPECT_EQ(e["tid"], 5 * 128 + 16);
    }
  }
  EXPECT_TRUE(named);
  EXPECT_TRUE(bubble);
}

TEST(TimelineSvg, IsWellFormedAndDrawsTheWindow) {
  TimelineRecorder rec({0});
  rec.span(sp(SpanKind::Cta, 0, 0, 0, 5000, 0, 0));
  rec.span(sp(SpanKind::TmaLoad, 0, 0, 10, 900, 0));
  rec.span(sp(SpanKind::WaitStage, 0, 1, 5, 900, 0));
  rec.span(sp(SpanKind::WgmmaGroup, 0, 1, 901, 1600, 0));
  rec.span(sp(SpanKind::Bubble, 0, 1, 1700, 2600));
  TimelineInfo info;
  info.clock_hz = 1.83e9;
  info.roles = {"producer", "consumer0", "consumer1"};
  info.title = "a <tiny> & \"quoted\" run";
  std::ostringstream out;
  write_timeline_svg(out, rec, info, {0, 0, 2000, 1200});
  std::string err;
  EXPECT_TRUE(test::xml_well_formed(out.str(), &err)) << err;
  EXPECT_NE(out.str().find("consumer 1"), std::string::npos);
  EXPECT_NE(out.str().find("producer"), std::string::npos);
  EXPECT_NE(out.str().find("&lt;tiny&gt; &amp;"), std::string::npos);
  EXPECT_NE(out.str().find("time (µs"), std::string::npos);
  EXPECT_THROW(write_timeline_svg(out, rec, info, {3, 0, 0, 1200}), UserError);  // SM 3 not recorded
}

TEST(TimelineSvg, ChecksItsOwnXmlChecker) {
  std::string err;
  EXPECT_TRUE(test::xml_well_formed("<?xml version=\"1.0\"?><a x=\"1\"><b/>t &amp; u</a>", &err)) << err;
  EXPECT_FALSE(test::xml_well_formed("<a><b></a></b>", &err));
  EXPECT_FALSE(test::xml_well_formed("<a x=1/>", &err));
  EXPECT_FALSE(test::xml_well_formed("<a>x & y</a>", &err));
  EXPECT_FALSE(test::xml_well_formed("<a/><b/>", &err));
  EXPECT_FALSE(test::xml_well_formed("<a x=\"1\" x=\"2\"/>", &err));
}

TEST(PingPongStats, CountsCyclesWhereTwoConsumersHaveGroupsInFlight) {
  TimelineRecorder rec({0});
  // Consumer 1: [0,100) and [50,150) (its own groups overlap: counted once) -> [0,150).
  rec.span(sp(SpanKind::WgmmaGroup, 0, 1, 0, 100, 0));
  rec.span(sp(SpanKind::WgmmaGroup, 0, 1, 50, 150, 1));
  // Consumer 2: [150,300) touches consumer 1's end (no overlap), [280,320) overlaps its own.
  rec.span(sp(SpanKind::WgmmaGroup, 0, 2, 150, 300, 0));
  // Consumer 1 again: [290,400) overlaps consumer 2 for 10 cycles.
  rec.span(sp(SpanKind::WgmmaGroup, 0, 1, 290, 400, 0));
  // The producer's spans and other SMs' are ignored.
  rec.span(sp(SpanKind::WgmmaGroup, 0, 0, 0, 400, 0));
  TimelineInfo info;
  info.roles = {"producer", "consumer0", "consumer1"};
  const PingPongStats st = pingpong_stats(rec, info, 0);
  EXPECT_EQ(st.groups, 4u);
  EXPECT_EQ(st.busy, 400u);
  EXPECT_EQ(st.overlap, 10u);
  EXPECT_DOUBLE_EQ(st.overlap_fraction(), 10.0 / 400.0);
}

}  // namespace
}  // namespace simfa::report
