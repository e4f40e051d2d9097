#include "api/fa3_workload.h"

#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include "model/gpu_spec.h"
#include "model/inputs.h"
#include "sim/error.h"
#include "workload/pipe_use.h"

namespace simfa {

spec::AttentionShape fa3_shape(const WorkloadArgs& a) {
  const std::string model = a.has("model") ? *a.find("model") : "llama3-405b";
  if (model == "none" && (!a.has("heads_kv") || !a.has("head_dim")))
    user_error("{} none needs {} and {} (and {}, default 1)", a.label("model"), a.label("heads_kv"),
               a.label("head_dim"), a.label("group"));
  const std::int64_t batch = a.integer("batch").value_or(1);
  if (batch < 1) user_error("{} must be at least 1, got {}", a.label("batch"), batch);
  if (auto l = a.integer("seqlen"); l && *l < 1) user_error("{} must be at least 1, got {}", a.label("seqlen"), *l);
  model::PointInputs in;
  in.batch = double(batch);
  in.seqlen = a.real("seqlen");
  in.seqlen_q = a.real("seqlen_q");
  in.seqlen_kv = a.real("seqlen_kv");
  in.heads_kv = a.real("heads_kv");
  in.group = a.real("group");
  in.head_dim = a.real("head_dim");
  in.causal = a.boolean("causal").value_or(false);
  if (!in.seqlen && !in.seqlen_q && !in.seqlen_kv) in.seqlen = double(kFa3DefaultSeqlen);
  model::PointContext ctx;
  ctx.preset = model == "none" ? nullptr : &spec::find_model(model);
  ctx.dtype = spec::parse_dtype(a.has("dtype") ? *a.find("dtype") : "fp16", a.label("dtype"));
  spec::AttentionShape s;
  model::ModelOptions unused;
  model::resolve_point(in, ctx, s, unused);
  s.validate();
  return s;
}

std::unique_ptr<Workload> make_fa3_workload(const WorkloadArgs& args, const Config& cfg) {
  return std::make_unique<Fa3Workload>(fa3_shape(args), cfg);
}

Fa3Workload::Fa3Workload(const spec::AttentionShape& s, const Config& cfg)
    : shape_(s), src_(s, cfg, static_cast<int>(cfg.i("gpu.num_sms"))) {
  if (std::string w = fa3_split_warning(cfg, src_.fa3(), static_cast<int>(cfg.i("gpu.num_sms"))); !w.empty())
    warnings_.push_back(std::move(w));
}

std::string fa3_split_warning(const Config& cfg, const workload::Fa3Kernel& k, int num_sms) {
  const std::int64_t splits = cfg.i("fa3.splits");
  if (splits > 1)
    user_error("fa3.splits = {} ({}): the cycle simulator synthesizes FA3 without split-KV (no split tiles, no "
               "combine kernel); fa3.splits = 1 simulates the unsplit kernel (flash_attn_func), simfa analyze models "
               "the split",
               splits, cfg.origin("fa3.splits"));
  if (splits == 1 || k.impl != workload::Impl::Fa3) return {};  // simfa-attn has no split-KV: its time is its own
  // FA3's num_splits_heuristic (fa3-kernel.md §7) as the analytic model applies it: split forces
  // PackGQA, so the M-blocks are those of the packed head.
  const spec::AttentionShape& s = k.shape;
  const std::int64_t m_packed = (s.seqlen_q * s.group + k.tile_m - 1) / k.tile_m;
  const std::int64_t n_blocks = (s.seqlen_kv + k.tile_n - 1) / k.tile_n;
  const int n = model::fa3_num_splits_heuristic(s.batch * s.heads_kv * m_packed, num_sms, n_blocks, m_packed,
                                                s.seqlen_kv * 2 * s.head_dim * spec::dtype_bytes(s.dtype), s.causal);
  if (n <= 1) return {};
  return fmt::format(
      "FA3's num_splits heuristic splits this shape's KV into {} pieces ({} query tiles of {} rows for {} SMs; "
      "what flash_attn_with_kvcache launches, fa3-kernel.md §7), but the cycle simulator synthesizes the unsplit "
      "kernel (flash_attn_func, num_splits = 1): the time reported is that kernel's. --set fa3.splits=1 simulates "
      "it by name without this warning; simfa analyze models the split",
      n, s.batch * s.heads_kv * m_packed, k.tile_m, num_sms);
}

double fa3_nominal_flops(const spec::AttentionShape& s) {
  const double per_pair = 4.0 * s.batch * s.heads_q() * s.head_dim;
  const double L = double(s.seqlen_q), S = double(s.seqlen_kv);
  if (!s.causal) return per_pair * L * S;
  // Bottom-right aligned: query row i sees keys j <= i + S - L. The rows that see a key, min(L, S)
  // of them, see S - L' + 1 ... S keys; counted with the diagonal at half (FA3's "halved when
  // causal" for L = S), that is L' (2S - L') / 2 pairs. Rows before the first key (L > S) do no work.
  const double rows = std::min(L, S);
  return per_pair * rows * (2.0 * S - rows) / 2.0;
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

double Fa3Workload::tensor_flops_per_cycle(const Config& cfg) const {
  return shape_.dtype == spec::DType::FP8_E4M3 ? cfg.f("tensor.flops_per_cycle_fp8")
                                               : cfg.f("tensor.flops_per_cycle_16bit");
}

std::vector<PipeUse> Fa3Workload::cuda_pipes(const RunResult& r, const Config& cfg) const {
  const double sm_cycles = static_cast<double>(r.cycles) * static_cast<double>(cfg.i("gpu.num_sms"));
  double mufu = 0, fp32 = 0, alu = 0;
  if (sm_cycles > 0) {
    const workload::PipeCycles pc = workload::kernel_pipe_cycles(src_.fa3());
    mufu = pc.mufu / sm_cycles;
    fp32 = pc.fp32 / sm_cycles;
    alu = pc.alu / sm_cycles;
  }
  return {{"mufu", mufu}, {"fp32", fp32}, {"alu", alu}};
}

std::string Fa3Workload::cuda_pipes_line(const std::vector<PipeUse>& p) const {
  return fmt::format("CUDA-core pipes   MUFU {:.1f}%, FP32 {:.1f}%, FMNMX/F2FP {:.1f}% (softmax instruction counts)\n",
                     100.0 * p.at(0).utilization, 100.0 * p.at(1).utilization, 100.0 * p.at(2).utilization);
}

model::Result fa3_analytic(const Config& cfg, const std::string& gpu_name, const spec::AttentionShape& s,
                           const workload::Fa3Kernel& k) {
  (void)gpu_name;
  model::ModelOptions opt;
  opt.kernel = k.impl;
  opt.occupancy = cfg.i("model.occupancy");
  opt.tile_m = k.tile_m;
  opt.tile_n = k.tile_n;
  opt.num_sms = static_cast<int>(cfg.i("gpu.num_sms"));
  opt.num_splits = 1;  // the simulated kernel does not split KV
  opt.cluster = k.cluster;
  opt.pack_gqa = k.pack_gqa ? model::PackGqa::On : model::PackGqa::Off;
  return model::analyze(s, model::GpuSpec::from_config(cfg), opt);
}

AnalyticFigures Fa3Workload::analytic(const Config& cfg, const std::string& gpu_name) const {
  AnalyticFigures f;
  model::Result a;
  try {
    a = fa3_analytic(cfg, gpu_name, shape_, src_.fa3());
  } catch (const std::exception& e) {
    f.error = e.what();
    return f;
  }
  f.ok = true;
  f.name = "analytic roofline";
  f.latency_us = a.latency_us;
  f.bound = model::bound_name(a.bound);
  f.l2_note = fmt::format("analytic: {:.4g} with cluster multicast, Eq. 2 {:.4g}", a.l2_bytes_coalesced, a.l2_bytes);
  f.dram_note = fmt::format("analytic: {:.4g}, {} regime", a.dram_bytes, model::regime_name(a.regime));
  f.json = {{"flops", a.flops},
            {"l2_bytes", a.l2_bytes},
            {"l2_bytes_coalesced", a.l2_bytes_coalesced},
            {"dram_bytes", a.dram_bytes},
            {"dram_ideal_bytes", a.dram_ideal_bytes},
            {"dram_real_bytes", a.dram_real_bytes},
            {"regime", model::regime_name(a.regime)},
            {"latency_us", a.latency_us},
            {"bound", model::bound_name(a.bound)}};
  return f;
}

nlohmann::ordered_json Fa3Workload::shape_json() const {
  nlohmann::ordered_json j = spec::shape_json(shape_);
  j["kernel"] = fa3_kernel_line(src_.fa3());
  return j;
}

}  // namespace simfa
