// Whole-kernel totals of the synthesized traces against the paper's closed forms: WGMMA FLOPs =
// Eq. 1 and bytes moved by TMA (the L2 demand) = Eq. 2, up to the documented tile rounding.
#include <gtest/gtest.h>

#include <string>

#include "workload/fa3_source.h"
#include "workload/tally.h"
#include "workload_test_util.h"

namespace simfa::workload {
namespace {

using testing::config;
using testing::shape;

double eq1(const spec::AttentionShape& s) {
  return 4.0 * s.batch * s.heads_q() * double(s.seqlen_q) * s.seqlen_kv * s.head_dim;
}
// Eq. 2 with the KV term divided by the cluster size (multicast loads each K/V tile once per cluster).
double eq2(const spec::AttentionShape& s, int tile_m, int cluster) {
  const double P = spec::dtype_bytes(s.dtype);
  const double m_tiles = double((s.seqlen_q + tile_m - 1) / tile_m);
  return P * s.batch * s.heads_q() * s.head_dim * (2.0 * s.seqlen_q + m_tiles * 2.0 * s.seqlen_kv / cluster);
}

TEST(Totals, NonCausalFlopsEqualEq1AndL2BytesEqualEq2) {
  const auto s = shape(512, 704, 2, 2, 128, false, 2);  // tile multiples: 4 M-blocks, 4 KV blocks
  for (const char* cl : {"fa3.cluster=1", "fa3.cluster=auto"}) {
    Fa3Source src(s, config({cl}), 8);
    const int cluster = src.fa3().cluster;
    const TraceTally t = tally(src);
    EXPECT_EQ(double(t.wgmma_flops), eq1(s)) << cl;
    EXPECT_EQ(double(t.tma_load_bytes + t.tma_store_bytes), eq2(s, 128, cluster)) << cl;
  }
}

TEST(Totals, RaggedShapeL2BytesStillEqualEq2BecauseBoxesAreClipped) {
  // L 300 and S 500 are not tile multiples: TMA fetches only in-bounds rows, so Eq. 2 holds exactly;
  // WGMMAs run on whole tiles, so FLOPs are Eq. 1 on the rounded-up sizes.
  const auto s = shape(300, 500, 1, 3);
  Fa3Source src(s, config(), 4);
  ASSERT_EQ(src.fa3().cluster, 1);
  const TraceTally t = tally(src);
  EXPECT_EQ(double(t.tma_load_bytes + t.tma_store_bytes), eq2(s, 128, 1));
  auto rounded = s;
  rounded.seqlen_q = 384, rounded.seqlen_kv = 528;
  EXPECT_EQ(double(t.wgmma_flops), eq1(rounded));
}

TEST(Totals, CausalFlopsCountTheVisitedBlocks) {
  const auto s = shape(1024, 1024, 2, 2, 128, true);
  Fa3Source src(s, config(), 8);
  const TraceTally t = tally(src);
  // 128 x 128 tiles: M-block m visits m+1 blocks; each block is 2 GEMMs of 2*128*128*128 FLOPs.
  const double blocks = 8.0 * 9 / 2;
  const double expect = blocks * 2 * 2.0 * 128 * 128 * 128 * s.heads_q();
  EXPECT_EQ(double(t.wgmma_flops), expect);
  EXPECT_LT(double(t.wgmma_flops), eq1(s));
  EXPECT_GT(double(t.wgmma_flops), 0.5 * eq1(s));
}

TEST(Totals, CausalWithMoreQueriesThanKeysStoresZerosForTheEmptyTiles) {
  // L 1024, S 256, bottom-right aligned: rows 0-767 see no key, so M-blocks 0-5 are empty. Current
  // FA3 still writes their O (zeros; fa3-kernel.md §6.1) and loads nothing for them: the stores
  // are all of O, the loads Q and K/V of the two M-blocks that see keys (M-block 6: block 0 of
  // K and V; M-block 7: blocks 0 and 1).
  const auto s = shape(1024, 256, 2, 2, 128, true);
  const double tile = 128.0 * 128 * 2;  // one 128 x 128 FP16 tile, bytes
  for (const char* v : {"fa3.version=current", "fa3.version=original"}) {
    Fa3Source src(s, config({v}), 8);
    const TraceTally t = tally(src);
    const double heads = double(s.heads_q());
    EXPECT_EQ(double(t.tma_load_bytes), heads * (2 * tile + 2 * 3 * tile)) << v;
    // The original (7f67966c) is not known to store zeros: only the two M-blocks with keys.
    const double stored = std::string(v) == "fa3.version=current" ? 8 : 2;
    EXPECT_EQ(double(t.tma_store_bytes), heads * stored * tile) << v;
  }
}

TEST(Totals, PaperRecipeMovesTheSameBytesAndFlops) {
  const auto s = shape(512, 704, 1, 2);
  Fa3Source a(s, config(), 8), b(s, config({"fa3.recipe=paper"}), 8);
  const TraceTally ta = tally(a), tb = tally(b);
  EXPECT_EQ(ta.wgmma_flops, tb.wgmma_flops);
  EXPECT_EQ(ta.tma_load_bytes, tb.tma_load_bytes);
  EXPECT_EQ(ta.tma_store_bytes, tb.tma_store_bytes);
  EXPECT_LT(tb.of(trace::Op::TMA_TENSOR), ta.of(trace::Op::TMA_TENSOR));  // one TMA per tile
}

TEST(Totals, OriginalPaddedClusterLoadsKvForThePaddingBlock) {
  // 3 M-blocks padded to 4 for the cluster: the padding CTA's Q/O boxes are out of bounds (0
  // bytes), but it still fetches its half of every K/V tile, as the real kernel does.
  const auto s = shape(384, 704);
  Fa3Source src(s, config({"fa3.version=original"}), 132);
  ASSERT_EQ(src.fa3().cluster, 2);
  const TraceTally t = tally(src);
  const double kv = 2.0 /*pairs*/ * 2 /*K,V*/ * 704 * 128 * 2;
  EXPECT_EQ(double(t.tma_load_bytes), 384.0 * 128 * 2 + kv);
}

TEST(Totals, HugeShapeStreamsWithoutMaterializing) {
  // Llama-3 405B, 64K tokens: about 5 million instructions per consumer WarpGroup per CTA; pulling
  // the first 200k of each WarpGroup must be quick and hold only a step's worth of buffer.
  auto s = spec::shape_for_model("llama3-405b", 1, 65536, 65536);
  Fa3Source src(s, config(), 132);
  auto p = src.open(0);
  std::vector<trace::Instr> buf(4096);
  for (auto& w : p.wgs) {
    std::size_t total = 0;
    while (total < 200000) {
      const std::size_t n = w.stream->read(buf.data(), buf.size());
      ASSERT_GT(n, 0u);
      total += n;
    }
  }
}

}  // namespace
}  // namespace simfa::workload
