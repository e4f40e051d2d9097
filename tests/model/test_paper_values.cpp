// Hand-computed values of Eqs. 1-6 for three or more shapes in each regime (H800, effective L2
// 25 MiB, N_SM 132, O_limit 1). Each expected value is written out with its arithmetic.
#include <gtest/gtest.h>

#include "common.h"
#include "model/paper.h"

namespace simfa::model {
namespace {

using testing::h800;
using testing::paper_opts;
using testing::shape;

struct Expected {
  double flops, l2, ideal, real;
  double waves;
  Regime regime;
};

void expect_exact(const spec::AttentionShape& s, const ModelOptions& o, const Expected& e) {
  const Result r = analyze(s, h800(), o);
  EXPECT_EQ(r.flops, e.flops);
  EXPECT_EQ(r.l2_bytes, e.l2);
  EXPECT_EQ(r.dram_ideal_bytes, e.ideal);
  EXPECT_EQ(r.dram_real_bytes, e.real);
  EXPECT_EQ(r.waves, e.waves);
  EXPECT_EQ(r.regime, e.regime);
  EXPECT_EQ(r.dram_bytes, e.regime == Regime::Ideal ? e.ideal : e.real);
  EXPECT_EQ(r.genz_dram_bytes, e.ideal);    // GenZ = Eq. 3
  EXPECT_EQ(r.llmviewer_dram_bytes, e.l2);  // LLM-Viewer charges L2 demand to DRAM
  EXPECT_EQ(r.flops_useful, e.flops);
}

// ---- Ideal regime: 2·P·S·D below 25 MiB = 26 214 400 B. ----

TEST(PaperValues, IdealLlama8b16K) {
  // B1 L=S=16384 H8 G4 D128 P2 T_M 128; KV head 2·2·16384·128 = 8 388 608 B < 25 MiB.
  // F  = 4·1·32·16384·16384·128                           = 4 398 046 511 104
  // L2 = 2·1·32·128·(2·16384 + 128·2·16384) = 8192·4227072 = 34 628 173 824
  // DI = 2·1·128·(2·32·16384 + 2·8·16384) = 256·1310720     = 335 544 320
  // W  = max(1, ⌈4·128/132⌉) = 4
  // DR = 2·2·32·16384·128 + 2·2·8·16384·128·4 = 268435456 + 268435456 = 536 870 912
  expect_exact(shape(1, 16384, 16384, 8, 4, 128), paper_opts(),
               {4398046511104.0, 34628173824.0, 335544320.0, 536870912.0, 4, Regime::Ideal});
}

TEST(PaperValues, IdealLlama70b32K) {
  // KV head 2·2·32768·128 = 16 777 216 B.
  // F  = 4·64·32768²·128                                 = 35 184 372 088 832
  // L2 = 2·64·128·(2·32768 + 256·2·32768) = 16384·16842752 = 275 951 648 768
  // DI = 256·(2·64·32768 + 2·8·32768) = 256·4718592         = 1 207 959 552
  // W  = ⌈8·256/132⌉ = ⌈15.5⌉ = 16
  // DR = 2·2·64·32768·128 + 2·2·8·32768·128·16 = 1073741824 + 2147483648 = 3 221 225 472
  expect_exact(shape(1, 32768, 32768, 8, 8, 128), paper_opts(),
               {35184372088832.0, 275951648768.0, 1207959552.0, 3221225472.0, 16, Regime::Ideal});
}

TEST(PaperValues, IdealLlama405b48K) {
  // KV head 2·2·49152·128 = 25 165 824 B, just below 25 MiB.
  // F  = 4·128·49152²·128                                  = 158 329 674 399 744
  // L2 = 2·128·128·(2·49152 + 384·2·49152) = 32768·37847040 = 1 240 171 806 720
  // DI = 256·(2·128·49152 + 2·8·49152) = 256·13369344        = 3 422 552 064
  // W  = ⌈16·384/132⌉ = ⌈46.5⌉ = 47
  // DR = 2·2·128·49152·128 + 2·2·8·49152·128·47 = 3221225472 + 9462349824 = 12 683 575 296
  expect_exact(shape(1, 49152, 49152, 8, 16, 128), paper_opts(),
               {158329674399744.0, 1240171806720.0, 3422552064.0, 12683575296.0, 47,
                Regime::Ideal});
}

TEST(PaperValues, IdealOddShapeBatch2Hdim64) {
  // B2 L1000 S3000 H4 G2 D64, FA3 hdim-64 tile T_M 192; ⌈1000/192⌉ = 6.
  // F  = 4·2·8·1000·3000·64                       = 12 288 000 000
  // L2 = 2·2·8·64·(2000 + 6·6000) = 2048·38000     = 77 824 000
  // DI = 2·2·64·(2·8·1000 + 2·4·3000) = 256·40000  = 10 240 000
  // W  = max(1, ⌈2·6/132⌉) = 1, so DR = DI.
  expect_exact(shape(2, 1000, 3000, 4, 2, 64), paper_opts(),
               {12288000000.0, 77824000.0, 10240000.0, 10240000.0, 1, Regime::Ideal});
}

// ---- Realistic regime: 2·P·S·D at or above 25 MiB. ----

TEST(PaperValues, RealisticLlama405b64K) {
  // KV head 2·2·65536·128 = 33 554 432 B > 25 MiB.
  // F  = 4·128·65536²·128                                  = 281 474 976 710 656
  // L2 = 2·128·128·(2·65536 + 512·2·65536) = 32768·67239936 = 2 203 318 222 848
  // DI = 256·(2·128·65536 + 2·8·65536) = 256·17825792         = 4 563 402 752
  // W  = ⌈16·512/132⌉ = ⌈62.06⌉ = 63
  // DR = 2·2·128·65536·128 + 2·2·8·65536·128·63 = 4294967296 + 16911433728 = 21 206 401 024
  expect_exact(shape(1, 65536, 65536, 8, 16, 128), paper_opts(),
               {281474976710656.0, 2203318222848.0, 4563402752.0, 21206401024.0, 63,
                Regime::Realistic});
}

TEST(PaperValues, RealisticLlama8b128KBatch2) {
  // B2 L=S=131072 H8 G4 D128; KV head 64 MiB.
  // F  = 4·2·32·131072²·128                                  = 562 949 953 421 312
  // L2 = 2·2·32·128·(2·131072 + 1024·2·131072) = 16384·268697600 = 4 402 341 478 400
  // DI = 2·2·128·(2·32·131072 + 2·8·131072) = 512·10485760       = 5 368 709 120
  // W  = ⌈4·1024/132⌉ = ⌈31.03⌉ = 32
  // DR = 2·2·2·32·131072·128 + 2·2·2·8·131072·128·32 = 4294967296 + 34359738368 = 38 654 705 664
  expect_exact(shape(2, 131072, 131072, 8, 4, 128), paper_opts(),
               {562949953421312.0, 4402341478400.0, 5368709120.0, 38654705664.0, 32,
                Regime::Realistic});
}

TEST(PaperValues, RealisticOddShapeHdim96) {
  // B3 L5000 S70000 H2 G3 D96, FA3 hdim-96 tile T_M 192; ⌈5000/192⌉ = 27; KV head
  // 2·2·70000·96 = 26 880 000 B > 25 MiB, but the group's 3·27 = 81 CTAs fit one wave.
  // F  = 4·3·6·5000·70000·96                           = 2 419 200 000 000
  // L2 = 2·3·6·96·(10000 + 27·140000) = 3456·3790000    = 13 098 240 000
  // DI = 2·3·96·(2·6·5000 + 2·2·70000) = 576·340000     = 195 840 000
  // W  = 1, so DR = DI although the regime is realistic.
  expect_exact(shape(3, 5000, 70000, 2, 3, 96), paper_opts(),
               {2419200000000.0, 13098240000.0, 195840000.0, 195840000.0, 1, Regime::Realistic});
}

TEST(PaperValues, RealisticCuTile405b64K) {
  // The §6 cuTile tile T_M 64 doubles the K/V traffic and the waves.
  // L2 = 2·128·128·(2·65536 + 1024·2·65536) = 32768·134348800 = 4 402 341 478 400
  // W  = ⌈16·1024/132⌉ = ⌈124.1⌉ = 125
  // DR = 4294967296 + 2·2·8·65536·128·125 = 4294967296 + 33554432000 = 37 849 399 296
  ModelOptions o = paper_opts();
  o.kernel = Kernel::CuTile;
  expect_exact(shape(1, 65536, 65536, 8, 16, 128), o,
               {281474976710656.0, 4402341478400.0, 4563402752.0, 37849399296.0, 125,
                Regime::Realistic});
  EXPECT_EQ(analyze(shape(1, 65536, 65536, 8, 16, 128), h800(), o).tile_n, 32);
}

// ---- paper.h (the equations as printed) agrees with the values above. ----

TEST(PaperEquations, MatchHandValues) {
  paper::Inputs x{1, 65536, 65536, 8, 16, 128, 128, 2, 132, 1};
  EXPECT_EQ(paper::eq1_flops(x), 281474976710656);
  EXPECT_EQ(paper::eq2_l2_bytes(x), 2203318222848);
  EXPECT_EQ(paper::eq3_dram_ideal(x), 4563402752);
  EXPECT_FALSE(paper::eq4_ideal_holds(x, 25.0 * (1 << 20)));
  EXPECT_TRUE(paper::eq4_ideal_holds(x, 33554432.0 + 1));
  EXPECT_EQ(paper::eq5_waves(x), 63);
  EXPECT_EQ(paper::eq6_dram_real(x), 21206401024);
  EXPECT_DOUBLE_EQ(paper::eq7_r_traffic(x), 2203318222848.0 / 21206401024.0);
  EXPECT_DOUBLE_EQ(paper::eq11_intensity(x), 281474976710656.0 / 2203318222848.0);
  EXPECT_DOUBLE_EQ(paper::eq10_r_asym(x), 132.0);
  EXPECT_DOUBLE_EQ(paper::eq12_intensity_asym(x), 128.0);
}

// The model reduces to paper.h on every plain shape (sweep of sizes, tiles, occupancies).
TEST(PaperEquations, ModelEqualsEquationsOnPlainShapes) {
  const std::int64_t Ls[] = {1, 100, 128, 1000, 4096, 20000, 65536};
  const std::int64_t Ss[] = {1, 777, 8192, 70000};
  const std::int64_t Gs[] = {1, 4, 16};
  const std::int64_t TMs[] = {64, 128, 192};
  const std::int64_t Os[] = {1, 2};
  for (auto L : Ls)
    for (auto S : Ss)
      for (auto G : Gs)
        for (auto T_M : TMs)
          for (auto O : Os) {
            auto s = shape(2, L, S, 3, G, 128);
            ModelOptions o = paper_opts(T_M);
            o.tile_n = 176;
            o.occupancy = O;
            const Result r = analyze(s, h800(), o);
            paper::Inputs x{2, L, S, 3, G, 128, T_M, 2, 132, O};
            SCOPED_TRACE(::testing::Message() << "L=" << L << " S=" << S << " G=" << G
                                            << " T_M=" << T_M << " O=" << O);
            EXPECT_EQ(r.flops, double(paper::eq1_flops(x)));
            EXPECT_EQ(r.l2_bytes, double(paper::eq2_l2_bytes(x)));
            EXPECT_EQ(r.dram_ideal_bytes, double(paper::eq3_dram_ideal(x)));
            EXPECT_EQ(r.regime == Regime::Ideal, paper::eq4_ideal_holds(x, 25.0 * (1 << 20)));
            EXPECT_EQ(r.waves, double(paper::eq5_waves(x)));
            EXPECT_EQ(r.dram_real_bytes, double(paper::eq6_dram_real(x)));
            EXPECT_DOUBLE_EQ(r.r_traffic, paper::eq7_r_traffic(x));
            EXPECT_DOUBLE_EQ(r.l2_bytes_asym, paper::eq8_l2_asym(x));
            EXPECT_DOUBLE_EQ(r.dram_real_asym, paper::eq9_dram_real_asym(x));
            EXPECT_DOUBLE_EQ(r.r_traffic_asym, paper::eq10_r_asym(x));
            EXPECT_DOUBLE_EQ(r.intensity, paper::eq11_intensity(x));
            EXPECT_DOUBLE_EQ(r.intensity_asym, paper::eq12_intensity_asym(x));
          }
}

// With FA3's defaults (heuristic splits, automatic PackGQA) the paper's Llama shapes are plain.
TEST(PaperEquations, Fa3DefaultsArePlainForPaperShapes) {
  for (const auto& m : spec::model_presets())
    for (std::int64_t L = 16384; L <= 65536; L += 8192) {
      auto s = spec::shape_for_model(m.name, 1, L, L);
      const Result d = analyze(s, h800());
      const Result p = analyze(s, h800(), paper_opts());
      EXPECT_EQ(d.num_splits, 1);
      EXPECT_FALSE(d.pack_gqa);
      EXPECT_EQ(d.tile_m, 128);
      EXPECT_EQ(d.tile_n, 176);
      EXPECT_EQ(d.l2_bytes, p.l2_bytes);
      EXPECT_EQ(d.dram_bytes, p.dram_bytes);
    }
}

}  // namespace
}  // namespace simfa::model
