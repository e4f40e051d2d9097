// The oldest-first warp scheduler (sm.scheduler = oldest) against GTO on one trace where they part:
// the older thread stalls for a bubble, the younger one takes over, and the older one is ready
// again while the younger can still issue.
#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.h"

namespace simfa::test {
namespace {

// WG0 (older): BUBBLE 2, then three one-cycle instructions; WG1: four one-cycle instructions, then
// a one-cycle bubble that marks when WG1 finished issuing the others.
std::uint64_t marker_start(const std::string& policy) {
  std::vector<Instr> wg0 = {Instr::bubble(2)}, wg1;
  for (int i = 0; i < 3; ++i) wg0.push_back(Instr::bar_arrive(15));
  for (int i = 0; i < 4; ++i) wg1.push_back(Instr::bar_arrive(15));
  wg1.push_back(Instr::bubble(1));
  Recorder rec;
  run(make_trace({{wg0, wg1}}), small_gpu({"sm.scheduler=" + policy, "sm.interference=false"}), true, &rec);
  for (const auto& s : rec.of(core::SpanKind::Bubble))
    if (s.end - s.start == 1) return s.start;
  ADD_FAILURE() << "no marker bubble under " << policy;
  return 0;
}

TEST(OldestFirstScheduler, GivesTheSmBackToTheOlderThreadAtOnce) {
  // GTO: WG0's bubble at t0, WG1 issues t1..t4 (greedy, although WG0 is ready at t2), marker t5.
  EXPECT_EQ(marker_start("gto"), 5u);
  // Oldest first: WG1 issues at t1, WG0 takes t2..t4 back, WG1 issues t5..t7, marker t8.
  EXPECT_EQ(marker_start("oldest"), 8u);
}

TEST(OldestFirstScheduler, IsAChoiceOfSmScheduler) {
  const auto& choices = param_registry().find("sm.scheduler")->choices;
  EXPECT_NE(std::find(choices.begin(), choices.end(), "oldest"), choices.end());
}

}  // namespace
}  // namespace simfa::test
