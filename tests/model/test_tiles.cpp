// The closed-form tile counts against the brute-force enumeration of CTAs, blocks, (query, key)
// pairs and waves, on every combination of small shapes: causal and not, GQA packed and not,
// split-KV, partial tiles, L < S and L > S.
#include <gtest/gtest.h>

#include "brute_force.h"
#include "model/tiles.h"

namespace simfa::model {
namespace {

void expect_same(const GroupCounts& a, const GroupCounts& b) {
  EXPECT_EQ(a.m_blocks, b.m_blocks);
  EXPECT_EQ(a.n_blocks, b.n_blocks);
  EXPECT_EQ(a.ctas, b.ctas);
  EXPECT_EQ(a.sharers, b.sharers);
  EXPECT_EQ(a.q_rows, b.q_rows);
  EXPECT_EQ(a.q_rows_touched, b.q_rows_touched);
  EXPECT_EQ(a.o_rows, b.o_rows);
  EXPECT_EQ(a.kv_rows, b.kv_rows);
  EXPECT_EQ(a.kv_rows_touched, b.kv_rows_touched);
  EXPECT_EQ(a.kv_rows_real, b.kv_rows_real);
  EXPECT_EQ(a.score_elems, b.score_elems);
  EXPECT_EQ(a.useful_elems, b.useful_elems);
  EXPECT_EQ(a.waves, b.waves);
}

TEST(TileCounting, FloorSumMatchesLoop) {
  for (std::int64_t n = 0; n < 40; n += 3)
    for (std::int64_t m = 1; m < 50; m += 7)
      for (std::int64_t a = 0; a < 300; a += 37)
        for (std::int64_t b = 0; b < 400; b += 53) {
          std::int64_t want = 0;
          for (std::int64_t i = 0; i < n; ++i) want += (a * i + b) / m;
          EXPECT_EQ(floor_sum(n, m, a, b), want) << n << " " << m << " " << a << " " << b;
        }
  // Large arguments stay exact (128-bit intermediates).
  const std::int64_t n = 1 << 20, m = 176 * 16, a = 128, b = 5;
  std::int64_t want = 0;
  for (std::int64_t i = 0; i < n; ++i) want += (a * i + b) / m;
  EXPECT_EQ(floor_sum(n, m, a, b), want);
}

struct Case {
  std::int64_t L, S, G, T_M, T_N;
};

class TileBruteForce : public ::testing::TestWithParam<Case> {};

TEST_P(TileBruteForce, AllVariantsMatchEnumeration) {
  const Case c = GetParam();
  for (bool causal : {false, true})
    for (bool pack : {false, true})
      for (std::int64_t splits : {1, 2, 3, 5})
        for (std::int64_t n_conc : {1, 2, 3, 7, 132}) {
          GroupGeometry g;
          g.seqlen_q = c.L;
          g.seqlen_kv = c.S;
          g.group = c.G;
          g.pack_gqa = pack;
          g.causal = causal;
          g.tile_m = c.T_M;
          g.tile_n = c.T_N;
          g.splits = splits;
          g.n_conc = n_conc;
          SCOPED_TRACE(::testing::Message()
                       << "L=" << c.L << " S=" << c.S << " G=" << c.G << " T_M=" << c.T_M
                       << " T_N=" << c.T_N << " causal=" << causal << " pack=" << pack
                       << " splits=" << splits << " n_conc=" << n_conc);
          expect_same(count_group(g), testing::brute_force_counts(g));
        }
}

INSTANTIATE_TEST_SUITE_P(
    SmallShapes, TileBruteForce,
    ::testing::Values(Case{1, 1, 1, 64, 32}, Case{1, 300, 4, 64, 32}, Case{3, 200, 8, 16, 16},
                      Case{100, 100, 1, 16, 16}, Case{128, 128, 2, 64, 32},
                      Case{130, 129, 3, 64, 32}, Case{200, 50, 2, 32, 16},
                      Case{50, 200, 4, 48, 80}, Case{257, 257, 1, 128, 176},
                      Case{300, 700, 2, 128, 176}, Case{500, 300, 3, 192, 144},
                      Case{64, 1000, 16, 128, 80}, Case{17, 33, 5, 7, 5}, Case{1, 2048, 16, 128, 128},
                      Case{400, 400, 4, 13, 29}));

}  // namespace
}  // namespace simfa::model
