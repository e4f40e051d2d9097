// Default (empty) hooks for subcommands whose libraries are not built yet.
#include "cli/commands.h"

namespace simfa::cli {
void add_trace_gen_hook(CLI::App&) {}
}  // namespace simfa::cli
