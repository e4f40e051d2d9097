#include "api/gemm_workload.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/gpu_spec.h"
#include "sim/error.h"

namespace simfa {

using workload::gemm::GemmKernel;
using workload::gemm::GemmShape;

GemmShape gemm_shape(const WorkloadArgs& a) {
  GemmShape s;
  s.batch = a.integer("batch").value_or(1);
  if (s.batch < 1) user_error("{} must be at least 1, got {}", a.label("batch"), s.batch);
  auto dim = [&](const char* key) {
    const auto v = a.integer(key);
    if (!v) user_error("the gemm workload needs {}, {} and {}: {} is missing", a.label("m"), a.label("n"),
                       a.label("k"), a.label(key));
    if (*v < 1) user_error("{} must be at least 1, got {}", a.label(key), *v);
    return *v;
  };
  s.m = dim("m");
  s.n = dim("n");
  s.k = dim("k");
  s.dtype = spec::parse_dtype(a.has("dtype") ? *a.find("dtype") : "fp16", a.label("dtype"));
  return s;
}

std::unique_ptr<Workload> make_gemm_workload(const WorkloadArgs& args, const Config& cfg) {
  // The GEMM's roofline reads model.dram_bandwidth only; the attention model's keys would be
  // accepted and ignored.
  for (const char* key : {"model.l2_effective", "model.l2_bytes_per_cycle", "model.occupancy"})
    if (cfg.origin(key) == "--set")
      user_error("{} = {} ({}) configures the attention analytic model, which a gemm run does not use (its "
                 "roofline reads model.dram_bandwidth): drop it",
                 key, cfg.render(key), cfg.origin(key));
  return std::make_unique<GemmWorkload>(gemm_shape(args), cfg);
}

double gemm_tile_traffic_bytes(const GemmKernel& k) {
  const GemmShape& s = k.shape;
  const double per_batch = double(k.tiles_n) * double(s.m) * double(s.k) * k.elem_bytes +
                           double(k.tiles_m) * double(s.n) * double(s.k) * k.elem_bytes +
                           double(s.m) * double(s.n) * k.out_bytes;
  return per_batch * double(s.batch);
}

double gemm_ideal_dram_bytes(const GemmShape& s) {
  return double(s.batch) * ((double(s.m) + double(s.n)) * double(s.k) * spec::dtype_bytes(s.dtype) +
                            double(s.m) * double(s.n) * spec::dtype_out_bytes(s.dtype));
}

GemmWorkload::GemmWorkload(const GemmShape& s, const Config& cfg)
    : src_(s, cfg, static_cast<int>(cfg.i("gpu.num_sms"))) {}

std::string GemmWorkload::shape_line() const {
  const GemmShape& s = kernel().shape;
  return fmt::format("B {} x M {} x N {} x K {}, {}", s.batch, s.m, s.n, s.k, spec::dtype_name(s.dtype));
}

std::string GemmWorkload::kernel_line() const {
  const GemmKernel& k = kernel();
  return fmt::format("{}: tile {}x{}x{}, {} consumer WGs ({}), {} stages, grid {}, static persistent scheduler",
                     k.name(), k.tile_m, k.tile_n, k.tile_k, k.consumer_wgs, workload::gemm::schedule_name(k.schedule),
                     k.stages, k.grid);
}

double GemmWorkload::nominal_flops() const {
  const GemmShape& s = kernel().shape;
  return 2.0 * double(s.batch) * double(s.m) * double(s.n) * double(s.k);
}

double GemmWorkload::tensor_flops_per_cycle(const Config& cfg) const {
  return kernel().shape.dtype == spec::DType::FP8_E4M3 ? cfg.f("tensor.flops_per_cycle_fp8")
                                                       : cfg.f("tensor.flops_per_cycle_16bit");
}

// A roofline with the kernel's tile waves: the busiest CTA computes ceil(tiles / grid) whole tiles
// at the SM's tensor peak, or the compulsory DRAM bytes move at the DRAM bandwidth, whichever is
// longer. No pipeline fill, epilogue, L2 or latency term: a lower bound, not a prediction.
AnalyticFigures GemmWorkload::analytic(const Config& cfg, const std::string&) const {
  const GemmKernel& k = kernel();
  AnalyticFigures f;
  f.ok = true;
  f.name = "analytic roofline";
  const double clock = cfg.f("gpu.clock");
  const double waves = k.grid ? double((k.total_tiles() + k.grid - 1) / k.grid) : 0;
  const double tile_flops = 2.0 * k.tile_m * k.tile_n * double(k.k_blocks) * k.tile_k;
  const double compute_s = waves * tile_flops / tensor_flops_per_cycle(cfg) / clock;
  const double dram = gemm_ideal_dram_bytes(k.shape);
  const double dram_s = dram / model::GpuSpec::from_config(cfg).dram_bytes_per_s;
  const double l2 = gemm_tile_traffic_bytes(k);
  f.latency_us = std::max(compute_s, dram_s) * 1e6;
  f.bound = compute_s >= dram_s ? "compute" : "dram";
  f.l2_note = fmt::format("tiles' traffic: {:.4g}", l2);
  f.dram_note = fmt::format("compulsory: {:.4g}", dram);
  f.json = {{"model", "roofline with tile waves (docs/workloads.md)"},
            {"flops", nominal_flops()},
            {"waves", waves},
            {"l2_bytes", l2},
            {"dram_ideal_bytes", dram},
            {"latency_us", f.latency_us},
            {"bound", f.bound}};
  return f;
}

nlohmann::ordered_json GemmWorkload::shape_json() const {
  const GemmShape& s = kernel().shape;
  return {{"name", "gemm"}, {"batch", s.batch}, {"m", s.m}, {"n", s.n}, {"k", s.k},
          {"dtype", spec::dtype_name(s.dtype)}, {"kernel", kernel_line()}};
}

}  // namespace simfa
