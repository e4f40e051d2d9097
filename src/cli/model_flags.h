// Command-line pieces shared by `simfa analyze` and `simfa plot`: the workload and model flags,
// --sweep parsing, and evaluation of every sweep point through the analytic model.
#pragma once
#include <optional>
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

// The workload flags are `simfa run`'s (cli/workload_flags.h, without --ablate). The model's
// knobs are configuration keys (--set fa3.tile_m=64, docs/configuration.md "One vocabulary"); the
// flags below are exact aliases of them, kept as text and set as --set would
// (kModelAliases in model_flags.cpp): --kernel is fa3.kernel, --tile-m fa3.tile_m, --tile-n
// fa3.tile_n, --occupancy model.occupancy, --num-sms gpu.num_sms, --l2-effective-mib
// model.l2_effective (in MiB), --splits fa3.splits (auto = 0), --pack-gqa fa3.pack_gqa.
struct ModelFlags {
  WorkloadFlags w;
  std::string kernel, tile_m, tile_n, occupancy, num_sms, l2_effective_mib, splits, pack_gqa;
  std::vector<std::string> sweeps;
};

void add_model_flags(CLI::App* app, ModelFlags& f);

// The subcommands (cmd_analyze.cpp, cmd_plot.cpp); main.cpp registers them.
void add_analyze_command(CLI::App& app);
void add_plot_command(CLI::App& app);

struct ModelPoint {
  spec::AttentionShape shape;
  model::ModelOptions opt;
  std::optional<model::GpuSpec> gpu;  // when a --sweep varies a GPU key: this point's GPU
  std::vector<double> swept;  // values of ModelRun::swept_keys at this point
  model::Result result;
};

struct ModelRun {
  model::GpuSpec gpu;
  std::string model;                     // preset name or ""
  // Shape keys (seqlen, ...) and configuration keys (fa3.tile_m, ...; an old alias such as tile_m
  // is named by its key), in --sweep order.
  std::vector<std::string> swept_keys;
  std::vector<ModelPoint> points;        // cartesian product, last sweep fastest
  // What the model says about the GPU and kernel beyond the numbers (model::model_warnings).
  std::vector<std::string> warnings;
};

// Parses the flags, expands the sweeps and evaluates each point. Without --seqlen and --sweep,
// `default_sweep` applies, or L = S = 6144 (simfa run's default) when it is empty. Throws
// UserError naming the flag, and for a --set key the analytic model does not read. Prints the
// run's warnings on standard error ("simfa: warning: ...").
ModelRun evaluate_model(const ModelFlags& f, std::string_view default_sweep = "");

// One point as a JSON object: inputs, then every model::result_fields() entry.
nlohmann::ordered_json point_json(const ModelPoint& p);
// "8 x 16 heads, D 128, fp16" style one-line description of a run's common inputs.
std::string describe_run(const ModelRun& run);

}  // namespace simfa::cli
