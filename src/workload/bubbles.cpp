// The paper §5.2 bubble formula (each CUDA-core step costs ceil(element operations / unit rate))
// and the pipe model (per-thread instruction counts on one SM sub-partition's pipes, with the
// softmax's dependency chains).
#include "workload/bubbles.h"

#include "sim/config.h"

#include <cmath>

namespace simfa::workload {

namespace {
std::uint32_t cdiv(double ops, int rate) {
  return static_cast<std::uint32_t>(std::ceil(ops / static_cast<double>(rate)));
}
}  // namespace

BubbleCosts compute_bubbles(int rows, int n, int d, int elem_bytes, int out_bytes,
                            double mask_ops_per_element, const UnitRates& r) {
  const double s = double(rows) * n;  // score elements of one block
  const double o = double(rows) * d;  // O accumulator elements
  BubbleCosts b;
  b.rowmax = cdiv(s, r.fp32_ops);
  b.exp = cdiv(s, r.mufu_ops);
  b.rowsum = cdiv(s, r.fp32_ops);
  b.convert_p = cdiv(s, r.fp16_ops);
  b.rescale_o = cdiv(o, r.fp32_ops);
  b.mask = cdiv(s * mask_ops_per_element, r.fp32_ops);
  b.zero_o = cdiv(o, r.fp32_ops);
  b.convert_o = cdiv(o, r.fp16_ops);
  b.stsm_o = cdiv(o * out_bytes, r.smem_bytes);
  b.stsm_p = cdiv(s * elem_bytes, r.smem_bytes);
  return b;
}

PipeRates pipe_rates(const Config& cfg) {
  PipeRates p{};
  p.fp32 = static_cast<double>(cfg.i("sm.fp32_ops_per_cycle"));
  p.alu = cfg.f("sm.alu_ops_per_cycle");
  p.mufu = static_cast<double>(cfg.i("sm.mufu_ops_per_cycle"));
  p.shfl = cfg.f("sm.shfl_ops_per_cycle");
  p.fp32_latency = cfg.f("sm.fp32_latency");
  p.alu_latency = cfg.f("sm.alu_latency");
  p.mufu_latency = cfg.f("sm.mufu_latency");
  p.shfl_latency = cfg.f("sm.shfl_latency");
  p.smem_bytes = static_cast<int>(cfg.i("sm.smem_bytes_per_cycle"));
  return p;
}

WarpPipeCycles warp_pipe_cycles(const PipeRates& r) {
  constexpr double kSubPartitions = 4.0, kWarp = 32.0;
  return {kWarp / (r.fp32 / kSubPartitions), kWarp / (r.alu / kSubPartitions), kWarp / (r.mufu / kSubPartitions)};
}

BubbleCosts compute_bubbles_pipes(int rows, int n, int d, int elem_bytes, int out_bytes,
                                  double mask_ops_per_element, const PipeRates& r) {
  // One warp per sub-partition, each warp instruction holding its pipe (warp_pipe_cycles).
  const WarpPipeCycles wc = warp_pipe_cycles(r);
  const double c_fp32 = wc.fp32, c_alu = wc.alu, c_mufu = wc.mufu;
  const double threads = 128.0;                        // one WarpGroup
  const double s_elems = double(rows) * n / threads;   // score elements per thread (88 for 64 x 176)
  const double rows_per_thread = double(rows) / 32.0;  // 2: the m64 fragment's rows g and g + 8
  const double e = s_elems / rows_per_thread;          // elements per row per thread (n / 4)
  const double o_elems = double(rows) * d / threads;   // O accumulator elements per thread (d / 2)
  auto up = [](double x) { return static_cast<std::uint32_t>(std::ceil(x - 1e-9)); };
  BubbleCosts b;
  // Row max: a dependent FMNMX chain over the row's e elements (the rows interleave, so the ALU's
  // issue rate can bind instead), then two butterfly rounds (SHFL + FMNMX) across the quad.
  b.rowmax = up(std::max(e * r.alu_latency, s_elems * c_alu) + 2 * (r.shfl_latency + r.alu_latency));
  // exp2(x * scale - max): FFMA + MUFU.EX2 per element plus one exp per row for the rescale
  // factor; MUFU-bound.
  b.exp = up((s_elems + rows_per_thread) * c_mufu);
  // Row sum: FADD chains fed by the exps, done one MUFU and one FADD latency after the last exp.
  b.rowsum = up(r.mufu_latency + r.fp32_latency);
  b.convert_p = up(s_elems / 2 * c_alu);  // F2FP packs two scores per instruction
  b.rescale_o = up(o_elems * c_fp32);     // one FMUL per O element
  b.mask = up(mask_ops_per_element * s_elems * c_fp32);
  b.zero_o = up(o_elems * c_fp32);
  b.convert_o = up(o_elems / 2 * c_alu);
  b.stsm_o = cdiv(double(rows) * d * out_bytes, r.smem_bytes);
  b.stsm_p = cdiv(double(rows) * n * elem_bytes, r.smem_bytes);
  return b;
}

}  // namespace simfa::workload
