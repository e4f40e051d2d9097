// Pieces shared by `simfa validate` and `simfa ablate` (cmd_validate.cpp).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cli/workload_flags.h"
#include "report/measurements.h"

namespace simfa::cli {

// The workload flags of one CSV case: its shape and dtype, its gpu and clock_mhz when given
// (else the command's --gpu and --clock-mhz), the command's --set and --ablate.
WorkloadFlags flags_for_case(const report::MeasuredCase& m, const GpuOptions& gpu, double clock_mhz);

// Checks every case's shape and configuration (a UserError naming file:line and case) without
// running anything, so a bad last row fails before the first long simulation. With `warn`, prints
// each case's workload warnings (Workload::warnings) on standard error, naming file:line and case.
void check_cases(const std::vector<report::MeasuredCase>& cases, const GpuOptions& gpu, double clock_mhz,
                 const std::vector<std::string>& extra_ablations, bool warn = false);

// Instrumentation logs instead of synthesized traces (`simfa validate --logs`): the case named
// NAME is simulated from DIR/NAME.evlog, translated as `simfa translate --bubbles BUBBLES` would.
struct CaseLogs {
  std::string dir;
  std::string bubbles = "model";  // model | measured
  std::string path(const report::MeasuredCase& m) const;
  bool has(const report::MeasuredCase& m) const;
};

// Runs every case through the path of `simfa run` (workload_config, make_workload of the row's
// workload, run_workload) with `extra_ablations` and `sets` added to the configuration, or, with
// `logs`, through the translation of the case's log (which must describe the row's shape). Errors
// of a case are rethrown naming its file:line and name (the first failing case in the CSV's order).
// `on_case` (may be empty) sees each result, in the CSV's order. `jobs` cases run at once.
std::vector<report::CaseResult> run_cases(const std::vector<report::MeasuredCase>& cases, const GpuOptions& gpu,
                                          double clock_mhz, const std::vector<std::string>& extra_ablations,
                                          const std::function<void(const report::CaseResult&)>& on_case = {},
                                          const CaseLogs* logs = nullptr, unsigned jobs = 1);
// -j's default: every core of the machine.
unsigned default_jobs();

// A note for stderr when the memory model makes ablations of the memory system meaningless.
std::string ablation_note(const Config& cfg, const std::vector<std::string>& ablations);

}  // namespace simfa::cli
