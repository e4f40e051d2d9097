// Shared command-line pieces: GPU/config options, JSON output, summaries.
#pragma once
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "api/run.h"

namespace simfa::cli {

struct GpuOptions {
  std::string gpu = "h800";
  std::vector<std::string> sets;
  std::vector<std::string> ablations;
};

// Adds --gpu, --set and (when `ablate`) --ablate to a subcommand.
void add_gpu_options(CLI::App* app, GpuOptions& o, bool ablate = true);
Config make_config(const GpuOptions& o);
// `--kernel NAME` (fa3.kernel's choices): sets fa3.kernel as --set does (set_alias). UserError for
// another name, or when --set gave fa3.kernel a different value.
void set_kernel(Config& cfg, const std::string& name);

// Writes JSON to a file with a trailing newline, atomically (sim/files.h: UserError naming the file
// when it cannot).
void write_json_file(const std::string& path, const nlohmann::ordered_json& j);
// For options naming an output file: checked when the command line is parsed, before anything
// runs (sim/files.h check_output_path: the folder exists and can be written, the name is no
// folder), so a typo does not lose a long run; "-" is standard output.
CLI::Validator output_file();
// The same for an output folder (a trace directory; check_output_dir).
CLI::Validator output_dir();
// Where a command prints its report: standard error when one of its outputs goes to standard
// output ("-"), so that what goes there stays one clean document; standard output otherwise.
std::ostream& report_stream(std::initializer_list<std::string_view> outputs);

// An integer with an optional binary suffix (16K = 16384, 1M = 1048576); nullopt if not one.
std::optional<double> parse_count_text(std::string_view t);
// A finite real number; nullopt if not one.
std::optional<double> parse_real_text(std::string_view t);

// The human summary of a run: cycles, time, engines' busy fractions, simulation speed.
std::string run_summary(const RunResult& r, int num_sms);

}  // namespace simfa::cli
