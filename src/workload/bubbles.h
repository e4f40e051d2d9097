// Cycle counts of the CUDA-core work between WGMMAs (softmax and friends) of one consumer
// WarpGroup, which owns `rows` (64) query rows of the tile. Two cost models:
// - compute_bubbles: the seed paper §5.2 formula, each term ceil(operations / SM unit throughput);
// - compute_bubbles_pipes: the instruction counts FA3's source executes per thread, on the SM
//   sub-partition's pipes (one warp of the WarpGroup per sub-partition), with the dependency
//   chains that bound them: the row max is a chain of FMNMX plus two shuffle rounds before the
//   first exp can start, the exps are MUFU-bound, the row sum trails the last exp by a MUFU and an
//   FADD latency. Rates and latencies from data/measured/h200/ubench/pipes.csv.
#pragma once
#include <cstdint>

namespace simfa {
class Config;
}  // namespace simfa

namespace simfa::workload {

struct UnitRates {
  int fp32_ops = 128;    // sm.fp32_ops_per_cycle
  int fp16_ops = 256;    // sm.fp16_ops_per_cycle
  int mufu_ops = 16;     // sm.mufu_ops_per_cycle
  int smem_bytes = 128;  // sm.smem_bytes_per_cycle
};

// Pipe rates (lanes per cycle per SM, four sub-partitions) and dependent latencies (cycles): the
// sm.* keys (resolve_fa3 fills them; their defaults are the H200 measurements).
struct PipeRates {
  double fp32, alu, mufu, shfl;
  double fp32_latency, alu_latency, mufu_latency, shfl_latency;
  int smem_bytes;
};
// The rates and latencies the configuration's sm.* keys give.
PipeRates pipe_rates(const Config& cfg);

// Cycles one warp instruction holds its pipe on one SM sub-partition: 32 lanes over the pipe's
// lanes per cycle per sub-partition (a quarter of the SM's rate). Hopper: FP32 1, FMNMX/F2FP 2,
// MUFU 8.
struct WarpPipeCycles {
  double fp32, alu, mufu;
};
WarpPipeCycles warp_pipe_cycles(const PipeRates& r);

struct BubbleCosts {
  // Paper §5.2 terms for one rows x n score block.
  std::uint32_t rowmax = 0;     // rows*n compares at the FP32 rate
  std::uint32_t exp = 0;        // rows*n exp2 at the MUFU rate
  std::uint32_t rowsum = 0;     // rows*n adds at the FP32 rate
  std::uint32_t convert_p = 0;  // rows*n FP32 -> 16-bit conversions at the FP16 rate
  std::uint32_t rescale_o = 0;  // rows*d multiplies of the FP32 O accumulator at the FP32 rate
  // Terms the paper leaves out but FA3's source has (docs/fa3-workload.md).
  std::uint32_t mask = 0;       // masked block: mask_ops*rows*n at the FP32 rate
  std::uint32_t zero_o = 0;     // clearing the O accumulator: rows*d at the FP32 rate
  std::uint32_t convert_o = 0;  // epilogue: rows*d conversions at the FP16 rate
  std::uint32_t stsm_o = 0;     // epilogue: rows*d*out_bytes into shared memory
  std::uint32_t stsm_p = 0;     // SS PV GEMM only: rows*n*elem_bytes of P into shared memory

  std::uint32_t softmax() const { return rowmax + exp + rowsum; }
  // The paper's per-block bubble: rowmax + exp + rowsum + convert + rescale (988 for 64x176, D 128).
  std::uint32_t paper_total() const { return softmax() + convert_p + rescale_o; }
};

BubbleCosts compute_bubbles(int rows, int n, int d, int elem_bytes, int out_bytes,
                            double mask_ops_per_element, const UnitRates& rates);
BubbleCosts compute_bubbles_pipes(int rows, int n, int d, int elem_bytes, int out_bytes,
                                  double mask_ops_per_element, const PipeRates& rates);

}  // namespace simfa::workload
