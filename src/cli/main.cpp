// simfa: the command-line program. Exit codes: 0 success, 2 bad input of any kind, 3 simulated
// deadlock, 1 internal error.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/model_flags.h"
#include "sim/error.h"

int main(int argc, char** argv) {
  CLI::App app{"simfa: cycle-level simulation of FlashAttention on Hopper GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "simfa 0.1.0");
  simfa::cli::add_trace_commands(app);
  simfa::cli::add_config_commands(app);
  simfa::cli::add_run_command(app);
  simfa::cli::add_translate_command(app);
  simfa::cli::add_validate_command(app);
  simfa::cli::add_ablate_command(app);
  simfa::cli::add_microbench_command(app);
  simfa::cli::add_analyze_command(app);
  simfa::cli::add_plot_command(app);
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int rc = app.exit(e);
      return rc == 0 ? 0 : 2;
    }
  } catch (const simfa::UserError& e) {
    std::cerr << "simfa: error: " << e.what() << "\n";
    return 2;
  } catch (const simfa::DeadlockError& e) {
    std::cerr << "simfa: " << e.what() << "\n" << e.report();
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "simfa: internal error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
