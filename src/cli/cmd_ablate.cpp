// `simfa ablate`: rerun the measured cases (or one workload) under each ablation of the paper's
// Table 5 and print MAPE per variant (or latency per variant).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/progress.h"
#include "cli/common.h"
#include "cli/commands.h"
#include "cli/report_cmds.h"
#include "sim/error.h"

namespace simfa::cli {

namespace {

// Table 5's wording for each ablation.
std::string variant_label(const std::string& a) {
  return a.empty() ? "Sim-FA (baseline)" : ablation_label(a);
}

}  // namespace

void add_ablate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "ablate", "rerun measured cases (or one workload) with each ablation of the paper's Table 5 and compare");
  struct Opts {
    WorkloadFlags w;
    std::string csv, json;
    unsigned jobs = default_jobs();
  };
  auto o = std::make_shared<Opts>();
  add_workload_flags(cmd, o->w);  // its --ablate selects the ablations to run (default: all)
  cmd->add_option("--measurements", o->csv,
                  "CSV of measured cases (as for simfa validate): print MAPE per variant; without it, the latency "
                  "of the workload given by the flags");
  cmd->add_option("--json", o->json, "also write the table to FILE as JSON")->check(output_file());
  cmd->add_option("-j,--jobs", o->jobs,
                  "with --measurements: cases simulated at once (default: every core); the output does not depend on it")
      ->check(CLI::Range(1u, 4096u));
  cmd->callback([o, cmd] {
    check_workload_flags(*cmd, o->w);
    std::ostream& out = report_stream({o->json});
    std::vector<std::string> ablations = o->w.gpu.ablations.empty() ? ablation_names() : o->w.gpu.ablations;
    o->w.gpu.ablations.clear();
    for (const auto& a : ablations) {
      Config probe = workload_config(o->w);
      apply_ablation(probe, a);  // unknown name: a UserError before any run
    }
    std::vector<std::string> variants = {""};
    variants.insert(variants.end(), ablations.begin(), ablations.end());
    std::cerr << ablation_note(workload_config(o->w), ablations);
    std::size_t w = 0;
    for (const auto& v : variants) w = std::max(w, variant_label(v).size());
    nlohmann::ordered_json j;
    j["variants"] = nlohmann::ordered_json::array();

    if (!o->csv.empty()) {
      for (const char* flag : {"--batch", "--seqlen", "--seqlen-q", "--seqlen-kv", "--heads-kv", "--group", "--head-dim", "--dtype",
                               "--causal", "--model", "--workload", "--m", "--n", "--k"})
        if (cmd->get_option(flag)->count())
          user_error("simfa ablate: {} cannot be combined with --measurements (the CSV gives each case's shape)", flag);
      const auto cases = report::read_measurements(o->csv);
      for (const auto& v : variants)
        check_cases(cases, o->w.gpu, o->w.clock_mhz, v.empty() ? std::vector<std::string>{} : std::vector<std::string>{v},
                    /*warn=*/v.empty());
      out << fmt::format("{:<{}}  {:>8}  {:>12}\n", "Variant", w, "MAPE", "max |error|");
      for (const auto& v : variants) {
        std::vector<std::string> extra;
        if (!v.empty()) extra.push_back(v);
        const auto results = run_cases(cases, o->w.gpu, o->w.clock_mhz, extra, {}, nullptr, o->jobs);
        const report::ErrorSummary s = report::summarize(results);
        out << fmt::format("{:<{}}  {:>7.1f}%  {:>11.1f}%\n", variant_label(v), w, s.mape_pct,
                                 s.max_abs_error_pct)
                  << std::flush;
        nlohmann::ordered_json vj{{"variant", v.empty() ? "baseline" : v}};
        const nlohmann::ordered_json cases_json = report::validation_json(results, s);
        for (const auto& [k, val] : cases_json.items()) vj[k] = val;
        j["variants"].push_back(vj);
      }
      out << fmt::format("over {} case{} of {}\n", cases.size(), cases.size() == 1 ? "" : "s", o->csv);
    } else {
      make_workload(o->w, workload_config(o->w));  // the shape's errors before any run
      out << fmt::format("{:<{}}  {:>12}  {:>12}\n", "Variant", w, "latency_us", "vs baseline");
      double base = 0;
      for (const auto& v : variants) {
        WorkloadFlags f = o->w;
        if (!v.empty()) f.gpu.ablations.push_back(v);
        const Config cfg = workload_config(f);
        RunProgressLine progress(cfg.f("gpu.clock"));
        RunOptions ro;
        ro.poll = progress.poll();
        const std::unique_ptr<Workload> wl = make_workload(f, cfg);
        const RunResult r = run_workload(*wl, cfg, ro);
        progress.finish();
        if (v.empty()) base = r.latency_us;
        const double d = report::error_pct(r.latency_us, base);
        out << fmt::format("{:<{}}  {:>12.2f}  {:>+11.1f}%\n", variant_label(v), w, r.latency_us, d) << std::flush;
        j["variants"].push_back({{"variant", v.empty() ? "baseline" : v},
                                 {"latency_us", r.latency_us},
                                 {"cycles", r.cycles},
                                 {"change_pct", d}});
      }
    }
    if (!o->json.empty()) write_json_file(o->json, j);
  });
}

}  // namespace simfa::cli
