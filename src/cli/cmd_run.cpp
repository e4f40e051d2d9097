// `simfa run`: simulate the FA3 forward kernel for an attention shape on a GPU and summarize it.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/timeline_flags.h"
#include "cli/workload_flags.h"
#include "model/analysis.h"
#include "model/gpu_spec.h"
#include "workload/fa3_source.h"

namespace simfa::cli {

namespace {

// FLOPs in FA3's own benchmark convention: 4·B·H·L·S·D, halved when causal.
double nominal_flops(const spec::AttentionShape& s) {
  const double f = 4.0 * s.batch * s.heads_q() * double(s.seqlen_q) * double(s.seqlen_kv) * s.head_dim;
  return s.causal ? f / 2 : f;
}

std::string kernel_line(const workload::Fa3Kernel& k) {
  return fmt::format("{}: tile {}x{}, {} consumer WGs, {} stages, cluster {}, grid {}, {} scheduler{}{}{}",
                     k.name(), k.tile_m, k.tile_n, k.consumer_wgs, k.stages, k.cluster, k.grid,
                     k.scheduler == workload::SchedKind::Dynamic ? "dynamic" : "static",
                     k.pingpong ? ", ping-pong" : "", k.intra_wg_overlap ? ", intra-WG overlap" : "",
                     k.pack_gqa ? ", PackGQA" : "");
}

std::string workload_line(const spec::AttentionShape& s) {
  return fmt::format("B {} x H_KV {} x G {}, L {}, S {}, D {}, {}{}", s.batch, s.heads_kv, s.group, s.seqlen_q,
                     s.seqlen_kv, s.head_dim, spec::dtype_name(s.dtype), s.causal ? ", causal" : "");
}

// The analytic model (docs/analytic-model.md) for the same shape, GPU and kernel tiles, printed beside
// the simulated traffic. Empty when the model does not cover the configuration (the reason is kept).
struct Analytic {
  bool ok = false;
  std::string why;
  model::Result r;
};

Analytic analytic_for(const spec::AttentionShape& s, const Config& cfg, const std::string& gpu_name,
                      const workload::Fa3Kernel& k, int sms) {
  Analytic a;
  try {
    model::ModelOptions opt;
    opt.tile_m = k.tile_m;
    opt.tile_n = k.tile_n;
    opt.num_sms = sms;
    opt.num_splits = 1;  // the simulated kernel does not split KV
    opt.cluster = k.cluster;
    opt.pack_gqa = k.pack_gqa ? model::PackGqa::On : model::PackGqa::Off;
    a.r = model::analyze(s, model::GpuSpec::from_config(cfg, gpu_name), opt);
    a.ok = true;
  } catch (const std::exception& e) {
    a.why = e.what();
  }
  return a;
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* run = app.add_subcommand("run", "simulate the FlashAttention-3 forward kernel for an attention shape");
  struct Opts {
    WorkloadFlags w;
    TimelineFlags timeline;
    std::string json;
    bool no_skip = false;
  };
  auto o = std::make_shared<Opts>();
  add_workload_flags(run, o->w);
  run->add_option("--json", o->json, "write every statistic, the resolved configuration and the workload to FILE");
  run->add_flag("--no-skip", o->no_skip, "reference mode: tick every component every cycle (same results, slower)");
  add_timeline_flags(run, o->timeline);
  run->callback([o] {
    const Config cfg = workload_config(o->w);
    const spec::AttentionShape s = workload_shape(o->w);
    const int sms = static_cast<int>(cfg.i("gpu.num_sms"));
    workload::Fa3Source src(s, cfg, sms);
    RunOptions ro;
    ro.skip_idle = !o->no_skip;
    std::unique_ptr<TimelineSession> tl;  // checks the timeline flags before the run
    if (!o->timeline.file.empty()) {
      tl = std::make_unique<TimelineSession>(o->timeline, cfg);
      ro.observer = tl->observer();
    }
    const RunResult r = run_trace(tl ? tl->wrap(src) : src, cfg, ro);
    const double secs = r.latency_us * 1e-6;
    const double tflops = secs > 0 ? nominal_flops(s) / secs / 1e12 : 0;
    const double per_cycle = s.dtype == spec::DType::FP8_E4M3 ? cfg.f("tensor.flops_per_cycle_fp8")
                                                               : cfg.f("tensor.flops_per_cycle_16bit");
    const double peak = per_cycle * sms * r.clock_hz / 1e12;
    std::cout << fmt::format("workload          {}\n", workload_line(s));
    std::cout << fmt::format("kernel            {}\n", kernel_line(src.fa3()));
    const Analytic an = analytic_for(s, cfg, o->w.gpu.gpu, src.fa3(), sms);
    if (an.ok)
      std::cout << fmt::format("latency           {:.2f} us   (analytic roofline: {:.2f} us, {}-bound)\n", r.latency_us,
                               an.r.latency_us, model::bound_name(an.r.bound));
    else
      std::cout << fmt::format("latency           {:.2f} us\n", r.latency_us);
    std::cout << fmt::format("throughput        {:.1f} TFLOPS ({:.1f}% of the {:.0f} TFLOPS peak)\n", tflops,
                             peak > 0 ? 100.0 * tflops / peak : 0.0, peak);
    const double l2 = r.stat("lts__t_bytes.sum");
    const double rd = r.stat("dram__bytes_read.sum"), wr = r.stat("dram__bytes_write.sum");
    if (an.ok) {
      std::cout << fmt::format("L2 bytes          {:.4g}   (analytic: {:.4g} with cluster multicast, Eq. 2 {:.4g})\n",
                               l2, an.r.l2_bytes_coalesced, an.r.l2_bytes);
      std::cout << fmt::format("DRAM read/write   {:.4g} / {:.4g} bytes   (sum {:.4g}; analytic: {:.4g}, {} regime)\n",
                               rd, wr, rd + wr, an.r.dram_bytes, model::regime_name(an.r.regime));
    } else {
      std::cout << fmt::format("L2 bytes          {:.4g}\n", l2);
      std::cout << fmt::format("DRAM read/write   {:.4g} / {:.4g} bytes\n", rd, wr);
      std::cout << fmt::format("analytic model    not available for this configuration: {}\n", an.why);
    }
    std::cout << fmt::format("tensor core util  {:.1f}%\n", 100.0 * r.stat("gpu.tensor.utilization"));
    std::cout << run_summary(r, sms);
    if (tl)
      std::cout << tl->finish(r, fmt::format("{} on {} ({} SMs, {:.0f} MHz); {}", workload_line(s), o->w.gpu.gpu, sms,
                                             r.clock_hz / 1e6, kernel_line(src.fa3())));
    if (!o->json.empty()) {
      nlohmann::ordered_json j = result_json(r, cfg);
      j["tflops"] = tflops;
      j["peak_fraction"] = peak > 0 ? tflops / peak : 0.0;
      j["l2_bytes"] = r.stat("lts__t_bytes.sum");
      j["dram_read_bytes"] = r.stat("dram__bytes_read.sum");
      j["dram_write_bytes"] = r.stat("dram__bytes_write.sum");
      if (an.ok)
        j["analytic"] = {{"flops", an.r.flops},
                         {"l2_bytes", an.r.l2_bytes},
                         {"l2_bytes_coalesced", an.r.l2_bytes_coalesced},
                         {"dram_bytes", an.r.dram_bytes},
                         {"dram_ideal_bytes", an.r.dram_ideal_bytes},
                         {"dram_real_bytes", an.r.dram_real_bytes},
                         {"regime", model::regime_name(an.r.regime)},
                         {"latency_us", an.r.latency_us},
                         {"bound", model::bound_name(an.r.bound)}};
      else
        j["analytic"] = {{"error", an.why}};
      j["workload"] = {{"batch", s.batch},       {"seqlen_q", s.seqlen_q}, {"seqlen_kv", s.seqlen_kv},
                       {"heads_kv", s.heads_kv}, {"group", s.group},       {"head_dim", s.head_dim},
                       {"dtype", spec::dtype_name(s.dtype)}, {"causal", s.causal},
                       {"kernel", kernel_line(src.fa3())}};
      write_json_file(o->json, j);
    }
  });
}

}  // namespace simfa::cli
