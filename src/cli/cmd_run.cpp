// `simfa run`: simulate the FA3 forward kernel for an attention shape on a GPU and summarize it.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "api/fa3_run.h"
#include "cli/progress.h"
#include "cli/common.h"
#include "cli/timeline_flags.h"
#include "cli/workload_flags.h"
#include "workload/fa3_source.h"

namespace simfa::cli {

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
  run->add_option("--json", o->json, "write every statistic, the resolved configuration and the workload to FILE")
      ->check(output_file());
  run->add_flag("--no-skip", o->no_skip, "reference mode: tick every component every cycle (same results, slower)");
  add_timeline_flags(run, o->timeline);
  run->callback([o] {
    std::ostream& out = report_stream({o->json});
    ClockChoice clock;
    const Config cfg = workload_config(o->w, &clock);
    const spec::AttentionShape s = workload_shape(o->w);
    const int sms = static_cast<int>(cfg.i("gpu.num_sms"));
    workload::Fa3Source src(s, cfg, sms);
    RunOptions ro;
    ro.skip_idle = !o->no_skip;
    // A long run says so before it starts: the analytic roofline is a lower bound of its cycles.
    // kLongRun: a few minutes at kDefaultRunRate, the default run's simulated cycles per second on
    // one core of the 2-core VM (docs/performance.md, 119,232).
    constexpr double kDefaultRunRate = 1.2e5, kLongRun = 5e7;
    try {
      const double roofline_cycles = fa3_analytic(cfg, o->w.gpu.gpu, s, src.fa3()).latency_us * 1e-6 * cfg.f("gpu.clock");
      if (roofline_cycles > kLongRun)
        std::cerr << fmt::format(
            "simfa: note: this run simulates at least {:.3g} cycles (the analytic roofline): the default run "
            "simulates about 120,000 cycles/s on one core (docs/performance.md), so expect {:.0f} minutes or "
            "more; --set sim.max_cycles=N bounds it, Ctrl-C stops it\n",
            roofline_cycles, roofline_cycles / kDefaultRunRate / 60);
    } catch (const std::exception&) {
      // no analytic model for this configuration: no estimate
    }
    RunProgressLine progress(cfg.f("gpu.clock"));
    ro.poll = progress.poll();
    std::unique_ptr<TimelineSession> tl;  // checks the timeline flags before the run
    if (!o->timeline.file.empty()) {
      tl = std::make_unique<TimelineSession>(o->timeline, cfg);
      ro.observer = tl->observer();
    }
    const RunResult r = run_trace(tl ? tl->wrap(src) : src, cfg, ro);
    progress.finish();  // clears the progress line before the report
    const Fa3Figures f = fa3_figures(r, cfg, o->w.gpu.gpu, s, src.fa3());
    const model::Result& an = f.analytic;
    out << fmt::format("workload          {}\n", fa3_workload_line(s));
    out << fmt::format("kernel            {}\n", fa3_kernel_line(src.fa3()));
    out << fmt::format("clock             {}\n", clock.why);
    if (f.analytic_ok)
      out << fmt::format("latency           {:.2f} us   (analytic roofline: {:.2f} us, {}-bound)\n", r.latency_us,
                               an.latency_us, model::bound_name(an.bound));
    else
      out << fmt::format("latency           {:.2f} us\n", r.latency_us);
    out << fmt::format("throughput        {:.1f} TFLOPS ({:.1f}% of the {:.0f} TFLOPS peak)\n", f.tflops,
                             f.peak_tflops > 0 ? 100.0 * f.tflops / f.peak_tflops : 0.0, f.peak_tflops);
    // The L2 and DRAM statistics exist only where the memory model has an L2 and DRAM.
    const auto l2 = r.find_stat("lts__t_bytes.sum");
    const auto rd = r.find_stat("dram__bytes_read.sum"), wr = r.find_stat("dram__bytes_write.sum");
    const std::string not_modelled = fmt::format("not modelled (mem.model = {})", cfg.s("mem.model"));
    const std::string l2_text = l2 ? fmt::format("{:.4g}", *l2) : not_modelled;
    const std::string dram_text = rd && wr ? fmt::format("{:.4g} / {:.4g} bytes", *rd, *wr) : not_modelled;
    if (f.analytic_ok) {
      out << fmt::format("L2 bytes          {}   (analytic: {:.4g} with cluster multicast, Eq. 2 {:.4g})\n",
                               l2_text, an.l2_bytes_coalesced, an.l2_bytes);
      out << fmt::format("DRAM read/write   {}   ({}analytic: {:.4g}, {} regime)\n", dram_text,
                               rd && wr ? fmt::format("sum {:.4g}; ", *rd + *wr) : "", an.dram_bytes,
                               model::regime_name(an.regime));
    } else {
      out << fmt::format("L2 bytes          {}\n", l2_text);
      out << fmt::format("DRAM read/write   {}\n", dram_text);
      out << fmt::format("analytic model    not available for this configuration: {}\n", f.analytic_error);
    }
    out << fmt::format("tensor core util  {:.1f}%\n", 100.0 * r.stat("gpu.tensor.utilization"));
    out << fmt::format("CUDA-core pipes   MUFU {:.1f}%, FP32 {:.1f}%, FMNMX/F2FP {:.1f}% (softmax instruction counts)\n",
                             100.0 * f.mufu_util, 100.0 * f.fp32_util, 100.0 * f.alu_util);
    out << run_summary(r, sms);
    if (tl)
      out << tl->finish(r, fmt::format("{} on {} ({} SMs, {:.0f} MHz); {}", fa3_workload_line(s), o->w.gpu.gpu,
                                             sms, r.clock_hz / 1e6, fa3_kernel_line(src.fa3())));
    if (!o->json.empty()) {
      auto j = fa3_result_json(r, cfg, s, src.fa3(), f);
      j["clock"] = {{"requested_hz", clock.requested_hz}, {"effective_hz", clock.effective_hz}, {"why", clock.why}};
      write_json_file(o->json, j);
    }
  });
}

}  // namespace simfa::cli
