// Resolution of FA3's launch configuration from the shape, the version and the fa3.* keys.
#include <gtest/gtest.h>

#include "sim/error.h"
#include "workload/fa3_kernel.h"
#include "workload_test_util.h"

namespace simfa::workload {
namespace {

using testing::config;
using testing::shape;

TEST(Fa3Kernel, Llama405bDefaultIsHead128x176WithCluster) {
  const Fa3Kernel k = resolve_fa3(shape(6144, 6144, 8, 16), config(), 132);
  EXPECT_EQ(k.tile_m, 128);
  EXPECT_EQ(k.tile_n, 176);
  EXPECT_EQ(k.consumer_wgs, 2);
  EXPECT_EQ(k.stages, 2);
  EXPECT_TRUE(k.pv_rs);
  EXPECT_TRUE(k.intra_wg_overlap);
  EXPECT_TRUE(k.pingpong);
  EXPECT_EQ(k.cluster, 2);  // 48 M-blocks: even
  EXPECT_EQ(k.scheduler, SchedKind::Static);
  EXPECT_EQ(k.grid, 132u);
  EXPECT_FALSE(k.pack_gqa);
  EXPECT_TRUE(k.first_wg_waits_only);
  EXPECT_EQ(k.tma_cols, 64);
  EXPECT_EQ(k.qk_wgmmas(), 8);
  EXPECT_EQ(k.pv_wgmmas(), 11);
  EXPECT_EQ(k.m_blocks, 48);
  EXPECT_EQ(k.n_blocks, 35);  // ceil(6144 / 176)
  EXPECT_EQ(k.sched_heads, 128);
}

TEST(Fa3Kernel, OddMBlocksHaveNoClusterInCurrentButDoInOriginal) {
  EXPECT_EQ(resolve_fa3(shape(384, 1024), config(), 132).cluster, 1);
  const Fa3Kernel o = resolve_fa3(shape(384, 1024), config({"fa3.version=original"}), 132);
  EXPECT_EQ(o.cluster, 2);
  EXPECT_EQ(o.m_blocks, 4);  // 3 rounded up to the cluster size
  EXPECT_EQ(o.grid, 132u);   // hard-coded in 7f67966c
}

TEST(Fa3Kernel, CausalCurrentUsesDynamicScheduler128x128) {
  const Fa3Kernel k = resolve_fa3(shape(2048, 2048, 8, 8, 128, true), config(), 114);
  EXPECT_EQ(k.tile_n, 128);
  EXPECT_EQ(k.cluster, 1);
  EXPECT_EQ(k.scheduler, SchedKind::Dynamic);
  EXPECT_EQ(k.grid, 114u);
  const Fa3Kernel o = resolve_fa3(shape(2048, 2048, 8, 8, 128, true), config({"fa3.version=original"}), 114);
  EXPECT_EQ(o.scheduler, SchedKind::Counter);  // 74b0761f's counter scheduler, see resolve_fa3
  EXPECT_EQ(o.cluster, 1);
  EXPECT_EQ(o.grid, 132u);
  EXPECT_FALSE(o.first_wg_waits_only);
  const Fa3Kernel literal =
      resolve_fa3(shape(2048, 2048, 8, 8, 128, true), config({"fa3.version=original", "fa3.scheduler=static"}), 114);
  EXPECT_EQ(literal.scheduler, SchedKind::Static);  // 7f67966c as released
}

TEST(Fa3Kernel, LargeHeadDimsHaveNoPingPong) {
  const Fa3Kernel k = resolve_fa3(shape(1024, 1024, 1, 1, 256), config(), 132);
  EXPECT_EQ(k.tile_n, 80);
  EXPECT_FALSE(k.pingpong);
  EXPECT_FALSE(k.first_wg_waits_only);
  EXPECT_EQ(k.tma_cols, 64);  // four 64-column slabs per tile
}

TEST(Fa3Kernel, Hdim64HasThreeConsumersAndSsPv) {
  const Fa3Kernel k = resolve_fa3(shape(1536, 1536, 1, 1, 64), config(), 132);
  EXPECT_EQ(k.tile_m, 192);
  EXPECT_EQ(k.consumer_wgs, 3);
  EXPECT_FALSE(k.pv_rs);
  EXPECT_TRUE(k.pingpong);
}

TEST(Fa3Kernel, PaperRecipeSelectsEveryPaperVariant) {
  const Fa3Kernel k = resolve_fa3(shape(1024, 1024), config({"fa3.recipe=paper"}), 132);
  EXPECT_TRUE(k.paper_recipe);
  EXPECT_TRUE(k.paper_pingpong);
  EXPECT_TRUE(k.paper_bubbles);
  EXPECT_FALSE(k.first_wg_waits_only);
  EXPECT_EQ(k.tma_cols, 128);  // one TMA per tile
}

TEST(Fa3Kernel, PackGqaFollowsFa3Heuristic) {
  // seqlen_q 1 (decode), 8 heads per KV head: packing fills 8 of 128 rows instead of 1.
  EXPECT_TRUE(resolve_fa3(shape(1, 4096, 8, 8), config(), 132).pack_gqa);
  EXPECT_FALSE(resolve_fa3(shape(4096, 4096, 8, 8), config(), 132).pack_gqa);
  EXPECT_FALSE(resolve_fa3(shape(1, 4096, 8, 8), config({"fa3.version=original"}), 132).pack_gqa);
  const Fa3Kernel k = resolve_fa3(shape(1, 4096, 8, 8), config(), 132);
  EXPECT_EQ(k.sched_heads, 8);
  EXPECT_EQ(k.m_blocks, 1);
}

TEST(Fa3Kernel, Fp8UsesK32AndItsOwnTiles) {
  const Fa3Kernel k = resolve_fa3(shape(1024, 1024, 1, 1, 128, false, 1, spec::DType::FP8_E4M3), config(), 132);
  EXPECT_EQ(k.mma_k, 32);
  EXPECT_EQ(k.mma_dtype, trace::DType::E4M3);
  EXPECT_EQ(k.tile_n, 224);
  EXPECT_EQ(k.qk_wgmmas(), 4);
  EXPECT_EQ(k.pv_wgmmas(), 7);
  EXPECT_EQ(k.tma_cols, 128);  // 128 one-byte columns = one 128 B swizzle row
}

TEST(Fa3Kernel, BadChoicesAreUserErrorsNamingTheKey) {
  auto msg = [](const std::vector<std::string>& sets, spec::AttentionShape s) {
    try {
      resolve_fa3(s, config(sets), 132);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(msg({"fa3.tile_n=100"}, shape(1024, 1024)).find("fa3.tile_n"), std::string::npos);
  EXPECT_NE(msg({"fa3.tile_m=96"}, shape(1024, 1024)).find("fa3.tile_m"), std::string::npos);
  EXPECT_NE(msg({"fa3.cluster=2", "fa3.scheduler=dynamic"}, shape(1024, 1024)).find("fa3.cluster"),
            std::string::npos);
  EXPECT_NE(msg({"fa3.pingpong=off", "fa3.consumer_waits=first"}, shape(1024, 1024)).find("fa3.consumer_waits"),
            std::string::npos);
  EXPECT_NE(msg({}, shape(1024, 1024, 1, 1, 512)).find("head_dim"), std::string::npos);
}

TEST(Fa3Kernel, SimfaAttnFixesItsStructure) {
  // Llama-3 405B at L = 6144 would be FA3's cluster-2 kernel; simfa-attn has none, nor PackGQA.
  const Fa3Kernel k = resolve_fa3(shape(6144, 6144, 8, 16), config({"fa3.kernel=simfa-attn"}), 132);
  EXPECT_EQ(k.impl, Impl::SimfaAttn);
  EXPECT_EQ(k.name(), "simfa_attn_fwd_hdim128_fp16");
  EXPECT_EQ(k.tile_m, 128);
  EXPECT_EQ(k.tile_n, 176);
  EXPECT_EQ(k.cluster, 1);
  EXPECT_FALSE(k.pack_gqa);
  EXPECT_EQ(k.scheduler, SchedKind::Static);
  EXPECT_TRUE(k.pingpong);
  EXPECT_TRUE(k.first_wg_waits_only);
  EXPECT_TRUE(k.o_from_registers);
  EXPECT_FALSE(k.uses_barrier_o());
  EXPECT_EQ(k.pingpong_bar, 2);
  EXPECT_EQ(k.register_epilogue_bubble(), 64u + 64 + 128);  // 1/rowsum, convert O (pipe model), STSM bytes
  // GQA at a short length: FA3 would pack (group 16 at L 16), simfa-attn never does.
  EXPECT_FALSE(resolve_fa3(shape(16, 512, 1, 16), config({"fa3.kernel=simfa-attn"}), 132).pack_gqa);
  EXPECT_FALSE(resolve_fa3(shape(512, 512), config({"fa3.kernel=simfa-attn", "fa3.intra_wg_overlap=off"}), 132)
                   .intra_wg_overlap);
}

TEST(Fa3Kernel, SimfaAttnRejectsWhatTheKernelCannotRun) {
  auto msg = [](const spec::AttentionShape& s, std::vector<std::string> sets) {
    sets.push_back("fa3.kernel=simfa-attn");
    try {
      resolve_fa3(s, config(sets), 132);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg(shape(512, 512, 1, 1, 64), {}).find("compiled for head_dim 128 (kD), got 64"), std::string::npos);
  EXPECT_NE(msg(shape(512, 512, 1, 1, 128, true), {}).find("no causal mask"), std::string::npos);
  EXPECT_NE(msg(shape(512, 512, 1, 1, 128, false, 1, spec::DType::BF16), {}).find("FP16 only, got bf16"),
            std::string::npos);
  EXPECT_EQ(msg(shape(512, 512), {"fa3.cluster=2"}),
            "fa3.cluster = 2: fa3.kernel = simfa-attn has no cluster; leave fa3.cluster at auto");
  EXPECT_NE(msg(shape(512, 512), {"fa3.tile_n=128"}).find("fa3.tile_n = 128: fa3.kernel = simfa-attn has kBlockN = 176"),
            std::string::npos);
  EXPECT_NE(msg(shape(512, 512), {"fa3.version=original"}).find("fa3.version = original"), std::string::npos);
  EXPECT_NE(msg(shape(512, 512), {"fa3.scheduler=dynamic"}).find("static persistent scheduler"), std::string::npos);
  EXPECT_NE(msg(shape(512, 512), {"fa3.consumer_waits=all"}).find("first consumer only"), std::string::npos);
  EXPECT_EQ(msg(shape(512, 512), {"fa3.cluster=1", "fa3.tile_m=128", "fa3.pack_gqa=off"}), "no error");
}

TEST(Fa3Kernel, CausalBlockRangesAndMasking) {
  const Fa3Kernel k = resolve_fa3(shape(512, 512, 1, 1, 128, true), config(), 132);
  // 128x128 tiles, L = S: M-block m visits m+1 blocks; current masks only the diagonal one.
  for (std::int64_t m = 0; m < 4; ++m) {
    const BlockRange r = block_range(k, m);
    EXPECT_EQ(r.count(), m + 1);
    EXPECT_TRUE(block_masked(k, r, m));
    if (m > 0) {
      EXPECT_FALSE(block_masked(k, r, m - 1));
    }
  }
  const Fa3Kernel o = resolve_fa3(shape(512, 512, 1, 1, 128, true), config({"fa3.version=original"}), 132);
  const BlockRange r = block_range(o, 3);
  EXPECT_TRUE(block_masked(o, r, 3));
  EXPECT_TRUE(block_masked(o, r, 2));  // original: diagonal + ceil(128/128) more
  EXPECT_FALSE(block_masked(o, r, 1));
  // Non-causal: only the first processed block pays the seqlen_k column mask.
  const Fa3Kernel n = resolve_fa3(shape(512, 528), config(), 132);
  const BlockRange rn = block_range(n, 0);
  EXPECT_EQ(rn.count(), 3);
  EXPECT_TRUE(block_masked(n, rn, 2));
  EXPECT_FALSE(block_masked(n, rn, 1));
}

TEST(Fa3Kernel, CausalWithLongerQueryHasEmptyBlocks) {
  // Bottom-right aligned causal mask: with L > S the first query rows see no key at all.
  const Fa3Kernel k = resolve_fa3(shape(512, 128, 1, 1, 128, true), config(), 132);
  EXPECT_EQ(block_range(k, 0).count(), 0);
  EXPECT_EQ(block_range(k, 3).count(), 1);
}

}  // namespace
}  // namespace simfa::workload
