// `simfa analyze`: the analytic model (paper §3 and extensions) for one workload or a sweep,
// as a table on stdout and optionally JSON and CSV files.
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/model_flags.h"
#include "model/fields.h"
#include "sim/csv.h"
#include "sim/error.h"
#include "sim/files.h"

namespace simfa::cli {
namespace {

void write_csv(const std::string& path, const ModelRun& run) {
  OutputFile file(path);
  std::ostream& out = file.stream();
  bool header = true;
  for (const auto& p : run.points) {
    const auto j = point_json(p);
    if (header) {
      std::string line;
      for (const auto& [k, v] : j.items()) line += (line.empty() ? "" : ",") + k;
      out << line << "\n";
      header = false;
    }
    std::string line;
    bool first = true;
    for (const auto& [k, v] : j.items()) {
      if (!first) line += ",";
      first = false;
      if (v.is_string()) line += csv_field(v.get<std::string>());
      else if (v.is_boolean()) line += v.get<bool>() ? "1" : "0";
      else if (v.is_number_integer()) line += std::to_string(v.get<std::int64_t>());
      else line += fmt::format("{:.17g}", v.get<double>());
    }
    out << line << "\n";
  }
  file.commit();
}

std::string tokens(double v) {
  const auto n = std::int64_t(v);
  if (n >= 1024 && n % 1024 == 0) return fmt::format("{}K", n / 1024);
  return fmt::format("{}", n);
}

void print_table(const ModelRun& run, std::ostream& out) {
  out << describe_run(run) << "\n";
  // Columns: the swept keys (or L and S), then the model's main outputs.
  std::vector<std::string> head;
  if (run.swept_keys.empty()) head = {"L", "S"};
  for (const auto& k : run.swept_keys) head.push_back(k);
  const std::vector<std::string> cols = {"regime", "waves", "TFLOP",     "L2 GB",   "DRAM id GB",
                                         "DRAM re GB", "DRAM GB", "GenZ GB", "R",  "I",
                                         "lat us", "bound"};
  std::string line;
  for (const auto& h : head) line += fmt::format("{:>10} ", h);
  for (const auto& c : cols) line += fmt::format("{:>10} ", c);
  out << line << "\n";
  for (const auto& p : run.points) {
    const auto& r = p.result;
    line.clear();
    if (run.swept_keys.empty()) {
      line += fmt::format("{:>10} {:>10} ", tokens(double(p.shape.seqlen_q)),
                          tokens(double(p.shape.seqlen_kv)));
    }
    for (std::size_t i = 0; i < run.swept_keys.size(); ++i) {
      const auto& k = run.swept_keys[i];
      const bool seq = k.rfind("seqlen", 0) == 0;
      line += fmt::format("{:>10} ", seq ? tokens(p.swept[i]) : fmt::format("{:g}", p.swept[i]));
    }
    line += fmt::format("{:>10} {:>10g} {:>10.3f} {:>10.3f} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} "
                        "{:>10.1f} {:>10.1f} {:>10.1f} {:>10}",
                        model::regime_name(r.regime), r.waves, r.flops / 1e12, r.l2_bytes / 1e9,
                        r.dram_ideal_bytes / 1e9, r.dram_real_bytes / 1e9, r.dram_bytes / 1e9,
                        r.genz_dram_bytes / 1e9, r.r_traffic, r.intensity, r.latency_us,
                        model::bound_name(r.bound));
    out << line << "\n";
  }
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "analyze",
      "analytic model of FlashAttention (paper §3): FLOPs, L2 and DRAM traffic, regimes, latency "
      "estimate and the GenZ / LLM-Viewer baselines");
  struct Opts {
    ModelFlags flags;
    std::string json, csv;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  add_model_flags(cmd, o->flags);
  cmd->add_option("--json", o->json, "write every input and output field of every point to FILE")
      ->check(output_file());
  cmd->add_option("--csv", o->csv, "write one CSV row per point to FILE")->check(output_file());
  cmd->add_flag("-q,--quiet", o->quiet, "do not print the table");
  cmd->footer(
      "Examples:\n"
      "  simfa analyze --model llama3-405b --seqlen 64K --gpu h800\n"
      "  simfa analyze --model llama3-405b --gpu h800 --sweep seqlen=16K:64K:8K --csv out.csv\n"
      "  simfa analyze --model llama3-8b --seqlen-q 1 --seqlen-kv 128K   (decode, split-KV)\n"
      "  simfa analyze --model llama3-405b --gpu gb10 --kernel cutile --sweep seqlen=16K:64K:8K   (paper §6)\n"
      "  simfa analyze --model llama3-405b --sweep fa3.tile_m=64,128,192 --set fa3.tile_n=128\n"
      "The model's knobs are configuration keys (--set fa3.tile_m=64, docs/configuration.md); --kernel, --tile-m,\n"
      "--tile-n, --occupancy, --num-sms, --l2-effective-mib, --splits and --pack-gqa are aliases of them.\n"
      "Field definitions: docs/analytic-model.md.");
  cmd->callback([o] {
    const ModelRun run = evaluate_model(o->flags);
    if (!o->quiet) print_table(run, report_stream({o->json, o->csv}));
    if (!o->json.empty()) {
      nlohmann::ordered_json j;
      j["gpu"] = {{"name", run.gpu.name},
                  {"arch", run.gpu.arch},
                  {"num_sms", run.gpu.num_sms},
                  {"clock_hz", run.gpu.clock_hz},
                  {"l2_bytes", run.gpu.l2_bytes},
                  {"l2_partitions", run.gpu.l2_partitions},
                  {"l2_bytes_per_cycle", run.gpu.l2_bytes_per_cycle},
                  {"dram_bytes_per_s", run.gpu.dram_bytes_per_s},
                  {"flops_per_cycle_16bit", run.gpu.flops_per_cycle_16bit},
                  {"flops_per_cycle_fp8", run.gpu.flops_per_cycle_fp8}};
      j["model"] = run.model;
      j["swept"] = run.swept_keys;
      j["warnings"] = run.warnings;
      nlohmann::ordered_json units;
      for (const auto& fd : model::result_fields()) units[fd.name] = fd.unit;
      j["units"] = units;
      j["points"] = nlohmann::ordered_json::array();
      for (const auto& p : run.points) j["points"].push_back(point_json(p));
      write_json_file(o->json, j);
    }
    if (!o->csv.empty()) write_csv(o->csv, run);
  });
}

}  // namespace simfa::cli
