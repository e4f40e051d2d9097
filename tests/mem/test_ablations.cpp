// The ablation switches change results in the expected direction: the naive slice hash slows a
// strided FA3-like read burst, disabling the coalescer multiplies L2 requests for pair-shared data.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "harness.h"

namespace simfa::mem::test {
namespace {

// 64 SMs each read 128 rows of 256 bytes at a 2 KiB stride (K/V-like), all L2 hits after a warm-up
// pass. Returns the cycles of the measured pass.
Cycle strided_burst(const std::string& hash) {
  HierarchyParams p;  // full-size L2: 80 slices
  p.l2.hash = hash;
  Harness h(p, 64, 200, 1u << 30, true, 2);
  for (int pass = 0; pass < 2; ++pass)
    for (int s = 0; s < 64; ++s)
      for (Addr r = 0; r < 128; ++r)
        for (Addr b = 0; b < 256; b += 128)
          h.sms[s]->add((s * 128 + r) * 2048 + b, ReqKind::TmaLoad, pass * 100000);
  EXPECT_TRUE(h.run());
  if (getenv("SIMFA_DEBUG")) {
    fprintf(stderr, "%s credit %g port %g mshr_stall %g resp_stall %g lts %g\n", hash.c_str(),
            h.stat("gpu.mem.refusals_credit"), h.stat("gpu.mem.refusals_port"),
            h.stat("gpu.l2.mshr_stall_cycles"), h.stat("gpu.l2.resp_stall_cycles"),
            h.stat("lts__t_requests.sum"));
    for (auto& sm : h.sms) fprintf(stderr, " %lu", (unsigned long)sm->responses.back().at);
    fprintf(stderr, "\n");
  }
  Cycle last = 0;
  for (auto& sm : h.sms) last = std::max(last, sm->responses.back().at);
  return last - 100000;
}

TEST(Ablation, SimpleHashIsSlowerOnTwoKibStrides) {
  const Cycle xor_cycles = strided_burst("xor");
  const Cycle naive = strided_burst("last-bits");
  EXPECT_GT(naive, 2 * xor_cycles) << "xor " << xor_cycles << " last-bits " << naive;
}

std::pair<double, Cycle> pair_shared(bool lrc) {
  auto p = small_params();
  p.lrc.enabled = lrc;
  Harness h(p, 8);
  for (int s = 0; s < 8; ++s)
    for (Addr i = 0; i < 256; ++i) h.sms[s]->add(((s / 2) * 256 + i) * 128, ReqKind::TmaLoad, i * 8);
  EXPECT_TRUE(h.run());
  return {h.stat("lts__t_requests.sum"), h.engine.now()};
}

TEST(Ablation, NoLrcDoublesL2RequestsForPairSharedTiles) {
  const auto with = pair_shared(true), without = pair_shared(false);
  EXPECT_EQ(with.first, 4 * 256);
  EXPECT_EQ(without.first, 8 * 256);
  EXPECT_GE(without.second, with.second);
}

}  // namespace
}  // namespace simfa::mem::test
