// wgmma support: shared-memory matrix descriptors (PTX ISA 9.7.15.5.1, "Matrix Descriptor
// Format"), fence / commit / wait, and the generated instruction wrappers (wgmma_ops.cuh).
#pragma once

#include <cstdint>

#include "wgmma_ops.cuh"

namespace simfa_gpu {

// Descriptor bits: [0,14) start address >> 4; [16,30) leading-dimension byte offset >> 4;
// [32,46) stride-dimension byte offset >> 4; [49,52) base offset (0: buffers are aligned to the
// 1024-byte swizzle repeat); [62,64) layout: 0 interleave (no swizzle), 1 = 128B, 2 = 64B, 3 = 32B.
enum class Swizzle : uint64_t { kNone = 0, k128B = 1, k64B = 2, k32B = 3 };

__device__ __forceinline__ uint64_t make_smem_desc(uint32_t smem_addr, uint32_t lbo_bytes,
                                                   uint32_t sbo_bytes, Swizzle sw) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((smem_addr >> 4) & 0x3FFFu);
  d |= static_cast<uint64_t>((lbo_bytes >> 4) & 0x3FFFu) << 16;
  d |= static_cast<uint64_t>((sbo_bytes >> 4) & 0x3FFFu) << 32;
  d |= static_cast<uint64_t>(sw) << 62;
  return d;
}

// K-major operand, 128-byte swizzle: rows of 64 halves (128 B) one after the other, 8-row groups
// 1024 B apart (SBO); LBO is unused for swizzled K-major layouts (1 by convention). Stepping K by
// 16 halves inside the 128-byte row adds 32 B to the start address.
__device__ __forceinline__ uint64_t desc_kmajor_sw128(uint32_t smem_addr) {
  return make_smem_desc(smem_addr, 16, 1024, Swizzle::k128B);
}
// MN-major operand, 128-byte swizzle: 64 MN-contiguous halves per 128-byte row, K rows 128 B
// apart, 8-row K groups SBO = 1024 B apart, the next 64-wide MN chunk LBO bytes away.
__device__ __forceinline__ uint64_t desc_mnmajor_sw128(uint32_t smem_addr, uint32_t mn_chunk_bytes) {
  return make_smem_desc(smem_addr, mn_chunk_bytes, 1024, Swizzle::k128B);
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int kN>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kN) : "memory");
}
// Keeps the compiler from moving accumulator reads/writes across wgmma fence/commit/wait.
template <int kLen>
__device__ __forceinline__ void fence_regs(float (&r)[kLen]) {
#pragma unroll
  for (int i = 0; i < kLen; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int kLen>
__device__ __forceinline__ void fence_regs(uint32_t (&r)[kLen]) {
#pragma unroll
  for (int i = 0; i < kLen; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

}  // namespace simfa_gpu
