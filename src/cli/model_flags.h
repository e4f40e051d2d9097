// Command-line pieces shared by `simfa analyze` and `simfa plot`: the workload and model flags,
// --sweep parsing, and evaluation of every sweep point through the analytic model.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "cli/workload_flags.h"
#include "model/analysis.h"

namespace simfa::cli {

// The workload flags are `simfa run`'s (cli/workload_flags.h, without --ablate); the model's own
// flags are kept as text and parsed by the model's rules, so every error names its flag.
struct ModelFlags {
  WorkloadFlags w;
  std::string kernel = "fa3", tile_m, tile_n, occupancy, num_sms, l2_effective_mib;
  std::string splits = "auto", pack_gqa = "auto";
  std::vector<std::string> sweeps;
};

void add_model_flags(CLI::App* app, ModelFlags& f);

// The subcommands (cmd_analyze.cpp, cmd_plot.cpp); main.cpp registers them.
void add_analyze_command(CLI::App& app);
void add_plot_command(CLI::App& app);

struct ModelPoint {
  spec::AttentionShape shape;
  model::ModelOptions opt;
  std::vector<double> swept;  // values of ModelRun::swept_keys at this point
  model::Result result;
};

struct ModelRun {
  model::GpuSpec gpu;
  std::string model;                     // preset name or ""
  std::vector<std::string> swept_keys;   // canonical snake_case keys, in --sweep order
  std::vector<ModelPoint> points;        // cartesian product, last sweep fastest
};

// Parses the flags, expands the sweeps and evaluates each point. Without --seqlen and --sweep,
// `default_sweep` applies, or L = S = 6144 (simfa run's default) when it is empty. Throws
// UserError naming the flag.
ModelRun evaluate_model(const ModelFlags& f, std::string_view default_sweep = "");

// One point as a JSON object: inputs, then every model::result_fields() entry.
nlohmann::ordered_json point_json(const ModelPoint& p);
// "8 x 16 heads, D 128, fp16" style one-line description of a run's common inputs.
std::string describe_run(const ModelRun& run);

}  // namespace simfa::cli
