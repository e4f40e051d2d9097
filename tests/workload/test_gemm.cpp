// The GEMM workload (workload/gemm/) and the workload interface (api/workload.h): the registry, the
// shape keys and their messages, the kernel's resolution, whole-trace totals against the closed
// forms (2·B·M·N·K FLOPs; every tile's A and B rows over K, C once), and one tile simulated end to
// end against a hand count.
#include <gtest/gtest.h>

#include <string>

#include "api/fa3_workload.h"
#include "api/gemm_workload.h"
#include "api/workload.h"
#include "sim/error.h"
#include "workload/gemm/gemm_source.h"
#include "workload/tally.h"
#include "workload_test_util.h"

namespace simfa {
namespace {

using workload::testing::config;
using workload::gemm::GemmShape;
using workload::gemm::GemmSource;

GemmShape gshape(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t b = 1,
                 spec::DType t = spec::DType::FP16) {
  GemmShape s;
  s.batch = b, s.m = m, s.n = n, s.k = k, s.dtype = t;
  return s;
}

std::string user_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

WorkloadArgs gemm_args(const std::string& m, const std::string& n, const std::string& k,
                       KeyStyle style = KeyStyle::Flag) {
  WorkloadArgs a(style);
  a.set("m", m);
  a.set("n", n);
  a.set("k", k);
  return a;
}

TEST(WorkloadRegistry, ListsFa3AndGemmAndNamesTheChoicesForAnUnknownName) {
  EXPECT_EQ(workload_kinds().names(), (std::vector<std::string>{"fa3", "gemm"}));
  const Config cfg = config();
  EXPECT_EQ(make_workload("gemm", gemm_args("128", "128", "64"), cfg)->kind(), "gemm");
  EXPECT_EQ(make_workload("fa3", WorkloadArgs{}, cfg)->kind(), "fa3");
  EXPECT_EQ(user_error_of([&] { make_workload("gemv", WorkloadArgs{}, cfg); }),
            "--workload: unknown workload 'gemv' (expected one of: fa3, gemm)");
}

TEST(WorkloadRegistry, AKeyOfAnotherWorkloadIsAnErrorNamedAsTheCallerNamesIt) {
  const Config cfg = config();
  WorkloadArgs flag = gemm_args("128", "128", "64");
  flag.set("head_dim", "128");
  EXPECT_EQ(user_error_of([&] { make_workload("gemm", flag, cfg); }),
            "--head-dim does not apply to the gemm workload (its keys: --batch, --m, --n, --k, --dtype)");
  WorkloadArgs kw(KeyStyle::Keyword);
  kw.set("m", "64");
  EXPECT_NE(user_error_of([&] { make_workload("fa3", kw, cfg); }).find("m (--m) does not apply to the fa3 workload"),
            std::string::npos);
  WorkloadArgs col = gemm_args("128", "x", "64", KeyStyle::Column);
  EXPECT_EQ(user_error_of([&] { make_workload("gemm", col, cfg); }), "column 'n': expected a number, got 'x'");
}

TEST(WorkloadRegistry, AConfigurationKeyOfAnotherWorkloadIsAnError) {
  EXPECT_EQ(user_error_of([&] { make_workload("gemm", gemm_args("128", "128", "64"), config({"fa3.tile_m=128"})); }),
            "fa3.tile_m = 128 (--set) configures the fa3 workload, not gemm: drop it, or run that workload");
  EXPECT_EQ(user_error_of([&] { make_workload("fa3", WorkloadArgs{}, config({"gemm.schedule=pingpong"})); }),
            "gemm.schedule = pingpong (--set) configures the gemm workload, not fa3: drop it, or run that workload");
}

TEST(WorkloadRegistry, Fa3FromKeysIsTheShapeTheFlagsGive) {
  WorkloadArgs a;
  a.set("model", "llama3-8b");
  a.set("seqlen", "512");
  a.set("causal", "1");
  const spec::AttentionShape s = fa3_shape(a);
  EXPECT_EQ(s.seqlen_q, 512);
  EXPECT_EQ(s.seqlen_kv, 512);
  EXPECT_EQ(s.heads_kv, 8);
  EXPECT_EQ(s.group, 4);
  EXPECT_TRUE(s.causal);
  WorkloadArgs none;
  none.set("model", "none");
  EXPECT_EQ(user_error_of([&] { fa3_shape(none); }),
            "--model none needs --heads-kv and --head-dim (and --group, default 1)");
}

TEST(GemmShapeKeys, MissingZeroAndMisalignedSizesNameTheirKey) {
  const Config cfg = config();
  WorkloadArgs no_k;
  no_k.set("m", "128");
  no_k.set("n", "128");
  EXPECT_EQ(user_error_of([&] { make_workload("gemm", no_k, cfg); }),
            "the gemm workload needs --m, --n and --k: --k is missing");
  EXPECT_EQ(user_error_of([&] { make_workload("gemm", gemm_args("0", "128", "64"), cfg); }),
            "--m must be at least 1, got 0");
  EXPECT_EQ(user_error_of([&] { make_workload("gemm", gemm_args("128", "-8", "64"), cfg); }),
            "--n must be at least 1, got -8");
  EXPECT_NE(user_error_of([&] { make_workload("gemm", gemm_args("128", "128", "100"), cfg); })
                .find("--k 100: rows of A and B are K-contiguous"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { make_workload("gemm", gemm_args("128", "128", "96"), cfg); })
                .find("--k 96: must be a multiple of the tile's K, gemm.tile_k = 64"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { make_workload("gemm", gemm_args("128", "12", "64"), cfg); })
                .find("--n 12: rows of C are N-contiguous"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { make_workload("gemm", gemm_args("128", "128", "64"), config({"gemm.tile_m=192"})); })
                .find("gemm.tile_m = 192: must be a multiple of 128 (cooperative"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { make_workload("gemm", gemm_args("128", "128", "64"), config({"gemm.stages=9"})); })
                .find("gemm.stages = 9: 9 stages of 32768 bytes"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] {
              make_workload("gemm", gemm_args("128", "128", "64"), config({"gemm.schedule=pingpong", "gemm.stages=6"}));
            }).find("gemm.stages = 6: 6 stages of 32768 bytes plus 65536 bytes of C"),
            std::string::npos);
  EXPECT_NE(user_error_of([&] { make_workload("gemm", gemm_args("128", "128", "64"), config({"sample.mode=on"})); })
                .find("sample.mode = on (--set): sampled simulation is FA3's"),
            std::string::npos);
}

TEST(GemmKernel, DefaultsFollowCutlassAndStagesFillSharedMemory) {
  const auto k = workload::gemm::resolve_gemm(gshape(1024, 1024, 1024), config(), 132);
  EXPECT_EQ(k.tile_m, 128);
  EXPECT_EQ(k.tile_n, 128);
  EXPECT_EQ(k.tile_k, 64);
  EXPECT_EQ(k.schedule, workload::gemm::Schedule::Cooperative);
  // (227 KiB - 32 KiB of C - 1 KiB of barriers) / 32 KiB per stage.
  EXPECT_EQ(k.stages, 6);
  EXPECT_EQ(k.grid, 64u);  // 8 x 8 tiles: at most one CTA per tile
  const auto fp8 = workload::gemm::resolve_gemm(gshape(1024, 1024, 1024, 1, spec::DType::FP8_E4M3), config(), 132);
  EXPECT_EQ(fp8.tile_k, 128);  // 128 bytes of K
  const auto pp = workload::gemm::resolve_gemm(gshape(1024, 1024, 1024), config({"gemm.schedule=pingpong"}), 132);
  EXPECT_EQ(pp.stages, 5);  // two C buffers: (227 KiB - 64 KiB - 1 KiB) / 32 KiB
}

// Every WGMMA FLOP and every TMA byte of the trace, pulled through the source.
TEST(GemmTotals, FlopsAreTwoMnkOnWholeTilesAndBytesAreWhatTheTilesNeed) {
  for (const char* sched : {"gemm.schedule=cooperative", "gemm.schedule=pingpong"}) {
    // Ragged M and N: TMA fetches only in-bounds rows, WGMMAs run on whole tiles.
    const GemmShape s = gshape(300, 136, 256, 2);
    GemmSource src(s, config({sched}), 5);
    const auto& k = src.gemm();
    const workload::TraceTally t = workload::tally(src);
    EXPECT_EQ(double(t.wgmma_flops), 2.0 * s.batch * k.tiles_m * k.tile_m * k.tiles_n * k.tile_n * s.k) << sched;
    EXPECT_EQ(double(t.tma_load_bytes + t.tma_store_bytes), gemm_tile_traffic_bytes(k)) << sched;
    EXPECT_EQ(double(t.tma_store_bytes), 2.0 * s.m * s.n * 2) << sched;
  }
  // Tile multiples: the nominal FLOPs exactly.
  const GemmShape s = gshape(256, 384, 128);
  GemmSource src(s, config(), 4);
  EXPECT_EQ(double(workload::tally(src).wgmma_flops), 2.0 * s.m * s.n * s.k);
}

// One 128x128 tile, K = 256 (4 k-blocks) on one SM of the H800 preset (L2 and DRAM modelled).
TEST(GemmRun, OneTileByHand) {
  Config cfg = make_config("h800", {"gpu.num_sms=1"});
  const auto w = make_workload("gemm", gemm_args("128", "128", "256"), cfg);
  EXPECT_EQ(w->nominal_flops(), 2.0 * 128 * 128 * 256);
  const RunResult r = run_workload(*w, cfg);
  EXPECT_EQ(r.stat("gpu.sm[0].tensor.flops"), 2.0 * 128 * 128 * 256);
  // Each k-block is 8 WGMMAs m64n128k16 (2 consumers x 4), 2·128·128·64 FLOPs at 4096 per cycle.
  const double per_block = 2.0 * 128 * 128 * 64 / cfg.f("tensor.flops_per_cycle_16bit");
  EXPECT_EQ(per_block, 512);
  EXPECT_EQ(r.stat("gpu.sm[0].tensor.busy_cycles"), 4 * per_block);
  // A (128 x 256) and B (128 x 256) once, C (128 x 128) once: 64 + 64 + 32 KiB.
  EXPECT_EQ(r.stat("gpu.sm[0].tma.bytes"), 128.0 * 256 * 2 * 2 + 128.0 * 128 * 2);
  EXPECT_EQ(r.stat("lts__t_bytes.sum"), 163840);
  EXPECT_EQ(r.stat("dram__bytes_read.sum"), 131072);
  // Latency: the k-blocks' tensor time plus at least the first load's L2 round trip before the
  // first WGMMA; the rest is the pipeline fill from DRAM and the epilogue.
  EXPECT_GT(double(r.cycles), 4 * per_block + cfg.f("mem.l2.near_hit_latency"));
  const WorkloadFigures f = workload_figures(*w, r, cfg, "h800");
  ASSERT_TRUE(f.analytic.ok);
  EXPECT_EQ(f.analytic.bound, "compute");
  // The roofline: one wave of one tile at the tensor peak.
  EXPECT_DOUBLE_EQ(f.analytic.latency_us, 4 * per_block / cfg.f("gpu.clock") * 1e6);
  EXPECT_LT(f.analytic.latency_us, r.latency_us);
}

TEST(GemmRun, PingpongWithAnOddTileCountFinishesAndComputesEveryTile) {
  // 3 tiles on one SM: consumer 0 takes two, consumer 1 one; the turns must not deadlock.
  Config cfg = config({"gpu.num_sms=1", "gemm.schedule=pingpong"});
  const auto w = make_workload("gemm", gemm_args("384", "128", "128"), cfg);
  const RunResult r = run_workload(*w, cfg);
  EXPECT_EQ(r.stat("gpu.sm[0].tensor.flops"), 2.0 * 384 * 128 * 128);
  EXPECT_EQ(r.stat("gpu.sm[0].tma.stores"), 3.0 * 2);  // two 64-column slabs per tile
}

TEST(GemmRun, BothSchedulesComputeTheSameTilesFromTheSameBytes) {
  const auto run = [](const char* sched) {
    Config cfg = config({"gpu.num_sms=1", sched});
    const auto w = make_workload("gemm", gemm_args("1024", "256", "256"), cfg);
    return run_workload(*w, cfg);
  };
  const RunResult co = run("gemm.schedule=cooperative"), pp = run("gemm.schedule=pingpong");
  EXPECT_EQ(co.stat("gpu.sm[0].tensor.flops"), pp.stat("gpu.sm[0].tensor.flops"));
  EXPECT_EQ(co.stat("gpu.sm[0].tensor.flops"), 2.0 * 1024 * 256 * 256);
  EXPECT_EQ(co.stat("gpu.sm[0].tma.bytes"), pp.stat("gpu.sm[0].tma.bytes"));
  // Cooperative: each consumer stores its 64 rows (2 slabs of 64 columns); pingpong: the owner all 128.
  EXPECT_EQ(co.stat("gpu.sm[0].tma.stores"), 16.0 * 2 * 2);
  EXPECT_EQ(pp.stat("gpu.sm[0].tma.stores"), 16.0 * 2);
}

}  // namespace
}  // namespace simfa
