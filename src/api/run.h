// The library's front door: the full parameter registry, configurations from presets and
// overrides, and running a trace on the simulated GPU.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/gpu.h"
#include "core/observer.h"
#include "sim/config.h"
#include "sim/types.h"
#include "trace/source.h"

namespace simfa {

// Every configuration key of every library, registered once.
const ParamRegistry& param_registry();

// A configuration: the registry's defaults, then the GPU preset or file, then `key=value`
// overrides in order, then the ablations ("no-lrc", "simple-hash", "no-dedup").
Config make_config(std::string_view gpu, const std::vector<std::string>& sets = {},
                   const std::vector<std::string>& ablations = {});
// UserError (exit 2) when the cycle simulator does not model the configuration's GPU architecture
// (gpu.arch, core::gpu_archs(): every one but hopper), naming the architecture, where it was set
// and what simulating it would need. Every simulating path calls it before it builds anything:
// run_trace (simfa run, trace run, validate, ablate, microbench, Python simfa.run and run_trace)
// and make_workload (trace gen too); a caller that simulates by other means calls it itself.
void require_simulatable(const Config& cfg);
// UserError for a --set key of a workload (fa3.*, gemm.*, sample.*) or of the analytic model
// (model.*): for commands that run no workload (microbench, trace run, Python's run_trace), where such a key would be
// accepted and ignored. `why` says what the command runs instead.
void refuse_workload_keys(const Config& cfg, std::string_view command, std::string_view why);

// Sets configuration key `key` to `value` from an alias flag or keyword that names it
// (`--tile-m 64` is `--set fa3.tile_m=64`), recording `origin` ("--tile-m"). UserError when the
// value is bad (naming `origin` and the key) or when --set gave the key a different value.
void set_alias(Config& cfg, std::string_view key, std::string_view value, std::string_view origin);
// Sets the SM clock (`gpu.clock`) to `mhz` MHz, recording `origin`; UserError "`what` must be at
// least 1 (MHz), got ..." below 1 MHz or for NaN.
void set_clock_mhz(Config& cfg, double mhz, std::string_view what, std::string_view origin);

// The clock a kernel run (FA3 or a trace; not a microbenchmark) simulates at (gpu.clock_model): 'power-limited' lowers gpu.clock
// to gpu.power_limited_clock when that is lower, 'fixed' keeps it. Sets gpu.clock to the result
// (recording why) and says what it did, for the run's report.
struct ClockChoice {
  double requested_hz = 0, effective_hz = 0;
  std::string why;  // one line: "1531 MHz: power-limited (gpu.power_limited_clock, ...)"
};
ClockChoice apply_clock_model(Config& cfg);
// Applies one ablation of the paper's Table 5 to a configuration. Throws UserError for an unknown name.
void apply_ablation(Config& cfg, std::string_view name);
const std::vector<std::string>& ablation_names();
// "Table 5 wording (name)": "No LRC (no-lrc)". UserError for an unknown name.
std::string ablation_label(std::string_view name);

struct RunOptions {
  bool skip_idle = true;             // false: the reference mode that ticks everything every cycle
  core::Observer* observer = nullptr;
  // Called now and then during the run (core::Gpu::run) with where it stands; may throw to end it.
  std::function<void(const core::RunProgress&)> poll;
};

struct RunResult {
  Cycle cycles = 0;
  double clock_hz = 0;
  double latency_us = 0;
  double sim_wall_s = 0;
  double sim_cycles_per_s = 0;
  std::uint64_t ctas = 0;
  std::uint64_t events = 0;  // engine messages processed
  std::uint64_t ticks = 0;   // component ticks processed
  nlohmann::ordered_json stats;  // {name: value}
  nlohmann::json stat_docs;      // {name pattern: {unit, doc}}
  trace::SamplingReport sampling;  // what a sampled run fast-forwarded (docs/sampling.md)
  // The statistic `name`; InternalError when this run has none of that name (a misspelt name is
  // never read as 0). For a statistic that only some memory models produce, use find_stat.
  double stat(const std::string& name) const;
  // The statistic `name`, or nullopt when this run's configuration does not model it (the L2 and
  // DRAM statistics under mem.model = fixed).
  std::optional<double> find_stat(const std::string& name) const;
};

// Runs the trace to completion. Throws UserError for bad input and DeadlockError when the kernel
// can never finish (its report names every blocked WarpGroup).
RunResult run_trace(trace::TraceSource& src, const Config& cfg, const RunOptions& opts = {});

// The whole result as JSON: cycles, latency_us, sim_wall_s, sim_cycles_per_s, config, stats.
nlohmann::ordered_json result_json(const RunResult& r, const Config& cfg);

}  // namespace simfa
