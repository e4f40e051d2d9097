#include "api/fa3_run.h"

#include <exception>

#include <fmt/format.h>

#include "model/gpu_spec.h"
#include "workload/pipe_use.h"

namespace simfa {

double fa3_nominal_flops(const spec::AttentionShape& s) {
  const double f = 4.0 * s.batch * s.heads_q() * double(s.seqlen_q) * double(s.seqlen_kv) * s.head_dim;
  return s.causal ? f / 2 : f;
}

std::string fa3_kernel_line(const workload::Fa3Kernel& k) {
  return fmt::format("{}: tile {}x{}, {} consumer WGs, {} stages, cluster {}, grid {}, {} scheduler{}{}{}",
                     k.name(), k.tile_m, k.tile_n, k.consumer_wgs, k.stages, k.cluster, k.grid,
                     workload::sched_name(k.scheduler),
                     k.pingpong ? ", ping-pong" : "", k.intra_wg_overlap ? ", intra-WG overlap" : "",
                     k.pack_gqa ? ", PackGQA" : "");
}

std::string fa3_workload_line(const spec::AttentionShape& s) {
  return fmt::format("B {} x H_KV {} x G {}, L {}, S {}, D {}, {}{}", s.batch, s.heads_kv, s.group, s.seqlen_q,
                     s.seqlen_kv, s.head_dim, spec::dtype_name(s.dtype), s.causal ? ", causal" : "");
}

Fa3Figures fa3_figures(const RunResult& r, const Config& cfg, const std::string& gpu_name,
                       const spec::AttentionShape& s, const workload::Fa3Kernel& k) {
  Fa3Figures f;
  const int sms = static_cast<int>(cfg.i("gpu.num_sms"));
  const double secs = r.latency_us * 1e-6;
  f.tflops = secs > 0 ? fa3_nominal_flops(s) / secs / 1e12 : 0;
  const double per_cycle = s.dtype == spec::DType::FP8_E4M3 ? cfg.f("tensor.flops_per_cycle_fp8")
                                                             : cfg.f("tensor.flops_per_cycle_16bit");
  f.peak_tflops = per_cycle * sms * r.clock_hz / 1e12;
  const double sm_cycles = static_cast<double>(r.cycles) * sms;
  if (sm_cycles > 0) {
    const workload::PipeCycles pc = workload::kernel_pipe_cycles(k);
    f.mufu_util = pc.mufu / sm_cycles;
    f.fp32_util = pc.fp32 / sm_cycles;
    f.alu_util = pc.alu / sm_cycles;
  }
  try {
    f.analytic = fa3_analytic(cfg, gpu_name, s, k);
    f.analytic_ok = true;
  } catch (const std::exception& e) {
    f.analytic_error = e.what();
  }
  return f;
}

model::Result fa3_analytic(const Config& cfg, const std::string& gpu_name, const spec::AttentionShape& s,
                           const workload::Fa3Kernel& k) {
  model::ModelOptions opt;
  opt.tile_m = k.tile_m;
  opt.tile_n = k.tile_n;
  opt.num_sms = static_cast<int>(cfg.i("gpu.num_sms"));
  opt.num_splits = 1;  // the simulated kernel does not split KV
  opt.cluster = k.cluster;
  opt.pack_gqa = k.pack_gqa ? model::PackGqa::On : model::PackGqa::Off;
  return model::analyze(s, model::GpuSpec::from_config(cfg), opt);
}

nlohmann::ordered_json fa3_result_json(const RunResult& r, const Config& cfg,
                                       const spec::AttentionShape& s, const workload::Fa3Kernel& k,
                                       const Fa3Figures& f) {
  nlohmann::ordered_json j = result_json(r, cfg);
  j["tflops"] = f.tflops;
  j["peak_fraction"] = f.peak_tflops > 0 ? f.tflops / f.peak_tflops : 0.0;
  // Only a memory model with an L2 and DRAM has these (not mem.model = fixed): absent, never 0.
  if (auto v = r.find_stat("lts__t_bytes.sum")) j["l2_bytes"] = *v;
  if (auto v = r.find_stat("dram__bytes_read.sum")) j["dram_read_bytes"] = *v;
  if (auto v = r.find_stat("dram__bytes_write.sum")) j["dram_write_bytes"] = *v;
  j["pipe_utilization"] = {{"tensor", r.stat("gpu.tensor.utilization")},
                           {"mufu", f.mufu_util},
                           {"fp32", f.fp32_util},
                           {"alu", f.alu_util}};
  j["workload"] = {{"batch", s.batch},       {"seqlen_q", s.seqlen_q}, {"seqlen_kv", s.seqlen_kv},
                   {"heads_kv", s.heads_kv}, {"group", s.group},       {"head_dim", s.head_dim},
                   {"dtype", spec::dtype_name(s.dtype)}, {"causal", s.causal},
                   {"kernel", fa3_kernel_line(k)}};
  if (f.analytic_ok) {
    const model::Result& a = f.analytic;
    j["analytic"] = {{"flops", a.flops},
                     {"l2_bytes", a.l2_bytes},
                     {"l2_bytes_coalesced", a.l2_bytes_coalesced},
                     {"dram_bytes", a.dram_bytes},
                     {"dram_ideal_bytes", a.dram_ideal_bytes},
                     {"dram_real_bytes", a.dram_real_bytes},
                     {"regime", model::regime_name(a.regime)},
                     {"latency_us", a.latency_us},
                     {"bound", model::bound_name(a.bound)}};
  } else {
    j["analytic"] = {{"error", f.analytic_error}};
  }
  return j;
}

}  // namespace simfa
