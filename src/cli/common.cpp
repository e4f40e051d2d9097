// Shared command-line helpers.
#include "cli/common.h"

#include <cmath>
#include <iostream>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/files.h"
#include "sim/units.h"

namespace simfa::cli {

std::optional<double> parse_count_text(std::string_view t) { return units::parse_count(t); }

std::optional<double> parse_real_text(std::string_view t) {
  if (t.empty()) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(std::string(t), &used);
  } catch (...) {
    return std::nullopt;
  }
  if (used != t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

void add_gpu_options(CLI::App* app, GpuOptions& o, bool ablate) {
  std::string presets;
  for (const auto& n : gpu_preset_names()) presets += (presets.empty() ? "" : ", ") + n;
  app->add_option("--gpu", o.gpu, fmt::format("GPU preset ({}) or a TOML file", presets))->capture_default_str();
  app->add_option("--set", o.sets, "override a configuration key: --set key=value (repeatable)");
  if (ablate)
    app->add_option("--ablate", o.ablations, "paper Table 5 ablation: no-lrc, simple-hash, no-dedup (repeatable)");
}

Config make_config(const GpuOptions& o) { return simfa::make_config(o.gpu, o.sets, o.ablations); }

void set_kernel(Config& cfg, const std::string& name) { set_alias(cfg, "fa3.kernel", name, "--kernel"); }

void write_json_file(const std::string& path, const nlohmann::ordered_json& j) {
  write_output_file(path, j.dump(2) + "\n");
}

namespace {
// A validator that runs `check` (a sim/files.h check) when the command line is parsed, before any
// simulation; CLI11 prefixes the message with the flag.
CLI::Validator checked(void (*check)(const std::string&, std::string_view), const char* what, const char* metavar) {
  return CLI::Validator(
      [check, what](std::string& s) {
        try {
          check(s, what);
        } catch (const UserError& e) {
          return std::string(e.what());
        }
        return std::string();
      },
      metavar);
}
}  // namespace

std::ostream& report_stream(std::initializer_list<std::string_view> outputs) {
  for (std::string_view o : outputs)
    if (o == kStdout) return std::cerr;
  return std::cout;
}

CLI::Validator output_file() { return checked(check_output_path, "output file", "FILE"); }
CLI::Validator output_dir() { return checked(check_output_dir, "output folder", "DIR"); }

std::string run_summary(const RunResult& r, int num_sms) {
  auto total = [&](const std::string& suffix) {
    double v = 0;
    for (int i = 0; i < num_sms; ++i) v += r.stat(fmt::format("gpu.sm[{}].{}", i, suffix));
    return v;
  };
  const double denom = static_cast<double>(r.cycles) * num_sms;
  auto frac = [&](double v) { return denom > 0 ? 100.0 * v / denom : 0.0; };
  std::string s;
  s += fmt::format("cycles            {}\n", r.cycles);
  s += fmt::format("time              {:.3f} us at {:.0f} MHz\n", r.latency_us, r.clock_hz / 1e6);
  s += fmt::format("CTAs              {}\n", r.ctas);
  s += fmt::format("instructions      {:.0f}\n", r.stat("gpu.instructions"));
  s += fmt::format("tensor pipe busy  {:.1f}%\n", frac(total("tensor.busy_cycles")));
  s += fmt::format("TMA unit busy     {:.1f}%\n", frac(total("tma.busy_cycles")));
  s += fmt::format("issue slots used  {:.1f}%\n", frac(total("issue_cycles")));
  s += fmt::format("simulation        {:.3f} s wall, {:.0f} simulated cycles/s; {}\n", r.sim_wall_s,
                   r.sim_cycles_per_s, r.sampling.note.empty() ? "full detail" : r.sampling.note);
  if (!r.sampling.warning.empty()) s += fmt::format("sampling warning  {}\n", r.sampling.warning);
  return s;
}

}  // namespace simfa::cli
