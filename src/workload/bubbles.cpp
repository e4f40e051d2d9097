// The paper §5.2 bubble formula: each CUDA-core step costs ceil(element operations / unit rate).
#include "workload/bubbles.h"

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

}  // namespace simfa::workload
