// One vocabulary across the simulator and the analytic model (docs/configuration.md "One
// vocabulary"): the GPU presets and gpu.arch, the one refusal of a GPU the simulator does not model,
// the kernel keys both read (fa3.kernel, fa3.tile_m, ...) resolving to the same tiles, the model's
// refusal of keys it does not read, and the FA3 workload's split-KV warning.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/fa3_workload.h"
#include "api/run.h"
#include "api/workload.h"
#include "model/analysis.h"
#include "model/gpu_spec.h"
#include "sim/error.h"
#include "workload/fa3_kernel.h"
#include "workload_test_util.h"

namespace simfa {
namespace {

using workload::testing::shape;

std::string user_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

TEST(Presets, B200AndGb10FollowHardwareMd) {
  const Config b = make_config("b200");
  EXPECT_EQ(b.s("gpu.arch"), "blackwell");
  EXPECT_EQ(b.s("gpu.name"), "B200");
  EXPECT_EQ(b.i("gpu.num_sms"), 148);
  EXPECT_DOUBLE_EQ(b.f("mem.l2.size"), 126.5 * 1024 * 1024);
  EXPECT_EQ(b.i("mem.l2.partitions"), 2);
  const model::GpuSpec bs = model::GpuSpec::from_config(b);
  // 2.25 PFLOPS dense 16-bit and about 8 TB/s (hardware.md).
  EXPECT_NEAR(bs.num_sms * bs.flops_per_cycle_16bit * bs.clock_hz, 2.25e15, 0.01e15);
  EXPECT_NEAR(bs.dram_bytes_per_s, 8.0e12, 0.01e12);
  EXPECT_EQ(bs.arch, "blackwell");
  EXPECT_EQ(bs.assumed, (std::vector<std::string>{"tensor.flops_per_cycle_fp8", "model.l2_bytes_per_cycle"}));

  const Config g = make_config("gb10");
  EXPECT_EQ(g.s("gpu.arch"), "blackwell-sm12x");
  EXPECT_EQ(g.i("gpu.num_sms"), 48);
  EXPECT_DOUBLE_EQ(g.f("mem.l2.size"), 24.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(g.f("sm.max_smem_per_cta"), 99.0 * 1024);
  const model::GpuSpec gs = model::GpuSpec::from_config(g);
  EXPECT_DOUBLE_EQ(gs.effective_l2(), 24.0 * 1024 * 1024);  // one partition: the paper's §6 GB10 capacity
  EXPECT_NEAR(gs.dram_bytes_per_s, 273e9, 0.5e9);           // LPDDR5X, 256 bits at 8533 MT/s
  EXPECT_EQ(gs.assumed.size(), 4u);

  // The Hopper presets are hopper and assume nothing.
  for (const char* h : {"h800", "h100", "h200", "h800-pcie"}) {
    const Config c = make_config(h);
    EXPECT_EQ(c.s("gpu.arch"), "hopper") << h;
    EXPECT_TRUE(model::GpuSpec::from_config(c).assumed.empty()) << h;
  }
}

TEST(Presets, AnAssumedKeyMustBeAKey) {
  EXPECT_NE(user_error_of([] { model::GpuSpec::from_config(make_config("h800", {"gpu.assumed=gpu.clok"})); })
                .find("gpu.assumed (--set): 'gpu.clok' is not a configuration key"),
            std::string::npos);
}

TEST(Arch, TheSimulatorRefusesBlackwellInOnePlaceNamingWhatItLacks) {
  EXPECT_NO_THROW(require_simulatable(make_config("h800")));
  const std::string b = user_error_of([] { require_simulatable(make_config("b200")); });
  EXPECT_NE(b.find("gpu.arch = blackwell (B200, preset b200"), std::string::npos) << b;
  EXPECT_NE(b.find("tcgen05 UMMA"), std::string::npos) << b;
  EXPECT_NE(b.find("tensor memory"), std::string::npos) << b;
  const std::string g = user_error_of([] { require_simulatable(make_config("gb10")); });
  EXPECT_NE(g.find("gpu.arch = blackwell-sm12x (GB10"), std::string::npos) << g;
  EXPECT_NE(g.find("mma.sync"), std::string::npos) << g;
  // A Hopper preset marked otherwise by --set is refused too; every workload inherits the check.
  const Config set = make_config("h800", {"gpu.arch=blackwell"});
  for (const char* w : {"fa3", "gemm"}) {
    WorkloadArgs args;
    if (std::string(w) == "gemm") args.set("m", "256"), args.set("n", "256"), args.set("k", "256");
    EXPECT_NE(user_error_of([&] { make_workload(w, args, set); }).find("gpu.arch = blackwell (H800 SXM5, --set)"),
              std::string::npos)
        << w;
  }
  // run_trace itself (trace files, microbenchmarks) refuses before it builds anything.
  auto fa3 = make_workload("fa3", WorkloadArgs(), make_config("h800", {"fa3.tile_m=128"}));
  EXPECT_NE(user_error_of([&] { run_trace(fa3->source(), set); }).find("gpu.arch = blackwell"), std::string::npos);
}

TEST(Vocabulary, CuTileIsTheAnalyticModelsOnly) {
  const std::string e = user_error_of([] { make_workload("fa3", WorkloadArgs(), make_config("h800", {"fa3.kernel=cutile"})); });
  EXPECT_NE(e.find("fa3.kernel = cutile (--set): cuTile's FlashAttention"), std::string::npos) << e;
  const model::ModelOptions o = model::options_from_config(make_config("gb10", {"fa3.kernel=cutile"}));
  EXPECT_EQ(o.kernel, model::Kernel::CuTile);
  const model::Result r = model::analyze(spec::shape_for_model("llama3-405b", 1, 16384, 16384),
                                         model::GpuSpec::from_config(make_config("gb10")), o);
  EXPECT_EQ(r.tile_m, 64);
  EXPECT_EQ(r.tile_n, 32);
}

// The analytic model, given the simulator's configuration keys, resolves the tiles, the cluster
// and PackGQA of the kernel the simulator's FA3 synthesizes (split-KV aside: the simulator does
// not split, so these configurations say fa3.splits = 1).
TEST(Vocabulary, TheModelReadsTheKernelKeysAsTheSimulatorResolvesThem) {
  struct Case {
    spec::AttentionShape s;
    std::vector<std::string> sets;
  };
  const std::vector<Case> cases = {
      {shape(6144, 6144, 8, 16), {}},
      {shape(6144, 6144, 8, 16), {"fa3.tile_m=64"}},
      {shape(6144, 6144, 8, 16), {"fa3.tile_n=128"}},
      {shape(6144, 6144, 8, 16), {"fa3.tile_m=192", "fa3.tile_n=96"}},
      {shape(384, 1024, 8, 4), {}},
      {shape(2048, 2048, 2, 8, 64, true), {}},
      {shape(2048, 2048, 2, 8, 64), {}},
      {shape(1024, 4096, 4, 1, 96), {}},
      {shape(1024, 4096, 4, 2, 192), {}},
      {shape(1024, 4096, 4, 2, 256, true), {}},
      {shape(1024, 4096, 2, 4, 128, false, 1, spec::DType::FP8_E4M3), {}},
      {shape(4096, 4096, 2, 4, 192, false, 1, spec::DType::FP8_E4M3), {}},
      {shape(100, 8192, 8, 4), {}},
      {shape(100, 8192, 8, 4), {"fa3.pack_gqa=off"}},
      {shape(6144, 6144, 8, 16), {"fa3.cluster=1"}},
      {shape(6144, 6144, 8, 16), {"fa3.kernel=simfa-attn"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> sets = c.sets;
    sets.push_back("fa3.splits=1");
    const Config cfg = make_config("h800", sets);
    const workload::Fa3Kernel k = workload::resolve_fa3(c.s, cfg, 132);
    const model::Result r = model::analyze(c.s, model::GpuSpec::from_config(cfg), model::options_from_config(cfg));
    const std::string what = fmt::format("D {} G {} L {} {}", c.s.head_dim, c.s.group, c.s.seqlen_q,
                                         c.sets.empty() ? "" : c.sets.front());
    EXPECT_EQ(r.tile_m, k.tile_m) << what;
    EXPECT_EQ(r.tile_n, k.tile_n) << what;
    EXPECT_EQ(r.cluster, k.cluster) << what;
    EXPECT_EQ(r.pack_gqa, k.pack_gqa) << what;
    EXPECT_EQ(r.num_splits, 1) << what;
  }
}

TEST(Vocabulary, TheModelRefusesAKeyItDoesNotRead) {
  EXPECT_NO_THROW(model::require_read_keys(make_config("h800", {"fa3.tile_m=64", "gpu.num_sms=114"}), "simfa analyze"));
  const std::string e = user_error_of([] { model::require_read_keys(make_config("h800", {"fa3.stages=3"}), "simfa analyze"); });
  EXPECT_NE(e.find("--set fa3.stages=3: simfa analyze does not read fa3.stages"), std::string::npos) << e;
  EXPECT_NE(e.find("fa3.tile_m"), std::string::npos) << e;  // and says what it reads
  // The GpuSpec alone reads the GPU keys only.
  EXPECT_THROW(model::require_read_keys(make_config("h800", {"fa3.tile_m=64"}), "simfa.gpu", model::gpu_config_keys()),
               UserError);
  // A preset or a GPU file sets what it likes: only --set is checked.
  EXPECT_NO_THROW(model::require_read_keys(make_config("h200"), "simfa analyze"));
  // An alias and --set of the same key must agree.
  Config same = make_config("h800", {"fa3.tile_m=128"});
  EXPECT_NO_THROW(set_alias(same, "fa3.tile_m", "128", "--tile-m"));
  EXPECT_EQ(same.origin("fa3.tile_m"), "--tile-m");
  Config cfg = make_config("h800", {"fa3.tile_m=128"});
  EXPECT_NE(user_error_of([&] { set_alias(cfg, "fa3.tile_m", "64", "--tile-m"); })
                .find("--tile-m 64 contradicts --set fa3.tile_m=128"),
            std::string::npos);
}

TEST(Decode, TheSimulatorWarnsWhereFa3WouldSplitAndRefusesAForcedSplit) {
  WorkloadArgs decode;
  decode.set("model", "llama3-8b");
  decode.set("seqlen_q", "1");
  decode.set("seqlen_kv", "4096");
  const auto w = make_workload("fa3", decode, make_config("h800"));
  ASSERT_EQ(w->warnings().size(), 1u);
  EXPECT_NE(w->warnings()[0].find("FA3's num_splits heuristic splits this shape's KV into 14 pieces"),
            std::string::npos)
      << w->warnings()[0];
  // The model agrees on the count.
  EXPECT_EQ(model::analyze(spec::shape_for_model("llama3-8b", 1, 1, 4096), model::GpuSpec::from_config(make_config("h800")))
                .num_splits,
            14);
  EXPECT_TRUE(make_workload("fa3", decode, make_config("h800", {"fa3.splits=1"}))->warnings().empty());
  EXPECT_NE(user_error_of([&] { make_workload("fa3", decode, make_config("h800", {"fa3.splits=4"})); })
                .find("fa3.splits = 4 (--set): the cycle simulator synthesizes FA3 without split-KV"),
            std::string::npos);
  // Prefill: no warning.
  EXPECT_TRUE(make_workload("fa3", WorkloadArgs(), make_config("h800"))->warnings().empty());
}

}  // namespace
}  // namespace simfa
