// The GEMM workload behind the workload interface (api/workload.h): the persistent
// warp-specialized GEMM of workload/gemm/, its shape keys, its FLOPs (2·B·M·N·K) and its analytic
// counterpart, a roofline with the kernel's tile waves and its ideal traffic (docs/workloads.md).
#pragma once
#include <iterator>
#include <memory>
#include <string>

#include "api/workload.h"
#include "workload/gemm/gemm_source.h"

namespace simfa {

inline constexpr WorkloadKey kGemmKeys[] = {
    {"batch", "--batch", "independent GEMMs (C[b] = A[b] · B[b]^T)"},
    {"m", "--m", "rows of A and C"},
    {"n", "--n", "rows of B, columns of C"},
    {"k", "--k", "the reduction dimension: columns of A and B"},
    {"dtype", "--dtype", "fp16 | bf16 | fp8_e4m3 (A and B; FP32 accumulation; C is fp16/bf16, bf16 for fp8)"},
};

workload::gemm::GemmShape gemm_shape(const WorkloadArgs& args);
std::unique_ptr<Workload> make_gemm_workload(const WorkloadArgs& args, const Config& cfg);

// The bytes the kernel's tiles move through the L2: every output tile loads its rows of A and B
// over all of K (rows past M or N are not fetched), and C is written once.
double gemm_tile_traffic_bytes(const workload::gemm::GemmKernel& k);
// The compulsory DRAM traffic: A and B read once, C written once.
double gemm_ideal_dram_bytes(const workload::gemm::GemmShape& s);

class GemmWorkload final : public Workload {
 public:
  GemmWorkload(const workload::gemm::GemmShape& s, const Config& cfg);
  std::string_view kind() const override { return "gemm"; }
  trace::TraceSource& source() override { return src_; }
  std::string shape_line() const override;
  std::string kernel_line() const override;
  double nominal_flops() const override;
  double tensor_flops_per_cycle(const Config& cfg) const override;
  AnalyticFigures analytic(const Config& cfg, const std::string& gpu_name) const override;
  nlohmann::ordered_json shape_json() const override;

  const workload::gemm::GemmKernel& kernel() const { return src_.gemm(); }

 private:
  workload::gemm::GemmSource src_;
};

}  // namespace simfa
