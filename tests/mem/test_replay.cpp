// Span replay (MemorySystem::replay, docs/sampling.md): the replay slices run a sampled run's
// skipped lines through their tag arrays as the detailed lookup would, count what that costs, and
// scale it to all slices; the other slices only take the last L2-capacity as functional warming.
#include <gtest/gtest.h>

#include "harness.h"

namespace simfa::mem::test {
namespace {

// Lines (byte addresses) homed in slice `slice`, from `from` on.
std::vector<Addr> lines_in_slice(const Hierarchy& h, std::uint32_t slice, std::size_t n, Addr from = 0) {
  std::vector<Addr> v;
  for (Addr a = from; v.size() < n; a += 128)
    if (h.home_slice(a) == slice) v.push_back(a);
  return v;
}

TEST(Replay, ReplaySlicesCountMissesAndWriteBacksScaledToAllSlices) {
  Harness h(small_params(), 1);
  h.mem->enable_replay(2);  // slices 0, 2, 4, 6 of 8: scale 2
  const std::vector<Addr> a = lines_in_slice(*h.mem, 0, 3);
  h.mem->replay(a[0], 0xF, false, false, -1);  // read miss: 4 sectors from DRAM
  h.mem->replay(a[0], 0xF, false, false, -1);  // hit
  h.mem->replay(a[1], 0x3, false, false, -1);  // read miss: 2 sectors
  h.mem->replay(a[1], 0xF, false, false, -1);  // the 2 missing sectors
  h.mem->replay(a[2], 0xF, true, false, -1);   // whole-sector write: allocates, reads nothing
  // The dirty line is the replay slices' dirty data, scaled as their DRAM bytes; a written line of
  // another slice (warming) is not counted.
  EXPECT_EQ(h.stat("gpu.l2.dirty_bytes"), 2 * 4 * 32);
  h.mem->replay(lines_in_slice(*h.mem, 1, 1)[0], 0xF, true, true, -1);
  EXPECT_EQ(h.stat("gpu.l2.dirty_bytes"), 2 * 4 * 32);
  MemorySystem::ReplayCounts c = h.mem->replay_counts();
  EXPECT_EQ(c.lines, 5);
  EXPECT_EQ(c.scale, 2);
  EXPECT_EQ(h.mem->slice(0).replayed().read_misses, 3u);
  EXPECT_EQ(c.read_bytes, 2 * 32 * (4 + 2 + 2));
  EXPECT_EQ(c.write_bytes, 0);
  // Enough other lines of slice 0 to evict everything it holds (32 KiB, LRU): the written line is
  // written back once, with its 4 dirty sectors.
  for (Addr x : lines_in_slice(*h.mem, 0, 1024, a[2] + 128)) h.mem->replay(x, 0xF, false, false, -1);
  c = h.mem->replay_counts();
  EXPECT_EQ(h.mem->slice(0).replayed().writebacks, 1u);
  EXPECT_EQ(c.write_bytes, 2 * 4 * 32);
  EXPECT_EQ(h.stat("gpu.l2.dirty_bytes"), 0);  // written back: no longer dirty
  EXPECT_GE(h.mem->slice(0).replayed().evictions, 3u);
  // No detailed traffic: the whole run's estimate is the replay's.
  EXPECT_EQ(c.run_read_bytes, c.read_bytes);
  EXPECT_EQ(c.run_write_bytes, c.write_bytes);
  EXPECT_EQ(c.run_read_misses, 2.0 * static_cast<double>(h.mem->slice(0).replayed().read_misses));
  // Nothing reached the timing model.
  EXPECT_EQ(h.stat("gpu.mem.requests"), 0);
  EXPECT_EQ(h.dram->reads, 0u);
}

TEST(Replay, OtherSlicesOnlyWarmAndReplaySlicesIgnoreWarming) {
  Harness h(small_params(), 1);
  h.mem->enable_replay(2);
  const Addr other = lines_in_slice(*h.mem, 1, 1)[0];
  h.mem->replay(other, 0xF, false, false, -1);  // counting pass: not a replay slice, nothing
  h.mem->replay(other, 0xF, false, true, -1);   // warming pass: the line is placed, not counted
  EXPECT_EQ(h.mem->replay_counts().lines, 0);
  EXPECT_EQ(h.mem->replay_counts().read_bytes, 0);
  EXPECT_EQ(h.mem->slice(1).replayed().lines, 0u);
  // Neither the warming pass of a replay nor a kTmaWarm copy touches a replay slice: its lines
  // stay misses.
  const Addr mine = lines_in_slice(*h.mem, 2, 1)[0];
  h.mem->replay(mine, 0xF, false, true, -1);
  h.mem->warm(mine, 0xF, false);
  h.mem->replay(mine, 0xF, false, false, -1);
  EXPECT_EQ(h.mem->replay_counts().read_bytes, 2 * 4 * 32);
}

TEST(Replay, AFarReadLeavesAShadowCopyThatServesTheNextOne) {
  HierarchyParams p = small_params();
  p.l2.remote_copy = true;
  p.l2.rc_max_probability = 1.0;
  Harness h(p, 4);  // SMs 2 and 3 are in partition 1
  h.mem->enable_replay(2);
  ASSERT_EQ(h.mem->crossbar().sm_partition(2), 1u);
  const Addr a = lines_in_slice(*h.mem, 0, 1)[0];  // homed in partition 0; its mirror is slice 4
  h.mem->replay(a, 0xF, false, false, 2);  // far read: home miss, shadow copy in slice 4
  EXPECT_EQ(h.mem->replay_counts().read_bytes, 2 * 4 * 32);
  EXPECT_EQ(h.mem->slice(0).replayed().lines, 1u);
  EXPECT_EQ(h.mem->slice(4).tags().shadow_lines(), 1u);
  h.mem->replay(a, 0xF, false, false, 3);  // served by the shadow: the home slice sees nothing
  EXPECT_EQ(h.mem->slice(0).replayed().lines, 1u);
  h.mem->replay(a, 0xF, false, false, 0);  // a near read goes home (a hit)
  EXPECT_EQ(h.mem->slice(0).replayed().lines, 2u);
  EXPECT_EQ(h.mem->replay_counts().read_bytes, 2 * 4 * 32);
}

// Set sampling over every slice (docs/sampling.md step 5): a slice counts every k-th set class,
// turned by its offset in its partition, so every set index counts in the same number of slices
// (none stands for the whole L2, and no slice does) and a slice's mirror counts the sets it counts.
TEST(Replay, SetSamplingTurnsTheCountedClassesFromSliceToSlice) {
  Harness h(small_params(), 1);  // 8 slices in 2 partitions of 4, 64 sets each
  h.mem->enable_replay(1);
  h.mem->set_replay_set_stride(4);
  const Crossbar& x = h.mem->crossbar();
  ASSERT_EQ(x.partitions(), 2u);
  const std::uint32_t sets = h.mem->slice(0).tags().sets();
  std::vector<std::vector<int>> counted(8, std::vector<int>(sets, -1));  // [slice][set]
  for (Addr a = 0; a < Addr{8} * sets * 128 * 64; a += 128) {
    const std::uint32_t s = h.mem->home_slice(a);
    const std::uint32_t set = h.mem->slice(0).tags().set_index(a / 128);
    const int c = h.mem->replay_counts_line(a);
    if (counted[s][set] >= 0) {
      ASSERT_EQ(counted[s][set], c) << "a set counts for all its lines or none";
    }
    counted[s][set] = c;
  }
  for (std::uint32_t set = 0; set < sets; ++set) {
    int n = 0;
    for (std::uint32_t s = 0; s < 8; ++s) {
      ASSERT_GE(counted[s][set], 0);
      n += counted[s][set];
      EXPECT_EQ(counted[s][set], counted[x.mirror(s, 1 - x.slice_partition(s))][set]) << "slice " << s;
    }
    EXPECT_EQ(n, 2) << "set " << set << ": one slice of each partition";
  }
  for (std::uint32_t s = 0; s < 8; ++s) {
    int n = 0;
    for (std::uint32_t set = 0; set < sets; ++set) n += counted[s][set];
    EXPECT_GT(n, 0);
    EXPECT_LT(n, static_cast<int>(sets) / 2);
  }
  // The counted sets stand for the whole L2: 2 of 8 slices per set index.
  EXPECT_EQ(h.mem->replay_counts().scale, 4);
}

TEST(Replay, WithoutReplayNothingIsCounted) {
  Harness h(small_params(), 1);
  h.mem->replay(lines_in_slice(*h.mem, 0, 1)[0], 0xF, false, true, -1);
  const MemorySystem::ReplayCounts c = h.mem->replay_counts();
  EXPECT_EQ(c.lines, 0);
  EXPECT_EQ(c.scale, 0);
}

}  // namespace
}  // namespace simfa::mem::test
