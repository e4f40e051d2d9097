// Back-pressure never drops: under tiny queues, MSHR pools and DRAM queues every accepted request
// gets exactly one response (conservation), and the skip and no-skip modes agree to the cycle.
#include <gtest/gtest.h>

#include <bit>

#include <nlohmann/json.hpp>

#include "harness.h"
#include "sim/rng.h"

namespace simfa::mem::test {
namespace {

HierarchyParams tight() {
  auto p = small_params();
  p.l2.mshrs = 4;
  p.l2.req_queue = 2;
  p.l2.resp_queue = 4;
  p.xbar.slice_buffer = 2;
  p.xbar.sm_queue = 2;
  p.lrc.entries = 4;
  return p;
}

void script(Harness& h, int per_sm, std::uint64_t seed) {
  Rng rng(seed, "workload");
  for (auto& sm : h.sms)
    for (int i = 0; i < per_sm; ++i) {
      const Addr a = rng.below(4096) * 128;  // 512 KiB: twice the small L2
      const auto k = rng.below(10);
      const ReqKind kind = k < 5 ? ReqKind::TmaLoad : k < 7 ? ReqKind::Load
                           : k < 9 ? ReqKind::TmaStore : ReqKind::Store;
      const auto sectors = static_cast<std::uint8_t>(1 + rng.below(15));
      sm->add(a, kind, i / 4, sectors);
    }
}

void expect_conserved(Harness& h) {
  for (auto& sm : h.sms) {
    std::vector<int> seen(sm->script().size(), 0);
    for (const auto& r : sm->responses) ++seen.at(r.req.tag);
    for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "tag " << i;
    ASSERT_EQ(sm->issued(), sm->script().size());
  }
  EXPECT_EQ(h.mem->in_flight(), 0u);
  EXPECT_EQ(h.stat("gpu.mem.requests"), h.stat("gpu.mem.responses"));
}

TEST(Conservation, EveryRequestGetsExactlyOneResponseUnderBackPressure) {
  Harness h(tight(), 8, 200, /*dram_queue=*/2);
  script(h, 3000, 1);
  ASSERT_TRUE(h.run());
  expect_conserved(h);
  EXPECT_GT(h.stat("gpu.mem.refusals_credit"), 0);
  EXPECT_GT(h.stat("gpu.mem.refusals_port"), 0);
  EXPECT_GT(h.stat("gpu.l2.dram_refusals"), 0);
  EXPECT_GT(h.stat("gpu.l2.mshr_stall_cycles"), 0);
  // Write-backs are posted: they may still be at the DRAM when the last SM is answered.
  EXPECT_TRUE(h.engine.run([&] { return h.dram->in_flight() == 0; }));
  EXPECT_EQ(h.dram->writes, h.stat("gpu.l2.writebacks"));
}

TEST(Conservation, HoldsWithDefaultSizes) {
  Harness h(small_params(), 8, 200, 4);
  script(h, 3000, 2);
  ASSERT_TRUE(h.run());
  expect_conserved(h);
}

// Every byte written leaves the L2 as a write-back or is still dirty there at the end
// (gpu.l2.dirty_bytes): each line is written once, with whole sectors, among reads that evict.
TEST(Conservation, WrittenBytesAreWrittenBackOrStillDirty) {
  Harness h(small_params(), 4, 200);
  Rng rng(7, "workload");
  std::uint64_t written = 0;
  for (std::uint16_t s = 0; s < 4; ++s)
    for (int i = 0; i < 600; ++i) {
      if (i % 3 == 0) {  // a line of its own: 8192 lines per SM apart
        const auto sectors = static_cast<std::uint8_t>(1 + rng.below(15));
        h.sms[s]->add((8192ull * (s + 1) + i) * 128, ReqKind::TmaStore, i / 4, sectors);
        written += 32ull * static_cast<unsigned>(std::popcount(unsigned{sectors}));
      } else {
        h.sms[s]->add(rng.below(4096) * 128, ReqKind::TmaLoad, i / 4);  // 512 KiB: evicts
      }
    }
  ASSERT_TRUE(h.run());
  EXPECT_TRUE(h.engine.run([&] { return h.dram->in_flight() == 0; }));  // posted write-backs
  EXPECT_GT(h.dram->write_bytes, 0u);
  EXPECT_GT(h.stat("gpu.l2.dirty_bytes"), 0);
  EXPECT_EQ(static_cast<double>(h.dram->write_bytes) + h.stat("gpu.l2.dirty_bytes"), static_cast<double>(written));
}

// The L2 cannot outrun the DRAM's writes: a stream of stores four times the L2's size evicts a
// dirty line per store once the L2 is full, and a write-back that finds its DRAM channel full
// holds an entry of its slice's MSHR pool until the channel takes it; a store that allocates a
// line waits for a free entry. Hand-computed, with 4 entries per slice: 8192 whole-line stores
// into a 2048-line L2 write back at least 8192 - 2048 = 6144 lines, and at most 8 x 4 = 32 of
// them can wait in the slices; the fake DRAM's 8 channels of 2 slots, each held 200 cycles, take
// at most 16 writes per 200 cycles, so the stores cannot all be answered before cycle
// (6144 - 32 - 16) / 16 x 200 = 76,200. Without the entries the slices took the stores at their
// own rate (2 per SM per cycle) and the write-backs queued in the fabric by the thousand (a
// full-detail run of an FA3 kernel with L > S ended with 98 MB of them queued, uncounted).
TEST(Conservation, WriteBacksHoldTheL2ToTheDramsWriteRate) {
  auto p = small_params();
  p.l2.mshrs = 4;
  const Cycle dram_latency = 200;
  const std::uint32_t dram_queue = 2, dram_channels = 8;  // the fake DRAM's channels (harness.h)
  Harness h(p, 4, dram_latency, dram_queue);
  const double l2_lines = double(p.l2.size) / 128, stores = 4 * 2048;
  const double slots = dram_channels * dram_queue, pool = double(p.l2.slices * p.l2.mshrs);
  for (std::uint16_t s = 0; s < 4; ++s)
    for (std::uint64_t i = 0; i < 2048; ++i) h.sms[s]->add((s * 2048 + i) * 128, ReqKind::TmaStore);
  ASSERT_TRUE(h.run());
  const double writebacks = h.stat("gpu.l2.writebacks");
  EXPECT_GE(writebacks, stores - l2_lines);
  // Accepted by the DRAM, or waiting in an MSHR entry: at most 4 per slice.
  EXPECT_LE(writebacks - static_cast<double>(h.dram->writes), pool);
  EXPECT_GE(static_cast<double>(h.engine.now()), (stores - l2_lines - pool - slots) / slots * dram_latency);
  EXPECT_GT(h.stat("gpu.l2.mshr_stall_cycles"), 0);
  // Every written byte is written back or still dirty once the posted write-backs are done.
  EXPECT_TRUE(h.engine.run([&] { return h.dram->in_flight() == 0 && h.stat("gpu.l2.writebacks") == h.dram->writes; }));
  EXPECT_EQ(static_cast<double>(h.dram->write_bytes) + h.stat("gpu.l2.dirty_bytes"), stores * 128.0);
}

struct Log {
  std::vector<std::pair<std::uint32_t, Cycle>> responses;
  std::string stats;
  Cycle end = 0;
};

Log run_mode(bool skip, std::uint64_t seed) {
  Harness h(tight(), 8, 200, 2, skip);
  script(h, 1500, seed);
  EXPECT_TRUE(h.run());
  Log l;
  for (auto& sm : h.sms)
    for (const auto& r : sm->responses) l.responses.emplace_back(r.req.tag, r.at);
  l.stats = h.stats.values_json().dump();
  l.end = h.engine.now();
  return l;
}

TEST(Determinism, SkipAndNoSkipGiveIdenticalResults) {
  const Log a = run_mode(true, 3), b = run_mode(false, 3);
  EXPECT_EQ(a.end, b.end);
  EXPECT_EQ(a.responses, b.responses);
  EXPECT_EQ(a.stats, b.stats);
}

TEST(Determinism, TwoRunsAreIdentical) {
  const Log a = run_mode(true, 4), b = run_mode(true, 4);
  EXPECT_EQ(a.responses, b.responses);
  EXPECT_EQ(a.stats, b.stats);
}

}  // namespace
}  // namespace simfa::mem::test
