// The model beyond the printed equations: asymptotic identities, causal, GQA with PackGQA,
// split-KV decode, FP8, the latency estimate, FA3's heuristics, and input errors.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "brute_force.h"
#include "common.h"
#include "sim/error.h"

namespace simfa::model {
namespace {

using testing::h800;
using testing::paper_opts;
using testing::shape;

double rel(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

// ---- Asymptotic identities (Eqs. 10 and 12) within 1% at long sequences. ----

TEST(Asymptotics, TrafficRatioTendsToConcurrency) {
  for (std::int64_t O : {1, 2})
    for (std::int64_t n_sm : {132, 114}) {
      ModelOptions o = paper_opts();
      o.occupancy = O;
      o.num_sms = n_sm;
      const std::int64_t L = std::int64_t{1} << 22;  // 4M tokens
      const Result r = analyze(shape(1, L, L, 8, 16, 128), h800(), o);
      EXPECT_LT(rel(r.r_traffic, double(n_sm * O)), 0.01) << r.r_traffic;
      EXPECT_EQ(r.r_traffic_asym, double(n_sm * O));
    }
}

TEST(Asymptotics, IntensityTendsToTwoTileOverPrecision) {
  for (auto [dt, P] : {std::pair{spec::DType::FP16, 2}, std::pair{spec::DType::FP8_E4M3, 1}})
    for (std::int64_t T_M : {64, 128, 192}) {
      const std::int64_t L = 1 << 20;
      auto s = shape(1, L, L, 8, 8, 128, false, dt);
      ModelOptions o = paper_opts(T_M);
      const Result r = analyze(s, h800(), o);
      const double want = 2.0 * double(T_M) / P;
      EXPECT_EQ(r.intensity_asym, want);
      EXPECT_LT(rel(r.intensity, want), 0.01) << r.intensity << " vs " << want;
    }
}

TEST(Asymptotics, ApproximationsOfEq8AndEq9ConvergeToExact) {
  const std::int64_t L = std::int64_t{1} << 22;
  const Result r = analyze(shape(1, L, L, 8, 16, 128), h800(), paper_opts());
  EXPECT_LT(rel(r.l2_bytes_asym, r.l2_bytes), 0.01);
  EXPECT_LT(rel(r.dram_real_asym, r.dram_real_bytes), 0.01);
}

TEST(Asymptotics, CausalKeepsTheRatioAndHalvesTheTraffic) {
  // Q and O stay whole while K/V halve, so the base term weighs twice as much as without the
  // mask: 8M tokens keep it below 0.5%.
  const std::int64_t L = std::int64_t{1} << 23;
  ModelOptions o = paper_opts();
  o.tile_n = 128;
  const Result full = analyze(shape(1, L, L, 1, 16, 128), h800(), o);
  const Result causal = analyze(shape(1, L, L, 1, 16, 128, true), h800(), o);
  EXPECT_LT(rel(causal.r_traffic, 132.0), 0.01);
  EXPECT_LT(rel(causal.l2_bytes / full.l2_bytes, 0.5), 0.01);
  EXPECT_LT(rel(causal.dram_real_bytes / full.dram_real_bytes, 0.5), 0.01);
  EXPECT_LT(rel(causal.l2_bytes_asym, causal.l2_bytes), 0.01);
  EXPECT_LT(rel(causal.dram_real_asym, causal.dram_real_bytes), 0.01);
}

// ---- Causal ----

TEST(Causal, UsefulFlopsAreTheTriangle) {
  // L = S: query i sees i+1 keys; Σ = L(L+1)/2 per head.
  const std::int64_t L = 1000, D = 128;
  const Result r = analyze(shape(2, L, L, 4, 2, D, true), h800(), paper_opts());
  EXPECT_EQ(r.flops_useful, 4.0 * D * 2 * 8 * (L * (L + 1) / 2));
  EXPECT_GT(r.flops, r.flops_useful);  // the diagonal tiles are computed in full
}

TEST(Causal, BytesMatchBruteForceCounting) {
  // B2 H3 G4, T_M 128 x T_N 128 (FA3's causal hdim-128 tile), with and without PackGQA.
  for (bool pack : {false, true})
    for (auto [L, S] : {std::pair<std::int64_t, std::int64_t>{700, 700}, {300, 1000}, {1000, 300}}) {
      auto s = shape(2, L, S, 3, 4, 128, true);
      ModelOptions o;
      o.num_splits = 1;
      o.pack_gqa = pack ? PackGqa::On : PackGqa::Off;
      o.num_sms = 5;  // several waves per group
      const Result r = analyze(s, h800(), o);
      ASSERT_EQ(r.tile_m, 128);
      ASSERT_EQ(r.tile_n, 128);
      GroupGeometry g{L, S, 4, pack, true, 128, 128, 1, 5};
      const GroupCounts c = testing::brute_force_counts(g);
      const double groups = 6, row = 128 * 2;
      EXPECT_EQ(r.l2_bytes, groups * row * double(c.q_rows + c.o_rows + 2 * c.kv_rows));
      EXPECT_EQ(r.dram_ideal_bytes,
                groups * row * double(c.q_rows_touched + c.o_rows + 2 * c.kv_rows_touched));
      EXPECT_EQ(r.dram_real_bytes,
                groups * row * double(c.q_rows_touched + c.o_rows + 2 * c.kv_rows_real));
      EXPECT_EQ(r.flops, 4.0 * 128 * groups * double(c.score_elems));
      EXPECT_EQ(r.ctas, std::int64_t(groups) * c.ctas);
    }
}

TEST(Causal, SquareTilesProcessTheLowerTriangleOfBlocks) {
  // L = S = 4·128 with 128x128 tiles: M-block m processes m+1 blocks, 10 of 16 block tiles.
  auto s = shape(1, 512, 512, 1, 1, 128, true);
  const Result r = analyze(s, h800(), paper_opts());
  EXPECT_EQ(r.flops, 4.0 * 128 * 10 * 128 * 128);
  EXPECT_EQ(r.l2_bytes, 256.0 * (512 + 512 + 2 * 128 * 10));
}

// ---- GQA with PackGQA ----

TEST(Gqa, PackGqaLoadsKvOncePerKvHead) {
  // Decode-like L = 4, G = 16 in one packed tile of 64 rows: K/V read once per KV head instead
  // of once per query head.
  auto s = shape(1, 4, 8192, 8, 16, 128);
  ModelOptions on = paper_opts(), off = paper_opts();
  on.pack_gqa = PackGqa::On;
  const Result p = analyze(s, h800(), on), u = analyze(s, h800(), off);
  EXPECT_TRUE(p.pack_gqa);
  EXPECT_EQ(p.l2_bytes, 8.0 * 256 * (64 + 64 + 2 * 8192));
  EXPECT_EQ(u.l2_bytes, 8.0 * 256 * (64 + 64 + 16 * 2 * 8192));
  EXPECT_EQ(p.dram_ideal_bytes, u.dram_ideal_bytes);
  EXPECT_EQ(p.ctas, 8);
  EXPECT_EQ(u.ctas, 128);
}

TEST(Gqa, Fa3HeuristicPacksOnlyWhenQuantisationImproves) {
  EXPECT_TRUE(fa3_should_pack_gqa(1, 4, 128));       // 1/128 vs 4/128
  EXPECT_FALSE(fa3_should_pack_gqa(16384, 4, 128));  // both exact
  EXPECT_FALSE(fa3_should_pack_gqa(100, 1, 128));
  EXPECT_TRUE(fa3_should_pack_gqa(130, 8, 128));     // 130/256 vs 1040/1152
  EXPECT_FALSE(fa3_should_pack_gqa(1000, 2, 192));   // 0.868 vs 0.9·0.947
}

// ---- Decode with split-KV ----

TEST(Decode, HeuristicSplitsAndCombineTraffic) {
  // Llama-3 8B decode: L = 1, S = 65536. total_mblocks = 8·⌈4/128⌉ = 8 < 0.8·132; 373 n-blocks;
  // wave efficiency 8s/132 reaches 0.85 of the best (1.0 at s = 33) first at s = 15.
  auto s = spec::shape_for_model("llama3-8b", 1, 1, 65536);
  const Result r = analyze(s, h800());
  EXPECT_EQ(r.num_splits, 15);
  EXPECT_TRUE(r.pack_gqa);
  EXPECT_EQ(r.ctas, 8 * 15);
  // Partials: 32 rows · 15 splits · (128 + 1) · 4 B = 247 680 B, written and read back.
  EXPECT_EQ(r.combine_l2_bytes, 2.0 * 247680);
  // Q: 8 heads · 4 rows · 15 loads · 256 B; K+V: 2·8·65536·256; O: 32·256.
  EXPECT_EQ(r.l2_bytes, 122880.0 + 268435456.0 + 8192.0 + 495360.0);
  EXPECT_EQ(r.dram_ideal_bytes, 8192.0 + 268435456.0 + 8192.0);
  EXPECT_EQ(r.combine_dram_bytes, 0.0);  // partials fit in L2
  EXPECT_EQ(r.regime, Regime::Realistic);
  EXPECT_EQ(r.waves, 1.0);
  EXPECT_EQ(r.dram_bytes, r.dram_ideal_bytes);
}

TEST(Decode, NumSplitsHeuristicRules) {
  // Rule 1: enough M-blocks -> 1, unless a KV head exceeds 50 MiB and M-blocks >= 2·SMs.
  EXPECT_EQ(fa3_num_splits_heuristic(4096, 132, 373, 512, 32 << 20, false), 1);
  EXPECT_EQ(fa3_num_splits_heuristic(4096, 132, 1000, 512, 120 << 20, false), 3);
  EXPECT_EQ(fa3_num_splits_heuristic(4096, 132, 1000, 512, 120 << 20, true), 1);
  // Rule 2: few n-blocks -> 1.
  EXPECT_EQ(fa3_num_splits_heuristic(8, 132, 4, 1, 1 << 20, false), 1);
  // Rule 3: wave efficiency.
  EXPECT_EQ(fa3_num_splits_heuristic(8, 132, 373, 1, 32 << 20, false), 15);
  // Capped by the 10 n-blocks; efficiency s/132 grows with s, 0.85·10/132 is first met at s = 9.
  EXPECT_EQ(fa3_num_splits_heuristic(1, 132, 10, 1, 1 << 20, false), 9);
}

TEST(Decode, ForcedSplitsTileTheKvRange) {
  auto s = shape(1, 1, 1000, 2, 4, 128);
  ModelOptions o;
  o.num_splits = 3;
  o.tile_n = 128;  // 8 blocks -> chunks of 3, 3, 2
  const Result r = analyze(s, h800(), o);
  EXPECT_EQ(r.num_splits, 3);
  EXPECT_TRUE(r.pack_gqa);  // FA3 packs when it splits
  EXPECT_EQ(r.l2_bytes, 2.0 * 256 * (3 * 4 + 2 * 1000 + 4) + 2.0 * 2 * 4 * 3 * 129 * 4);
}

TEST(Decode, CausalSplitMatchesBruteForce) {
  auto s = shape(1, 40, 3000, 2, 4, 128, true);
  ModelOptions o;
  o.num_splits = 4;
  o.tile_n = 128;
  o.num_sms = 1;
  const Result r = analyze(s, h800(), o);
  GroupGeometry g{40, 3000, 4, true, true, 128, 128, 4, 1};
  const GroupCounts c = testing::brute_force_counts(g);
  EXPECT_EQ(r.dram_real_bytes - r.combine_dram_bytes,
            2.0 * 256 * double(c.q_rows_touched + c.o_rows + 2 * c.kv_rows_real));
}

// ---- FP8 ----

TEST(Fp8, OneByteInputsTwoByteOutputAndOwnTiles) {
  auto s = shape(1, 4096, 4096, 8, 4, 128, false, spec::DType::FP8_E4M3);
  const Result r = analyze(s, h800(), paper_opts());
  EXPECT_EQ(r.tile_m, 128);
  EXPECT_EQ(r.tile_n, 224);
  // L2 = B·H·G·D·(L·1 + L·2 + ⌈L/T_M⌉·2S·1)
  EXPECT_EQ(r.l2_bytes, 32.0 * 128 * (4096 + 2 * 4096 + 32 * 2 * 4096));
  EXPECT_EQ(r.kv_head_bytes, 2.0 * 4096 * 128);
  // Twice the tensor rate of FP16.
  const Result h = analyze(shape(1, 4096, 4096, 8, 4, 128), h800(), paper_opts());
  EXPECT_DOUBLE_EQ(r.compute_us * 2, h.compute_us);
}

// ---- Latency and baselines ----

TEST(Latency, MaxOfComputeL2AndDram) {
  auto s = spec::shape_for_model("llama3-405b", 1, 65536, 65536);
  const Result r = analyze(s, h800());
  const double clk = 1.83e9;
  EXPECT_DOUBLE_EQ(r.compute_us, r.flops / (132 * 4096 * clk) * 1e6);
  EXPECT_DOUBLE_EQ(r.l2_us, r.l2_bytes_coalesced / (3942 * clk) * 1e6);
  EXPECT_DOUBLE_EQ(r.dram_us, r.dram_bytes / 3.35e12 * 1e6);
  EXPECT_DOUBLE_EQ(r.latency_us, std::max({r.compute_us, r.l2_us, r.dram_us}));
  EXPECT_EQ(r.bound, Bound::Compute);
  EXPECT_DOUBLE_EQ(r.genz_latency_us, std::max(r.compute_us, r.dram_ideal_bytes / 3.35e12 * 1e6));
  // LLM-Viewer charges 2.2 TB of L2 demand to DRAM: memory-bound and over twice as slow.
  EXPECT_EQ(r.llmviewer_dram_bytes, r.l2_bytes);
  EXPECT_GT(r.llmviewer_latency_us, 2 * r.latency_us);
}

TEST(Latency, ClusterMulticastHalvesKvDemandAtL2) {
  auto s = spec::shape_for_model("llama3-70b", 1, 16384, 16384);
  const Result r = analyze(s, h800());
  EXPECT_EQ(r.cluster, 2);  // 128 M-blocks: even
  const double kv = 2.0 * 64 * 128 * 16384 * 128 * 2;
  EXPECT_EQ(r.l2_bytes_coalesced, r.l2_bytes - kv / 2);
  EXPECT_EQ(analyze(spec::shape_for_model("llama3-70b", 1, 16384, 16384, spec::DType::FP16, true),
                    h800())
                .cluster,
            1);
}

// ---- Effective L2 ----

TEST(EffectiveL2, DefaultsToHalfOnPartitionedL2AndCanBeSet) {
  auto s = spec::shape_for_model("llama3-405b", 1, 65536, 65536);  // KV head 32 MiB
  EXPECT_EQ(analyze(s, h800()).l2_effective_bytes, 25.0 * (1 << 20));
  EXPECT_EQ(analyze(s, h800()).regime, Regime::Realistic);
  ModelOptions o;
  o.l2_effective_bytes = 40.0 * (1 << 20);
  EXPECT_EQ(analyze(s, h800(), o).regime, Regime::Ideal);
  GpuSpec unified = h800();
  unified.l2_partitions = 1;
  EXPECT_EQ(analyze(s, unified).regime, Regime::Ideal);
}

// ---- Errors name the flag ----

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Errors, ShapeFieldsNameTheirFlags) {
  EXPECT_NE(error_of([] { analyze(shape(1, 0, 10, 1, 1, 64), h800()); }).find("--seqlen-q"),
            std::string::npos);
  EXPECT_NE(error_of([] { analyze(shape(1, 10, -5, 1, 1, 64), h800()); }).find("--seqlen-kv"),
            std::string::npos);
  EXPECT_NE(error_of([] { analyze(shape(0, 10, 10, 1, 1, 64), h800()); }).find("--batch"),
            std::string::npos);
  EXPECT_NE(error_of([] { analyze(shape(1, 10, 10, 1, 0, 64), h800()); }).find("--group"),
            std::string::npos);
  EXPECT_NE(error_of([] { analyze(shape(1, 10, 10, 1, 1, 512), h800()); }).find("--head-dim"),
            std::string::npos);
  EXPECT_NE(error_of([] { spec::parse_dtype("fp32"); }).find("--dtype"), std::string::npos);
  EXPECT_NE(error_of([] { spec::find_model("gpt-5"); }).find("llama3-405b"), std::string::npos);
  EXPECT_NE(error_of([] {
              analyze(shape(1 << 20, 1 << 30, 1 << 30, 8, 16, 128), h800());
            }).find("too large"),
            std::string::npos);
}

TEST(Errors, OptionsNameTheirFlags) {
  auto s = shape(1, 1000, 1000, 1, 1, 128);
  ModelOptions o;
  o.tile_m = -1;
  EXPECT_NE(error_of([&] { analyze(s, h800(), o); }).find("--tile-m"), std::string::npos);
  o = {};
  o.occupancy = -3;
  EXPECT_NE(error_of([&] { analyze(s, h800(), o); }).find("--occupancy"), std::string::npos);
  o = {};
  o.num_splits = 300;
  EXPECT_NE(error_of([&] { analyze(s, h800(), o); }).find("--splits"), std::string::npos);
  o = {};
  o.num_splits = 20;  // 1000 keys are only 6 blocks of 176
  EXPECT_NE(error_of([&] { analyze(s, h800(), o); }).find("6 KV blocks"), std::string::npos);
  o = {};
  o.l2_effective_bytes = std::nan("");
  EXPECT_NE(error_of([&] { analyze(s, h800(), o); }).find("--l2-effective-mib"),
            std::string::npos);
  GpuSpec bad = h800();
  bad.num_sms = 0;
  EXPECT_NE(error_of([&] { analyze(s, bad); }).find("num_sms"), std::string::npos);
  // A head dimension FA3 does not support is fine with explicit tiles.
  o = {};
  o.tile_m = 128;
  o.tile_n = 64;
  o.occupancy = 1;
  EXPECT_NO_THROW(analyze(shape(1, 1000, 1000, 1, 1, 512), h800(), o));
}

// ---- Presets and tiles ----

TEST(Spec, LlamaPresetsFollowTable6) {
  const auto& p = spec::find_model("llama3-405b");
  EXPECT_EQ(p.heads_q, 128);
  EXPECT_EQ(p.heads_kv, 8);
  EXPECT_EQ(p.group, 16);
  EXPECT_EQ(p.head_dim, 128);
  EXPECT_EQ(spec::find_model("Llama-3.1-405B").name, "llama3-405b");
  EXPECT_EQ(spec::find_model("llama3-8b").group, 4);
  EXPECT_EQ(spec::find_model("llama3-70b").group, 8);
}

TEST(Spec, Fa3TilesFollowTheKernelTable) {
  using spec::DType;
  auto t = spec::fa3_default_tiles(128, DType::FP16, false);
  EXPECT_EQ(t.tile_m, 128);
  EXPECT_EQ(t.tile_n, 176);
  EXPECT_EQ(t.consumer_wgs, 2);
  EXPECT_EQ(spec::fa3_default_tiles(128, DType::BF16, true).tile_n, 128);
  EXPECT_EQ(spec::fa3_default_tiles(64, DType::FP16, false).tile_n, 192);
  EXPECT_EQ(spec::fa3_default_tiles(64, DType::FP16, true).tile_n, 128);
  EXPECT_EQ(spec::fa3_default_tiles(96, DType::FP16, false).tile_n, 144);
  EXPECT_EQ(spec::fa3_default_tiles(192, DType::FP16, false).tile_n, 112);
  EXPECT_EQ(spec::fa3_default_tiles(256, DType::FP16, false).tile_n, 80);
  EXPECT_EQ(spec::fa3_default_tiles(256, DType::FP16, false).consumer_wgs, 2);
  EXPECT_EQ(spec::fa3_default_tiles(64, DType::FP16, false).consumer_wgs, 3);
  EXPECT_EQ(spec::fa3_default_tiles(128, DType::FP8_E4M3, false).tile_n, 224);
  EXPECT_EQ(spec::cutile_tiles().tile_m, 64);
  EXPECT_EQ(spec::cutile_tiles().tile_n, 32);
}

}  // namespace
}  // namespace simfa::model
