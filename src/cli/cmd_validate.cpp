// `simfa validate`: simulate every case of a measurements CSV and compare with the measured times;
// with --logs, each case from the instrumentation log of the kernel that was measured.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "cli/progress.h"
#include "cli/common.h"
#include "cli/commands.h"
#include "cli/report_cmds.h"
#include "instr/log_reader.h"
#include "sim/error.h"
#include "sim/threads.h"
#include "sim/config.h"
#include "translate/fa3_log_source.h"

namespace simfa::cli {

namespace {
// The gpu column: a preset or a TOML file, or the device name CUDA reports, as the gpu/ kit's
// timings CSV writes it: "NVIDIA H200" is the preset h200 (prefix dropped, lower case, spaces as
// dashes) when such a preset exists; anything else is passed on unchanged.
std::string gpu_of_row(const std::string& g) {
  const std::string prefix = "NVIDIA ";
  if (g.rfind(prefix, 0) != 0) return g;
  std::string p;
  for (char ch : g.substr(prefix.size())) p += ch == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const auto& name : gpu_preset_names())
    if (name == p) return p;
  return g;
}
}  // namespace

WorkloadFlags flags_for_case(const report::MeasuredCase& m, const GpuOptions& gpu, double clock_mhz) {
  WorkloadFlags f;
  f.workload = m.workload;
  f.model = "none";
  f.batch = m.batch;
  f.seqlen = m.seqlen;
  f.seqlen_kv = m.seqlen_kv;
  f.heads_kv = m.heads_kv;
  f.group = m.heads_kv > 0 ? m.heads / m.heads_kv : 0;  // 0 (not given) on a row of another workload
  f.head_dim = m.head_dim;
  f.dtype = m.dtype;
  f.causal = m.causal;
  f.clock_mhz = m.clock_mhz > 0 ? m.clock_mhz : clock_mhz;
  f.clock_measured = m.clock_measured;
  f.gpu = gpu;
  if (!m.gpu.empty()) f.gpu.gpu = gpu_of_row(m.gpu);
  return f;
}

namespace {

struct CaseSetup {
  WorkloadFlags flags;
  Config cfg;
};

[[noreturn]] void rethrow_for(const report::MeasuredCase& m, const UserError& e) {
  throw UserError(fmt::format("{} (case '{}'): {}", m.where, m.name, e.what()));
}

// The case's workload, built as `simfa run` builds it: an FA3 row through the workload flags, a
// row of another workload from its shape columns.
std::unique_ptr<Workload> make_case_workload(const report::MeasuredCase& m, const CaseSetup& c) {
  if (m.workload == "fa3") return make_workload(c.flags, c.cfg);
  WorkloadArgs args(KeyStyle::Column);
  for (const auto& [key, value] : m.shape) args.set(key, value);
  return simfa::make_workload(m.workload, args, c.cfg);
}

CaseSetup setup_case(const report::MeasuredCase& m, const GpuOptions& gpu, double clock_mhz,
                     const std::vector<std::string>& extra_ablations, bool warn = false) {
  WorkloadFlags f = flags_for_case(m, gpu, clock_mhz);
  for (const auto& a : extra_ablations) f.gpu.ablations.push_back(a);
  try {
    CaseSetup c{f, workload_config(f)};
    const auto w = make_case_workload(m, c);  // the shape's errors now, before any run
    if (warn)
      for (const auto& text : w->warnings())
        std::cerr << fmt::format("simfa: warning: {} (case '{}'): {}\n", m.where, m.name, text);
    return c;
  } catch (const UserError& e) {
    rethrow_for(m, e);
  }
}

// The case's log translated under the case's configuration; its shape must be the row's.
RunResult simulate_log(const report::MeasuredCase& m, const CaseSetup& c, const CaseLogs& logs) {
  translate::TranslateOptions opt;
  opt.bubbles = translate::parse_bubble_mode(logs.bubbles);
  if (m.workload != "fa3")
    user_error("--logs: the instrumentation logs are FA3's; this row's workload is {}", m.workload);
  const spec::AttentionShape shape = workload_shape(c.flags);
  opt.causal = shape.causal;
  if (shape.dtype != spec::DType::FP8_E4M3) opt.dtype16 = shape.dtype;
  translate::Fa3LogSource src(instr::read_log(logs.path(m)), c.cfg, static_cast<int>(c.cfg.i("gpu.num_sms")), opt);
  for (const auto& w : src.warnings()) std::cerr << "simfa: warning: " << w << "\n";
  const spec::AttentionShape& a = src.fa3().shape;
  const spec::AttentionShape& b = shape;
  if (a.batch != b.batch || a.seqlen_q != b.seqlen_q || a.seqlen_kv != b.seqlen_kv || a.heads_kv != b.heads_kv ||
      a.group != b.group || a.head_dim != b.head_dim || a.dtype != b.dtype)
    user_error("the log {} describes B {} x H_KV {} x G {}, L {}, S {}, D {}, {}, but the row B {} x H_KV {} x G {}, "
               "L {}, S {}, D {}, {}",
               logs.path(m), a.batch, a.heads_kv, a.group, a.seqlen_q, a.seqlen_kv, a.head_dim,
               spec::dtype_name(a.dtype), b.batch, b.heads_kv, b.group, b.seqlen_q, b.seqlen_kv, b.head_dim,
               spec::dtype_name(b.dtype));
  RunOptions ro;
  ro.poll = interrupt_poll();
  return run_trace(src, c.cfg, ro);
}

}  // namespace

