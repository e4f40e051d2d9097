// `simfa validate`: simulate every case of a measurements CSV and compare with the measured times.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/report_cmds.h"
#include "sim/error.h"

namespace simfa::cli {

WorkloadFlags flags_for_case(const report::MeasuredCase& m, const GpuOptions& gpu, double clock_mhz) {
  WorkloadFlags f;
  f.model = "none";
  f.batch = m.batch;
  f.seqlen = m.seqlen;
  f.kv_seqlen = m.kv_seqlen;
  f.heads_kv = m.heads_kv;
  f.group = m.heads / m.heads_kv;
  f.head_dim = m.head_dim;
  f.dtype = m.dtype;
  f.causal = m.causal;
  f.clock_mhz = m.clock_mhz > 0 ? m.clock_mhz : clock_mhz;
  f.clock_measured = m.clock_measured;
  f.gpu = gpu;
  if (!m.gpu.empty()) f.gpu.gpu = m.gpu;
  return f;
}

namespace {

struct CaseSetup {
  spec::AttentionShape shape;
  Config cfg;
};

[[noreturn]] void rethrow_for(const report::MeasuredCase& m, const UserError& e) {
  throw UserError(fmt::format("{} (case '{}'): {}", m.where, m.name, e.what()));
}

CaseSetup setup_case(const report::MeasuredCase& m, const GpuOptions& gpu, double clock_mhz,
                     const std::vector<std::string>& extra_ablations) {
  WorkloadFlags f = flags_for_case(m, gpu, clock_mhz);
  for (const auto& a : extra_ablations) f.gpu.ablations.push_back(a);
  try {
    return CaseSetup{workload_shape(f), workload_config(f)};
  } catch (const UserError& e) {
    rethrow_for(m, e);
  }
}

}  // namespace

void check_cases(const std::vector<report::MeasuredCase>& cases, const GpuOptions& gpu, double clock_mhz,
                 const std::vector<std::string>& extra_ablations) {
  for (const auto& m : cases) setup_case(m, gpu, clock_mhz, extra_ablations);
}

std::vector<report::CaseResult> run_cases(const std::vector<report::MeasuredCase>& cases, const GpuOptions& gpu,
                                          double clock_mhz, const std::vector<std::string>& extra_ablations,
                                          const std::function<void(const report::CaseResult&)>& on_case) {
  std::vector<report::CaseResult> out;
  for (const auto& m : cases) {
    const CaseSetup c = setup_case(m, gpu, clock_mhz, extra_ablations);
    RunResult r;
    try {
      r = simulate_workload(c.shape, c.cfg);
    } catch (const UserError& e) {
      rethrow_for(m, e);
    }
    report::CaseResult res{m.name, m.measured_us, r.latency_us, report::error_pct(r.latency_us, m.measured_us)};
    if (on_case) on_case(res);
    out.push_back(std::move(res));
  }
  return out;
}

std::string ablation_note(const Config& cfg, const std::vector<std::string>& ablations) {
  if (cfg.s("mem.model") != "fixed") return {};
  for (const auto& a : ablations)
    if (a == "no-lrc" || a == "simple-hash")
      return "note: mem.model = fixed has no L2 request coalescer or slice hash, so no-lrc and simple-hash change "
             "nothing; add --set mem.model=hierarchy\n";
  return {};
}

void add_validate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("validate", "simulate every case of a measurements CSV and report the errors (MAPE)");
  struct Opts {
    std::string csv, json;
    GpuOptions gpu;
    double clock_mhz = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--measurements", o->csv,
                  "CSV with columns case,batch,seqlen,heads,head_dim,causal,measured_us (optional kv_seqlen,heads_kv,"
                  "dtype,clock_mhz,gpu)")
      ->required();
  add_gpu_options(cmd, o->gpu);
  cmd->add_option("--clock-mhz", o->clock_mhz, "SM clock in MHz for rows without clock_mhz (default: the GPU preset's)");
  cmd->add_option("--json", o->json, "also write {mape_pct, max_abs_error_pct, cases: [...]} to FILE");
  cmd->callback([o] {
    const auto cases = report::read_measurements(o->csv);
    check_cases(cases, o->gpu, o->clock_mhz, {});  // every row's shape and GPU, before any run
    std::cerr << ablation_note(make_config(o->gpu), o->gpu.ablations);
    std::size_t w = 4;
    for (const auto& m : cases) w = std::max(w, m.name.size());
    std::cout << fmt::format("{:<{}}  {:>12}  {:>12}  {:>8}\n", "case", w, "measured_us", "simulated_us", "error");
    const auto results = run_cases(cases, o->gpu, o->clock_mhz, {}, [&](const report::CaseResult& c) {
      std::cout << fmt::format("{:<{}}  {:>12.2f}  {:>12.2f}  {:>+7.1f}%\n", c.name, w, c.measured_us, c.simulated_us,
                               c.error_pct)
                << std::flush;
    });
    const report::ErrorSummary s = report::summarize(results);
    std::cout << fmt::format("MAPE {:.1f}%, max |error| {:.1f}% over {} case{}\n", s.mape_pct, s.max_abs_error_pct,
                             s.cases, s.cases == 1 ? "" : "s");
    if (!o->json.empty()) write_json_file(o->json, report::validation_json(results, s));
  });
}

}  // namespace simfa::cli
