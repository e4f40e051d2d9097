// Engine and core speed: simulated cycles per second and instructions per second on synthetic
// traces that exercise the event wheel, the issue loop, WGMMA and TMA paths, and a scaled-down
// FA3 whole-GPU run (the default `simfa run` at a shorter sequence length).
#include <benchmark/benchmark.h>

#include "api/run.h"
#include "spec/attention.h"
#include "trace/source.h"
#include "workload/fa3_source.h"

using namespace simfa;
using trace::Instr;

namespace {

// A producer/consumer pipeline per CTA (TMA bulk into 2 stages; consumer WGMMAs), `ctas` CTAs.
trace::MemoryTrace pipeline_trace(std::uint32_t ctas, std::uint32_t iters) {
  trace::MemoryTrace t;
  t.info.name = "bench";
  t.info.stages = 2;
  t.info.stage_arrivals = 1;
  t.info.smem = 64 * 1024;
  for (std::uint32_t c = 0; c < ctas; ++c) {
    trace::CtaData cta;
    cta.id = c;
    trace::WgData prod, cons;
    prod.index = 0, cons.index = 1;
    for (std::uint32_t i = 0; i < iters; ++i) {
      const std::uint16_t s = i % 2;
      prod.code.push_back(Instr::acquire(s, 16384));
      prod.code.push_back(Instr::tma_bulk(0, (std::uint64_t(c) << 24) + i * 16384ULL, 16384, s));
      cons.code.push_back(Instr::mb_wait(s));
      for (int k = 0; k < 8; ++k)
        cons.code.push_back(Instr::wgmma(0, 0, 0, 64, 128, 16, trace::DType::F16, true, trace::MmaMode::SS, false, 0));
      cons.code.push_back(Instr::wgmma_commit(0));
      cons.code.push_back(Instr::wgmma_wait(0, 0));
      cons.code.push_back(Instr::release(s));
      cons.code.push_back(Instr::bubble(200));
    }
    cta.wgs.push_back(std::move(prod));
    cta.wgs.push_back(std::move(cons));
    t.ctas.push_back(std::move(cta));
  }
  t.finalize();
  return t;
}

void BM_PipelineWholeGpu(benchmark::State& state) {
  const Config cfg = make_config("h800");
  double cycles = 0, instrs = 0;
  for (auto _ : state) {
    trace::MemoryTrace t = pipeline_trace(132, static_cast<std::uint32_t>(state.range(0)));
    RunResult r = run_trace(t, cfg);
    cycles += static_cast<double>(r.cycles);
    instrs += r.stat("gpu.instructions");
  }
  state.counters["sim_cycles_per_s"] = benchmark::Counter(cycles, benchmark::Counter::kIsRate);
  state.counters["instructions_per_s"] = benchmark::Counter(instrs, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PipelineWholeGpu)->Arg(200)->Unit(benchmark::kMillisecond);

// The default `simfa run` scaled down: FA3 forward, Llama-3 405B (128 query heads, 8 KV heads,
// D = 128), L = S = arg, H800 preset (whole GPU, memory hierarchy). The default run is
// L = S = 6144 (about 4.9 M cycles, 79 M line requests); arg 768 is about 1/60 of its work.
// Reports simulated cycles and TMA line requests per second of wall time.
void BM_Fa3WholeGpu(benchmark::State& state) {
  const Config cfg = make_config("h800");
  const spec::AttentionShape s = spec::shape_for_model("llama3-405b", 1, state.range(0), state.range(0));
  const int sms = static_cast<int>(cfg.i("gpu.num_sms"));
  double cycles = 0, lines = 0;
  for (auto _ : state) {
    workload::Fa3Source src(s, cfg, sms);
    RunResult r = run_trace(src, cfg);
    cycles += static_cast<double>(r.cycles);
    lines += r.stat("gpu.mem.requests");
  }
  state.counters["sim_cycles_per_s"] = benchmark::Counter(cycles, benchmark::Counter::kIsRate);
  state.counters["line_requests_per_s"] = benchmark::Counter(lines, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Fa3WholeGpu)->Arg(768)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
