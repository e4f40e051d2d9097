// Registration of every subcommand. Each is defined in its own cmd_*.cpp file.
#pragma once
#include <CLI/CLI.hpp>

namespace simfa::cli {
void add_trace_commands(CLI::App& app);
void add_config_commands(CLI::App& app);
// Lets the workload library add `simfa trace gen` under `simfa trace` (no-op until it exists).
void add_trace_gen_hook(CLI::App& trace);
}  // namespace simfa::cli
