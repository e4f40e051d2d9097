// `simfa trace run` and `simfa config show`.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "trace/io.h"

namespace simfa::cli {

void add_trace_commands(CLI::App& app) {
  auto* trace = app.add_subcommand("trace", "work with trace files");
  trace->require_subcommand(1);
  auto* run = trace->add_subcommand("run", "simulate trace files (or directories of .sft files)");
  struct Opts {
    std::vector<std::string> paths;
    GpuOptions gpu;
    std::string json;
    bool no_skip = false;
  };
  auto o = std::make_shared<Opts>();
  run->add_option("paths", o->paths, "trace files or directories")->required();
  add_gpu_options(run, o->gpu);
  run->add_option("--json", o->json, "write every statistic and the resolved configuration to FILE");
  run->add_flag("--no-skip", o->no_skip, "reference mode: tick every component every cycle (same results, slower)");
  run->callback([o] {
    Config cfg = make_config(o->gpu);
    trace::MemoryTrace t = trace::read_trace_paths(o->paths);
    RunOptions ro;
    ro.skip_idle = !o->no_skip;
    RunResult r = run_trace(t, cfg, ro);
    std::cout << fmt::format("kernel            {} ({} CTAs of {} WarpGroups, cluster {})\n", t.info.name,
                             t.info.ctas, t.ctas.front().wgs.size(), t.info.cluster);
    std::cout << run_summary(r, static_cast<int>(cfg.i("gpu.num_sms")));
    if (!o->json.empty()) write_json_file(o->json, result_json(r, cfg));
  });
  add_trace_gen_hook(*trace);
}

void add_config_commands(CLI::App& app) {
  auto* config = app.add_subcommand("config", "inspect configurations");
  config->require_subcommand(1);
  auto* show = config->add_subcommand("show", "print the resolved configuration with units and docs");
  auto o = std::make_shared<GpuOptions>();
  add_gpu_options(show, *o);
  auto json = std::make_shared<bool>(false);
  show->add_flag("--json", *json, "print JSON {key: value}");
  show->callback([o, json] {
    Config cfg = make_config(*o);
    if (*json) {
      std::cout << cfg.to_json().dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("# GPU configuration '{}'\n", o->gpu);
    for (const auto& d : cfg.registry().all()) {
      std::cout << fmt::format("{:<36} = {:<14} {:<12} {}\n", d.key, cfg.render(d.key),
                               d.unit.empty() ? "" : "[" + d.unit + "]", d.doc);
      std::cout << fmt::format("{:<36}   source: {}; set by: {}\n", "", d.source, cfg.origin(d.key));
    }
  });
}

}  // namespace simfa::cli
