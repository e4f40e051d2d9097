// The FlashAttention-3 workload behind the workload interface (api/workload.h): its shape keys,
// its factory, and the figures a run is reported with: FLOPs in FA3's convention, the analytic
// model for the same shape, GPU, tiles and cluster, and the softmax's CUDA-core pipe utilizations.
#pragma once
#include <iterator>
#include <memory>
#include <string>

#include "api/workload.h"
#include "model/analysis.h"
#include "spec/attention.h"
#include "workload/fa3_kernel.h"
#include "workload/fa3_source.h"

namespace simfa {

inline constexpr std::int64_t kFa3DefaultSeqlen = 6144;  // L = S when no length is given

// FA3's shape keys (the flags of `simfa run`, the keywords of simfa.run, the measurements CSV's
// columns).
inline constexpr WorkloadKey kFa3Keys[] = {
    {"model", "--model", "llama3-8b | llama3-70b | llama3-405b (paper Table 6), or none: heads and head_dim"},
    {"batch", "--batch", "batch size B"},
    {"seqlen", "--seqlen", "query sequence length L; S defaults to it"},
    {"seqlen_q", "--seqlen-q", "query sequence length L (same as seqlen)"},
    {"seqlen_kv", "--seqlen-kv", "key/value sequence length S (default: L)"},
    {"heads_kv", "--heads-kv", "KV heads H_KV (default: the model's)"},
    {"group", "--group", "query heads per KV head G (default: the model's)"},
    {"head_dim", "--head-dim", "head dimension D (default: the model's)"},
    {"dtype", "--dtype", "fp16 | bf16 | fp8_e4m3"},
    {"causal", "--causal", "causal (bottom-right aligned) mask"},
};

// The shape `args` describe (preset values, then explicit keys), validated; UserError names the key.
spec::AttentionShape fa3_shape(const WorkloadArgs& args);
std::unique_ptr<Workload> make_fa3_workload(const WorkloadArgs& args, const Config& cfg);

// FLOPs in FA3's own benchmark convention: 4·B·H·L·S·D, halved when causal with L = S. Causal in
// general (bottom-right aligned): 4·B·H·D·L'(2S - L')/2 with L' = min(L, S), the unmasked pairs
// with the diagonal counted half, so that L != S never reports more work than the mask leaves.
double fa3_nominal_flops(const spec::AttentionShape& s);
// One-line descriptions: "B 1 x H_KV 8 x G 16, L 6144, S 6144, D 128, fp16" and the kernel's
// name, tiles, WarpGroups, stages, cluster, grid, scheduler and pipelining options.
std::string fa3_workload_line(const spec::AttentionShape& s);
std::string fa3_kernel_line(const workload::Fa3Kernel& k);

// fa3.splits for the simulator: UserError for N > 1 (it synthesizes no split-KV); for 0 (FA3's
// heuristic), the warning when the heuristic would split the shape under the kernel's tiles on
// `num_sms` SMs, else "".
std::string fa3_split_warning(const Config& cfg, const workload::Fa3Kernel& k, int num_sms);

// The analytic model for the simulated kernel's shape, tiles, cluster and GPU (throws when the model
// does not cover the configuration).
model::Result fa3_analytic(const Config& cfg, const std::string& gpu_name, const spec::AttentionShape& s,
                           const workload::Fa3Kernel& k);

class Fa3Workload final : public Workload {
 public:
  Fa3Workload(const spec::AttentionShape& s, const Config& cfg);
  std::string_view kind() const override { return "fa3"; }
  trace::TraceSource& source() override { return src_; }
  std::string shape_line() const override { return fa3_workload_line(shape_); }
  std::string kernel_line() const override { return fa3_kernel_line(src_.fa3()); }
  double nominal_flops() const override { return fa3_nominal_flops(shape_); }
  double tensor_flops_per_cycle(const Config& cfg) const override;
  AnalyticFigures analytic(const Config& cfg, const std::string& gpu_name) const override;
  // Average utilization of the CUDA-core pipes by the softmax (workload/pipe_use.h): the kernel's
  // instruction counts in pipe cycles over every SM's simulated cycles.
  std::vector<PipeUse> cuda_pipes(const RunResult& r, const Config& cfg) const override;
  std::string cuda_pipes_line(const std::vector<PipeUse>& pipes) const override;
  nlohmann::ordered_json shape_json() const override;
  // FA3 would split this shape's KV (fa3.splits = 0 and FA3's heuristic says so) where the
  // simulator runs the unsplit kernel.
  std::vector<std::string> warnings() const override { return warnings_; }
  bool log_blocks(std::ostream* os) override {
    src_.log_blocks(os);
    return true;
  }

  const spec::AttentionShape& shape() const { return shape_; }
  workload::Fa3Source& fa3_source() { return src_; }

 private:
  spec::AttentionShape shape_;
  workload::Fa3Source src_;
  std::vector<std::string> warnings_;
};

}  // namespace simfa
