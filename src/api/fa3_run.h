// The figures a FlashAttention-3 run is reported with, shared by `simfa run` and the Python
// `simfa.run`: FLOPs in FA3's convention, throughput against the tensor peak, the analytic model
// for the same shape, GPU, tiles and cluster, and the run's JSON document.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "api/run.h"
#include "model/analysis.h"
#include "spec/attention.h"
#include "workload/fa3_kernel.h"

namespace simfa {

// FLOPs in FA3's own benchmark convention: 4·B·H·L·S·D, halved when causal.
double fa3_nominal_flops(const spec::AttentionShape& s);
// One-line descriptions: "B 1 x H_KV 8 x G 16, L 6144, S 6144, D 128, fp16" and the kernel's
// name, tiles, WarpGroups, stages, cluster, grid, scheduler and pipelining options.
std::string fa3_workload_line(const spec::AttentionShape& s);
std::string fa3_kernel_line(const workload::Fa3Kernel& k);

struct Fa3Figures {
  double tflops = 0;       // fa3_nominal_flops / latency
  double peak_tflops = 0;  // tensor peak of the simulated SMs at the run's clock for the dtype
  // Average utilization of the CUDA-core pipes by the softmax (workload/pipe_use.h): the kernel's
  // instruction counts in pipe cycles over every SM's simulated cycles.
  double mufu_util = 0, fp32_util = 0, alu_util = 0;
  bool analytic_ok = false;
  std::string analytic_error;  // why the model does not cover the configuration
  model::Result analytic;
};

// The analytic model for the simulated kernel's shape, tiles, cluster and GPU (throws when the model
// does not cover the configuration).
model::Result fa3_analytic(const Config& cfg, const std::string& gpu_name, const spec::AttentionShape& s,
                           const workload::Fa3Kernel& k);

// Evaluates the figures of a finished run. `gpu_name` only labels the model's GPU.
Fa3Figures fa3_figures(const RunResult& r, const Config& cfg, const std::string& gpu_name,
                       const spec::AttentionShape& s, const workload::Fa3Kernel& k);

// result_json plus tflops, peak_fraction, l2_bytes, dram_read_bytes, dram_write_bytes, workload
// (shape and kernel) and analytic (the model's figures, or {"error": why}).
nlohmann::ordered_json fa3_result_json(const RunResult& r, const Config& cfg,
                                       const spec::AttentionShape& s, const workload::Fa3Kernel& k,
                                       const Fa3Figures& f);

}  // namespace simfa
