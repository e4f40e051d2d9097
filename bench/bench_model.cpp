// Speed of the analytic model: evaluations per second of model::analyze on one core, for the
// paper's non-causal prefill, causal prefill (floor sums plus the wave loop) and split-KV decode.
#include <benchmark/benchmark.h>

#include <vector>

#include "model/analysis.h"

namespace {

using namespace simfa;

model::GpuSpec h800() {
  model::GpuSpec g;
  g.name = "h800";
  g.num_sms = 132;
  g.clock_hz = 1.83e9;
  g.l2_bytes = 50.0 * (1 << 20);
  g.l2_partitions = 2;
  g.l2_bytes_per_cycle = 3942;
  g.dram_bytes_per_s = 3.35e12;
  g.flops_per_cycle_16bit = 4096;
  g.flops_per_cycle_fp8 = 8192;
  return g;
}

// Sweeps 1024 sequence lengths (16K..64K) so that every call does real work.
void run(benchmark::State& state, bool causal, std::int64_t seqlen_q, const char* model) {
  const model::GpuSpec gpu = h800();
  std::vector<spec::AttentionShape> shapes;
  for (int i = 0; i < 1024; ++i) {
    const std::int64_t S = 16384 + 48 * i;
    shapes.push_back(spec::shape_for_model(model, 1, seqlen_q ? seqlen_q : S, S,
                                           spec::DType::FP16, causal));
  }
  std::size_t i = 0;
  double sink = 0;
  for (auto _ : state) {
    const model::Result r = model::analyze(shapes[i], gpu);
    sink += r.dram_bytes;
    i = (i + 1) & 1023;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations());
}

void BM_AnalyzePrefill(benchmark::State& s) { run(s, false, 0, "llama3-405b"); }
void BM_AnalyzePrefillCausal(benchmark::State& s) { run(s, true, 0, "llama3-405b"); }
void BM_AnalyzeDecodeSplitKv(benchmark::State& s) { run(s, false, 1, "llama3-8b"); }

}  // namespace

BENCHMARK(BM_AnalyzePrefill);
BENCHMARK(BM_AnalyzePrefillCausal);
BENCHMARK(BM_AnalyzeDecodeSplitKv);
BENCHMARK_MAIN();
