// How much of the SM's CUDA-core pipes the FA3 kernel's softmax uses: the per-thread instruction
// counts of FA3's source (the pipe bubble model's counts, docs/fa3-workload.md "Bubble costs")
// summed over every block and tile the schedule visits, in pipe cycles of one SM sub-partition.
// Divided by the simulated cycles of every SM, they give each pipe's average utilization, printed
// by `simfa run` beside the tensor pipe's. The counts do not depend on the bubble cost model.
#pragma once

#include "workload/fa3_kernel.h"

namespace simfa::workload {

struct PipeCycles {
  double mufu = 0;  // MUFU.EX2: one per score element and one per row (the rescale factor)
  double fp32 = 0;  // FFMA, FADD, FMUL: exp argument, row sum, O rescale, mask, O clear
  double alu = 0;   // FMNMX and F2FP: row max, P and O conversion
};

// Pipe cycles of one sub-partition summed over the whole kernel (every CTA, consumer and block).
PipeCycles kernel_pipe_cycles(const Fa3Kernel& k);

}  // namespace simfa::workload
