// Compile-time dispatch to the generated wgmma wrappers: mma_n<N, RS, TransB>(d, desc_a, a, desc_b,
// scale_d) issues one m64nNk16 f32 += f16 x f16 wgmma, A from shared memory (SS, desc_a) or from
// registers (RS, a[4]). Shared by the wgmma microbenchmarks (latency, chains, clock, interference).
#pragma once

#include <cstdint>

#include "wgmma.cuh"

namespace simfa_gpu {

template <int kN, bool kRS, int kTransB = 0>
__device__ __forceinline__ void mma_n(float (&d)[kN / 2], uint64_t da, const uint32_t (&a)[4],
                                      uint64_t db, uint32_t scale_d) {
  if constexpr (kN == 8) {
    if constexpr (kRS) wgmma_m64n8k16_rs<kTransB>(d, a, db, scale_d);
    else wgmma_m64n8k16_ss<0, kTransB>(d, da, db, scale_d);
  } else if constexpr (kN == 16) {
    if constexpr (kRS) wgmma_m64n16k16_rs<kTransB>(d, a, db, scale_d);
    else wgmma_m64n16k16_ss<0, kTransB>(d, da, db, scale_d);
  } else if constexpr (kN == 32) {
    if constexpr (kRS) wgmma_m64n32k16_rs<kTransB>(d, a, db, scale_d);
    else wgmma_m64n32k16_ss<0, kTransB>(d, da, db, scale_d);
  } else if constexpr (kN == 64) {
    if constexpr (kRS) wgmma_m64n64k16_rs<kTransB>(d, a, db, scale_d);
    else wgmma_m64n64k16_ss<0, kTransB>(d, da, db, scale_d);
  } else if constexpr (kN == 128) {
    if constexpr (kRS) wgmma_m64n128k16_rs<kTransB>(d, a, db, scale_d);
    else wgmma_m64n128k16_ss<0, kTransB>(d, da, db, scale_d);
  } else if constexpr (kN == 176) {
    if constexpr (kRS) wgmma_m64n176k16_rs<kTransB>(d, a, db, scale_d);
    else wgmma_m64n176k16_ss<0, kTransB>(d, da, db, scale_d);
  } else {
    static_assert(kN == 256, "unsupported N");
    if constexpr (kRS) wgmma_m64n256k16_rs<kTransB>(d, a, db, scale_d);
    else wgmma_m64n256k16_ss<0, kTransB>(d, da, db, scale_d);
  }
}

// Deterministic pseudo-random halves in [-1, 1) (a counter hash), or zeros: operand data for the
// tensor-core benchmarks, so power (and so the clock) under random data can be told from zeros.
__device__ __forceinline__ float hash_unit(uint32_t i, uint32_t seed) {
  uint32_t z = i * 0x9e3779b9u ^ seed;
  z ^= z >> 16, z *= 0x7feb352du, z ^= z >> 15, z *= 0x846ca68bu, z ^= z >> 16;
  return static_cast<float>(z >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

}  // namespace simfa_gpu
