// The one set of command-line flags that describe a workload (which one, its shape, the model
// preset of an attention shape, the GPU), shared by `simfa run`, `simfa trace gen`, `simfa
// validate`, `simfa ablate` (simulation) and `simfa analyze`, `simfa plot` (the analytic model of
// attention, cli/model_flags.h). The flags become the chosen workload's shape keys
// (api/workload.h) and its factory builds the workload; for attention, one resolver
// (model::resolve_point) turns them into a shape for both the simulator and the model.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "api/fa3_workload.h"
#include "api/workload.h"
#include "cli/common.h"
#include "model/inputs.h"
#include "spec/attention.h"

namespace simfa::cli {

inline constexpr std::int64_t kDefaultSeqlen = kFa3DefaultSeqlen;  // L = S when no length is given

struct WorkloadFlags {
  std::string workload = "fa3";       // the registry's name (api/workload.h)
  std::string model = "llama3-405b";  // preset for heads and head_dim; "none" = give them all
  std::int64_t batch = 1;
  std::optional<std::int64_t> seqlen;                    // none given: L = S = kDefaultSeqlen
  std::int64_t seqlen_q = 0, seqlen_kv = 0;              // 0: not given
  std::int64_t heads_kv = 0, group = 0, head_dim = 0;    // 0: from the model preset
  std::int64_t m = 0, n = 0, k = 0;                      // GEMM; 0: not given
  std::string dtype = "fp16";
  bool causal = false;
  double clock_mhz = 0;  // 0: the GPU preset's clock
  bool clock_measured = false;  // clock_mhz was measured during the run: simulate at it exactly
  GpuOptions gpu;
};

// Adds --workload, the attention flags --model, --batch, --seqlen, --seqlen-q, --seqlen-kv
// (alias --kv-seqlen), --heads-kv, --group, --head-dim, --dtype, --causal, the GEMM flags --m, --n, --k,
// then --clock-mhz and the GPU options (--gpu, --set, and --ablate when `ablate`). Without
// `workloads` (the analytic model of attention: simfa analyze, simfa plot), no --workload and no
// GEMM flags.
void add_workload_flags(CLI::App* app, WorkloadFlags& f, bool ablate = true, bool workloads = true);
// UserError when a shape flag given on `app` is not one of the chosen workload's keys
// ("--head-dim does not apply to --workload gemm (its flags: ...)"); also an unknown --workload.
void check_workload_flags(const CLI::App& app, const WorkloadFlags& f);
// The chosen workload's shape keys the flags give (preset defaults stay the workload's).
WorkloadArgs workload_args(const WorkloadFlags& f);
// The workload the flags describe on the configuration's GPU (all gpu.num_sms SMs): the path of
// `simfa run`, shared by `simfa trace gen`, `simfa validate` and `simfa ablate`.
std::unique_ptr<Workload> make_workload(const WorkloadFlags& f, const Config& cfg);
// The model's inputs the flags state (0 = not given stays absent), for model::resolve_point.
model::PointInputs point_inputs(const WorkloadFlags& f);
// The attention shape the flags describe (preset values, then explicit flags), validated. UserError
// names the flag. (For the FA3 paths that need the shape itself: translated logs.)
spec::AttentionShape workload_shape(const WorkloadFlags& f);
// The configuration: GPU preset, --set, --ablate, then --clock-mhz, then the clock model
// (gpu.clock_model: the power limit); what the clock model chose goes to `clock` when given.
Config workload_config(const WorkloadFlags& f, ClockChoice* clock = nullptr);

}  // namespace simfa::cli
