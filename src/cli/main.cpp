// simfa: the command-line program. Exit codes: 0 success, 2 bad input of any kind, 3 simulated
// deadlock, 1 internal error.
#include <iostream>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/progress.h"
#include "cli/commands.h"
#include "cli/model_flags.h"
#include "sim/error.h"
#include "sim/version.h"

namespace {

// Messages may carry raw input (a token of a trace, a cell of a CSV, a command-line word): control
// bytes (NUL, terminal escape sequences) are shown as \xNN, line breaks kept only where `lines`,
// and a message is cut after 4096 bytes per line. Most readers quote what they echo already
// (sim/files.h); this is the last line of defence before the terminal.
std::string safe(std::string_view text, bool lines) {
  constexpr std::size_t kMaxLine = 4096;
  std::string out;
  std::size_t on_line = 0, cut = 0;
  auto flush_cut = [&] {
    if (cut) out += fmt::format("... ({} more bytes)", cut);
    cut = 0;
  };
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\n' && lines) {
      flush_cut();
      out += ch;
      on_line = 0;
      continue;
    }
    if (on_line >= kMaxLine) {
      ++cut;
      continue;
    }
    if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += ch;
    ++on_line;
  }
  flush_cut();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  simfa::cli::install_interrupt_handler();
  CLI::App app{"simfa: cycle-level simulation of FlashAttention on Hopper GPUs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fmt::format("simfa {} ({})", simfa::kSimfaVersion, simfa::kSimfaCommit));
  simfa::cli::add_trace_commands(app);
  simfa::cli::add_config_commands(app);
  simfa::cli::add_run_command(app);
  simfa::cli::add_translate_command(app);
  simfa::cli::add_validate_command(app);
  simfa::cli::add_ablate_command(app);
  simfa::cli::add_microbench_command(app);
  simfa::cli::add_analyze_command(app);
  simfa::cli::add_plot_command(app);
  simfa::cli::add_sweep_command(app);
  simfa::cli::add_report_command(app);
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
      // One line, like every other bad input.
      std::cerr << "simfa: error: " << safe(e.what(), false) << " (--help lists the options)\n";
      return 2;
    }
  } catch (const simfa::UserError& e) {
    std::cerr << "simfa: error: " << safe(e.what(), false) << "\n";
    return 2;
  } catch (const simfa::InterruptedError& e) {
    std::cerr << "\nsimfa: " << safe(e.what(), false) << "\n";
    return 130;
  } catch (const simfa::DeadlockError& e) {
    std::cerr << "simfa: " << safe(e.what(), false) << "\n" << safe(e.report(), true);
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "simfa: internal error: " << safe(e.what(), false) << "\n";
    return 1;
  }
  return 0;
}