std::string CaseLogs::path(const report::MeasuredCase& m) const {
  return (std::filesystem::path(dir) / (m.name + ".evlog")).string();
}

bool CaseLogs::has(const report::MeasuredCase& m) const {
  std::error_code ec;
  return std::filesystem::is_regular_file(path(m), ec);
}

void check_cases(const std::vector<report::MeasuredCase>& cases, const GpuOptions& gpu, double clock_mhz,
                 const std::vector<std::string>& extra_ablations, bool warn) {
  for (const auto& m : cases) setup_case(m, gpu, clock_mhz, extra_ablations, warn);
}

std::vector<report::CaseResult> run_cases(const std::vector<report::MeasuredCase>& cases, const GpuOptions& gpu,
                                          double clock_mhz, const std::vector<std::string>& extra_ablations,
                                          const std::function<void(const report::CaseResult&)>& on_case,
                                          const CaseLogs* logs, unsigned jobs) {
  std::vector<const report::MeasuredCase*> todo;
  for (const auto& m : cases)
    if (!logs || logs->has(m)) todo.push_back(&m);
  const std::size_t n = todo.size();
  // Each case is an independent simulation (nothing mutable is shared between runs but the DRAM
  // probe's locked cache): workers take the next case; results are reported in the CSV's order,
  // each as soon as every case before it is done, so the output does not depend on `jobs`.
  std::vector<std::optional<report::CaseResult>> done(n);
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::size_t reported = 0;
  auto work = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= n || failed) return;
      const report::MeasuredCase& m = *todo[i];
      try {
        try {
          const CaseSetup c = setup_case(m, gpu, clock_mhz, extra_ablations);
          RunOptions ro;
          ro.poll = interrupt_poll();
          RunResult r;
          if (logs) {
            r = simulate_log(m, c, *logs);
          } else {
            const std::unique_ptr<Workload> w = make_case_workload(m, c);
            r = run_workload(*w, c.cfg, ro);
          }
          std::lock_guard<std::mutex> lock(mu);
          done[i] = report::CaseResult{m.name, m.measured_us, r.latency_us, report::error_pct(r.latency_us, m.measured_us)};
          for (; reported < n && done[reported]; ++reported)
            if (on_case) on_case(*done[reported]);
        } catch (const UserError& e) {
          rethrow_for(m, e);
        }
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  run_workers(jobs, n, work);
  // The first failing case in the CSV's order (the one a sequential run would have stopped at).
  for (std::size_t i = 0; i < n; ++i)
    if (errors[i]) std::rethrow_exception(errors[i]);
  std::vector<report::CaseResult> out;
  out.reserve(n);
  for (auto& d : done) out.push_back(std::move(*d));
  return out;
}

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

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
    std::string csv, json, kernel;
    GpuOptions gpu;
    double clock_mhz = 0;
    CaseLogs logs;
    unsigned jobs = default_jobs();
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--measurements", o->csv,
                  "CSV with columns case,batch,seqlen,heads,head_dim,causal,measured_us (optional seqlen_kv,heads_kv,"
                  "dtype,clock_mhz,gpu; workload and a GEMM row's m,n,k: docs/validation.md)")
      ->required();
  add_gpu_options(cmd, o->gpu);
  cmd->add_option("--clock-mhz", o->clock_mhz, "SM clock in MHz for rows without clock_mhz (default: the GPU preset's)");
  cmd->add_option("--json", o->json, "also write {mape_pct, max_abs_error_pct, cases: [...]} to FILE")
      ->check(output_file());
  cmd->add_option("--kernel", o->kernel, "kernel to model: fa3 or simfa-attn (gpu/attn); same as --set fa3.kernel=");
  auto* logs_opt = cmd->add_option("--logs", o->logs.dir,
                                   "simulate each case from DIR/CASE.evlog, an instrumentation log of the measured "
                                   "kernel (translated as by simfa translate); rows without a log are skipped");
  cmd->add_option("-j,--jobs", o->jobs, "cases simulated at once (default: every core); the output does not depend on it")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_option("--bubbles", o->logs.bubbles,
                  "with --logs: 'model' bubbles or 'measured' (SOFTMAX_* and simfa-attn's EPILOGUE_* gaps)")
      ->capture_default_str();
  cmd->callback([o, cmd, logs_opt] {
    std::ostream& out = report_stream({o->json});
    if (!o->kernel.empty()) {
      Config probe = make_config(o->gpu);
      set_kernel(probe, o->kernel);  // a bad name or a contradicting --set fails here
      o->gpu.sets.push_back("fa3.kernel=" + o->kernel);
    }
    const bool with_logs = logs_opt->count() > 0;
    if (!with_logs && cmd->get_option("--bubbles")->count())
      user_error("--bubbles applies to cases simulated from logs: add --logs DIR");
    translate::parse_bubble_mode(o->logs.bubbles);  // a bad name fails before any run
    const auto cases = report::read_measurements(o->csv);
    check_cases(cases, o->gpu, o->clock_mhz, {}, /*warn=*/true);  // every row's shape and GPU, before any run
    if (with_logs) {
      std::error_code ec;
      if (!std::filesystem::is_directory(o->logs.dir, ec))
        user_error("--logs {}: not a directory", o->logs.dir);
      std::size_t found = 0;
      for (const auto& m : cases) {
        if (o->logs.has(m)) ++found;
        else std::cerr << fmt::format("simfa: note: {} has no {}: case '{}' skipped\n", o->logs.dir, m.name + ".evlog", m.name);
      }
      if (found == 0)
        user_error("--logs {}: no case of {} has a log there (expected {})", o->logs.dir, o->csv,
                   o->logs.path(cases.front()));
    }
    std::cerr << ablation_note(make_config(o->gpu), o->gpu.ablations);
    std::size_t w = 4;
    for (const auto& m : cases) w = std::max(w, m.name.size());
    const CaseLogs* logs = with_logs ? &o->logs : nullptr;
    out << fmt::format("{:<{}}  {:>12}  {:>12}  {:>8}\n", "case", w, "measured_us", "simulated_us", "error");
    const auto results = run_cases(cases, o->gpu, o->clock_mhz, {}, [&](const report::CaseResult& c) {
      out << fmt::format("{:<{}}  {:>12.2f}  {:>12.2f}  {:>+7.1f}%\n", c.name, w, c.measured_us, c.simulated_us,
                               c.error_pct)
                << std::flush;
    }, logs, o->jobs);
    const report::ErrorSummary s = report::summarize(results);
    out << fmt::format("MAPE {:.1f}%, max |error| {:.1f}% over {} case{}\n", s.mape_pct, s.max_abs_error_pct,
                             s.cases, s.cases == 1 ? "" : "s");
    if (!o->json.empty()) write_json_file(o->json, report::validation_json(results, s));
  });
}

}  // namespace simfa::cli
