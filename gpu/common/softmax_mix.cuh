// CUDA-core "mixes" of the interference and sharing microbenchmarks: one round of a mix works on
// one WarpGroup's registers the way a FlashAttention consumer's softmax does (88 score registers
// like a 64 x 176 S fragment, 64 O registers, 44 packed P registers). `softmax` is the attention
// kernel's own per-block code (gpu/attn/attn_kernel.cuh; exp2f), `softmax_fast` the same with exp2
// by ex2.approx as FA3 compiles it (--use_fast_math), the others one instruction class each.
#pragma once

#include <cstdint>

#include "../attn/attn_kernel.cuh"
#include "pipe_ops.cuh"
#include "wgmma.cuh"

namespace simfa_gpu {

enum Mix {
  kMixFfma, kMixEx2, kMixFmnmx, kMixF2fp, kMixFfmaEx2, kMixSoftmax, kMixSoftmaxFast, kMixSoftmaxFastSplit, kNumMix
};
inline const char* const kMixNames[kNumMix] = {"ffma",     "ex2",     "fmnmx",        "f2fp",
                                               "ffma_ex2", "softmax", "softmax_fast", "softmax_fast_split"};

// The point in FA3's current consumer loop (head dim <= 128) between the softmax and the O rescale:
// wgmma.wait_group for the previous PV GEMM, after which O's registers are the GEMM's results. No
// GEMM is outstanding here, so the wait returns at once; what it measures is the code order FA3
// has: the rescale and the P conversion after the wait, not interleaved with the exps.
__device__ __forceinline__ void pv_wait_point(float (&o)[64]) {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  fence_regs(o);
}

template <int kMix>
__device__ __forceinline__ void mix_round(float (&s)[88], float (&o)[64], uint32_t (&p)[44],
                                          float (&m)[2], float (&l)[2]) {
  if constexpr (kMix == kMixSoftmax || kMix == kMixSoftmaxFast) {
    float corr[2];
    simfa_attn::softmax_block<false, kMix == kMixSoftmaxFast>(s, m, l, corr, 0.127f);
    simfa_attn::convert_p(s, p);
    simfa_attn::rescale_o(o, corr);
    fence_regs(p);
  } else if constexpr (kMix == kMixSoftmaxFastSplit) {
    // FA3's order (current, head dim <= 128): softmax; wait for PV; O rescale; P conversion.
    float corr[2];
    simfa_attn::softmax_block<false, true>(s, m, l, corr, 0.127f);
    fence_regs(s);
    pv_wait_point(o);
    simfa_attn::rescale_o(o, corr);
    simfa_attn::convert_p(s, p);
    fence_regs(p);
  } else if constexpr (kMix == kMixF2fp) {
#pragma unroll
    for (int j = 0; j < 44; ++j) {
      asm volatile("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(p[j]) : "f"(s[2 * j]), "f"(s[2 * j + 1]));
      s[2 * j] = __uint_as_float(p[j]);
    }
  } else if constexpr (kMix == kMixFmnmx) {
    // Two row maxima as the softmax computes them: one dependent chain per row.
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int i = 0; i < 44; ++i) pipe_step<kFmnmx>(m[r], s[2 * i + r]);
  } else {
    constexpr int kOp = kMix == kMixFfma ? kFfma : kMix == kMixEx2 ? kEx2 : kFfmaEx2;
    const float c = kOp == kFfmaEx2 ? -0.999f : 0.999f;
#pragma unroll
    for (int i = 0; i < 88; ++i) pipe_step<kOp>(s[i], c);
  }
}

}  // namespace simfa_gpu
