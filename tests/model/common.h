// Shared fixtures of the model tests: an explicit H800 GpuSpec (so the tests do not depend on
// the preset files) and shape helpers.
#pragma once
#include "model/analysis.h"
#include "spec/attention.h"

namespace simfa::model::testing {

// H800 SXM5 (paper Table 2, hardware.md): 132 SMs at 1830 MHz, 50 MiB L2 in two partitions,
// 3.35 TB/s HBM3, 4096 FP16 FLOP/cycle/SM (989 TFLOPS), 3942 B/cycle L2 (Luo et al.).
inline GpuSpec h800() {
  GpuSpec g;
  g.name = "h800-test";
  g.num_sms = 132;
  g.clock_hz = 1.83e9;
  g.l2_bytes = 50.0 * (1 << 20);
  g.l2_partitions = 2;
  g.l2_bytes_per_cycle = 3942;
  g.dram_bytes_per_s = 3.35e12;
  g.flops_per_cycle_16bit = 4096;
  g.flops_per_cycle_fp8 = 8192;
  return g;
}

inline spec::AttentionShape shape(std::int64_t B, std::int64_t L, std::int64_t S, std::int64_t H,
                                  std::int64_t G, std::int64_t D, bool causal = false,
                                  spec::DType t = spec::DType::FP16) {
  spec::AttentionShape s;
  s.batch = B;
  s.seqlen_q = L;
  s.seqlen_kv = S;
  s.heads_kv = H;
  s.group = G;
  s.head_dim = D;
  s.causal = causal;
  s.dtype = t;
  return s;
}

// The paper's setting: no split, no PackGQA, the given T_M.
inline ModelOptions paper_opts(std::int64_t tile_m = 0) {
  ModelOptions o;
  o.tile_m = tile_m;
  o.num_splits = 1;
  o.pack_gqa = PackGqa::Off;
  return o;
}

}  // namespace simfa::model::testing
