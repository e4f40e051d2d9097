// Registration of every subcommand. Each is defined in its own cmd_*.cpp file.
#pragma once
#include <CLI/CLI.hpp>

namespace simfa::cli {
void add_trace_commands(CLI::App& app);
void add_config_commands(CLI::App& app);
void add_run_command(CLI::App& app);             // cmd_run.cpp
void add_trace_gen_command(CLI::App& trace);     // cmd_trace_gen.cpp
void add_translate_command(CLI::App& app);       // cmd_translate.cpp
void add_validate_command(CLI::App& app);        // cmd_validate.cpp
void add_ablate_command(CLI::App& app);          // cmd_ablate.cpp
void add_microbench_command(CLI::App& app);      // cmd_microbench.cpp
void add_sweep_command(CLI::App& app);           // cmd_sweep.cpp (src/study)
void add_report_command(CLI::App& app);          // cmd_report.cpp
}  // namespace simfa::cli
