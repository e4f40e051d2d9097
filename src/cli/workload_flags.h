// The one set of command-line flags that describe an attention workload (shape, model preset, GPU),
// shared by `simfa run`, `simfa trace gen`, `simfa validate`, `simfa ablate` (simulation) and
// `simfa analyze`, `simfa plot` (the analytic model, cli/model_flags.h). One resolver
// (model::resolve_point) turns them into a shape for both.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/common.h"
#include "model/inputs.h"
#include "spec/attention.h"

namespace simfa::cli {

inline constexpr std::int64_t kDefaultSeqlen = 6144;  // L = S when no length is given

struct WorkloadFlags {
  std::string model = "llama3-405b";  // preset for heads and head_dim; "none" = give them all
  std::int64_t batch = 1;
  std::optional<std::int64_t> seqlen;                    // none given: L = S = kDefaultSeqlen
  std::int64_t seqlen_q = 0, kv_seqlen = 0;              // 0: not given
  std::int64_t heads_kv = 0, group = 0, head_dim = 0;    // 0: from the model preset
  std::string dtype = "fp16";
  bool causal = false;
  double clock_mhz = 0;  // 0: the GPU preset's clock
  bool clock_measured = false;  // clock_mhz was measured during the run: simulate at it exactly
  GpuOptions gpu;
};

// Adds --model, --batch, --seqlen, --seqlen-q, --kv-seqlen (--seqlen-kv), --heads-kv, --group,
// --head-dim, --dtype, --causal, --clock-mhz and the GPU options (--gpu, --set, and --ablate
// when `ablate`).
void add_workload_flags(CLI::App* app, WorkloadFlags& f, bool ablate = true);
// The model's inputs the flags state (0 = not given stays absent), for model::resolve_point.
model::PointInputs point_inputs(const WorkloadFlags& f);
// The shape the flags describe (preset values, then explicit flags), validated. UserError names
// the flag.
spec::AttentionShape workload_shape(const WorkloadFlags& f);
// The configuration: GPU preset, --set, --ablate, then --clock-mhz, then the clock model
// (gpu.clock_model: the power limit); what the clock model chose goes to `clock` when given.
Config workload_config(const WorkloadFlags& f, ClockChoice* clock = nullptr);
// Simulates the FA3 forward kernel for a shape on the configuration's GPU (all gpu.num_sms SMs):
// the path of `simfa run`, shared by `simfa validate` and `simfa ablate`.
RunResult simulate_workload(const spec::AttentionShape& s, const Config& cfg, const RunOptions& ro = {});

}  // namespace simfa::cli
