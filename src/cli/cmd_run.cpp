// `simfa run`: simulate the FA3 forward kernel for an attention shape on a GPU and summarize it.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/timeline_flags.h"
#include "cli/workload_flags.h"
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
    std::cout << fmt::format("latency           {:.2f} us\n", r.latency_us);
    std::cout << fmt::format("throughput        {:.1f} TFLOPS ({:.1f}% of the {:.0f} TFLOPS peak)\n", tflops,
                             peak > 0 ? 100.0 * tflops / peak : 0.0, peak);
    std::cout << fmt::format("L2 bytes          {:.4g}\n", r.stat("lts__t_bytes.sum"));
    std::cout << fmt::format("DRAM read/write   {:.4g} / {:.4g} bytes\n", r.stat("dram__bytes_read.sum"),
                             r.stat("dram__bytes_write.sum"));
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
      j["workload"] = {{"batch", s.batch},       {"seqlen_q", s.seqlen_q}, {"seqlen_kv", s.seqlen_kv},
                       {"heads_kv", s.heads_kv}, {"group", s.group},       {"head_dim", s.head_dim},
                       {"dtype", spec::dtype_name(s.dtype)}, {"causal", s.causal},
                       {"kernel", kernel_line(src.fa3())}};
      write_json_file(o->json, j);
    }
  });
}

}  // namespace simfa::cli
