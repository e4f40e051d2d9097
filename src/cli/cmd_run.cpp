// `simfa run`: simulate a workload (FA3's forward kernel for an attention shape by default, or a
// GEMM) on a GPU and summarize it.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "api/workload.h"
#include "cli/progress.h"
#include "cli/common.h"
#include "cli/timeline_flags.h"
#include "cli/workload_flags.h"
#include "sim/files.h"

namespace simfa::cli {

void add_run_command(CLI::App& app) {
  auto* run = app.add_subcommand("run", "simulate a workload: the FlashAttention-3 forward kernel for an attention shape (default) or a GEMM (--workload gemm)");
  struct Opts {
    WorkloadFlags w;
    TimelineFlags timeline;
    std::string json;
    std::string block_log;
    bool no_skip = false;
  };
  auto o = std::make_shared<Opts>();
  add_workload_flags(run, o->w);
  run->add_option("--json", o->json, "write every statistic, the resolved configuration and the workload to FILE")
      ->check(output_file());
  run->add_option("--block-log", o->block_log,
                  "write FILE, a CSV line per KV block the run simulates in detail: the CTA, its tile and block, "
                  "the cycle consumer 0 started it, the sampler's phase (FA3 only; docs/sampling.md)")
      ->check(output_file());
  run->add_flag("--no-skip", o->no_skip, "reference mode: tick every component every cycle (same results, slower)");
  add_timeline_flags(run, o->timeline);
  run->callback([o, run] {
    check_workload_flags(*run, o->w);
    std::ostream& out = report_stream({o->json, o->block_log});
    ClockChoice clock;
    const Config cfg = workload_config(o->w, &clock);
    const std::unique_ptr<Workload> w = make_workload(o->w, cfg);
    for (const auto& warning : w->warnings()) std::cerr << "simfa: warning: " << warning << "\n";
    const int sms = static_cast<int>(cfg.i("gpu.num_sms"));
    const std::unique_ptr<OutputFile> block_log =
        o->block_log.empty() ? nullptr : start_block_log(*w, o->block_log, "--block-log");
    RunOptions ro;
    ro.skip_idle = !o->no_skip;
    // A long run says so before it starts: the analytic roofline is a lower bound of its cycles.
    // A sampled run (sample.mode=on, FA3 only) fast-forwards most of them: no note.
    // kLongRun: a few minutes at kDefaultRunRate, the default run's simulated cycles per second on
    // one core of the 2-core VM (docs/performance.md, 119,232).
    constexpr double kDefaultRunRate = 1.2e5, kLongRun = 5e7;
    if (const AnalyticFigures an = w->analytic(cfg, o->w.gpu.gpu); an.ok && cfg.s("sample.mode") != "on") {
      const double roofline_cycles = an.latency_us * 1e-6 * cfg.f("gpu.clock");
      if (roofline_cycles > kLongRun)
        std::cerr << fmt::format(
            "simfa: note: this run simulates at least {:.3g} cycles (the analytic roofline): the default run "
            "simulates about 120,000 cycles/s on one core (docs/performance.md), so expect {:.0f} minutes or "
            "more; --set sim.max_cycles=N bounds it, Ctrl-C stops it\n",
            roofline_cycles, roofline_cycles / kDefaultRunRate / 60);
    }
    RunProgressLine progress(cfg.f("gpu.clock"));
    ro.poll = progress.poll();
    std::unique_ptr<TimelineSession> tl;  // checks the timeline flags before the run
    if (!o->timeline.file.empty()) {
      tl = std::make_unique<TimelineSession>(o->timeline, cfg);
      ro.observer = tl->observer();
    }
    const RunResult r = run_trace(tl ? tl->wrap(w->source()) : w->source(), cfg, ro);
    progress.finish();  // clears the progress line before the report
    if (block_log) block_log->commit();
    const WorkloadFigures f = workload_figures(*w, r, cfg, o->w.gpu.gpu);
    out << workload_report(*w, r, cfg, clock.why, f);
    out << run_summary(r, sms);
    if (tl)
      out << tl->finish(r, fmt::format("{} on {} ({} SMs, {:.0f} MHz); {}", w->shape_line(), o->w.gpu.gpu,
                                             sms, r.clock_hz / 1e6, w->kernel_line()));
    if (!o->json.empty()) {
      auto j = workload_result_json(*w, r, cfg, f);
      j["clock"] = {{"requested_hz", clock.requested_hz}, {"effective_hz", clock.effective_hz}, {"why", clock.why}};
      write_json_file(o->json, j);
    }
  });
}

}  // namespace simfa::cli
