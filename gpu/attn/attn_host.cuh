// Host side of the attention kernel: buffers, random fill on the device, TensorMaps (BSHD layout,
// 128-byte swizzle, boxes 64 x 128 for Q and 64 x 176 for K/V) and the launch.
#pragma once

#include <cmath>
#include <vector>

#include "../common/host_util.h"
#include "../common/tensormap.h"
#include "attn_kernel.cuh"
#include "simfa/evlog_format.h"

namespace simfa_attn {

struct Shape {
  int b = 1, h = 1, h_kv = 1, sq = 128, sk = 128;
  size_t q_elems() const { return size_t(b) * sq * h * kD; }
  size_t kv_elems() const { return size_t(b) * sk * h_kv * kD; }
  int num_m_blocks() const { return (sq + kBlockM - 1) / kBlockM; }
  int num_n_blocks() const { return (sk + kBlockN - 1) / kBlockN; }
  int num_tiles() const { return num_m_blocks() * h * b; }
};

struct Buffers {
  __half *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr;
  float* lse = nullptr;
  void alloc(const Shape& s) {
    SIMFA_CUDA_CHECK(cudaMalloc(&q, s.q_elems() * 2));
    SIMFA_CUDA_CHECK(cudaMalloc(&k, s.kv_elems() * 2));
    SIMFA_CUDA_CHECK(cudaMalloc(&v, s.kv_elems() * 2));
    SIMFA_CUDA_CHECK(cudaMalloc(&o, s.q_elems() * 2));
    SIMFA_CUDA_CHECK(cudaMalloc(&lse, size_t(s.b) * s.h * s.sq * 4));
  }
  void free() {
    cudaFree(q), cudaFree(k), cudaFree(v), cudaFree(o), cudaFree(lse);
    q = k = v = o = nullptr;
    lse = nullptr;
  }
};

// Uniform values in [-1, 1) from a counter hash: fresh inputs without host work.
__global__ void fill_uniform(__half* x, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t z = static_cast<uint32_t>(i) * 0x9e3779b9u ^ static_cast<uint32_t>(i >> 32) ^ seed;
    z ^= z >> 16, z *= 0x7feb352du, z ^= z >> 15, z *= 0x846ca68bu, z ^= z >> 16;
    x[i] = __float2half(static_cast<float>(z >> 8) * (2.0f / 16777216.0f) - 1.0f);
  }
}
inline void fill_inputs(const Shape& s, const Buffers& b, uint32_t seed) {
  fill_uniform<<<1024, 256>>>(b.q, s.q_elems(), seed * 3 + 1);
  fill_uniform<<<1024, 256>>>(b.k, s.kv_elems(), seed * 3 + 2);
  fill_uniform<<<1024, 256>>>(b.v, s.kv_elems(), seed * 3 + 3);
  SIMFA_CUDA_CHECK(cudaGetLastError());
}

// The three maps and their descriptions for the event log (dimension 0 innermost: d, s, head, b).
struct Maps {
  CUtensorMap q, k, v;
  simfa_tensormap_desc desc[3];
};

inline void encode_bshd(CUtensorMap& m, simfa_tensormap_desc& d, uint32_t id, __half* base,
                        int b, int s, int h, uint32_t box_rows) {
  const cuuint64_t dims[4] = {cuuint64_t(kD), cuuint64_t(s), cuuint64_t(h), cuuint64_t(b)};
  const cuuint64_t strides[3] = {cuuint64_t(h) * kD * 2, cuuint64_t(kD) * 2,
                                 cuuint64_t(s) * h * kD * 2};
  const cuuint32_t box[4] = {64, box_rows, 1, 1};
  m = simfa_gpu::make_tensormap(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, base, dims, strides, box,
                                CU_TENSOR_MAP_SWIZZLE_128B);
  d = simfa_tensormap_desc{};
  d.id = id;
  d.rank = 4;
  d.base = reinterpret_cast<uint64_t>(base);
  d.elem_bytes = 2;
  d.strides_bytes[0] = 2;
  for (int i = 0; i < 4; ++i) d.dims[i] = dims[i], d.box[i] = box[i];
  for (int i = 0; i < 3; ++i) d.strides_bytes[i + 1] = strides[i];
}

inline Maps make_maps(const Shape& s, const Buffers& b) {
  Maps m;
  encode_bshd(m.q, m.desc[0], SIMFA_TMAP_Q, b.q, s.b, s.sq, s.h, kBlockM);
  encode_bshd(m.k, m.desc[1], SIMFA_TMAP_K, b.k, s.b, s.sk, s.h_kv, kBlockN);
  encode_bshd(m.v, m.desc[2], SIMFA_TMAP_V, b.v, s.b, s.sk, s.h_kv, kBlockN);
  return m;
}

inline Params make_params(const Shape& s, const Buffers& b) {
  Params p{};
  p.o = b.o;
  p.lse = b.lse;
  p.b = s.b, p.h = s.h, p.h_kv = s.h_kv, p.sq = s.sq, p.sk = s.sk;
  p.scale = 1.0f / std::sqrt(static_cast<float>(kD));
  p.scale_log2 = p.scale * 1.4426950408889634f;
  p.num_m_blocks = s.num_m_blocks();
  p.num_tiles = s.num_tiles();
  return p;
}

template <bool kOverlap>
void launch(const Maps& m, const Params& p, int grid, const SimfaEvlogDev& ev,
            cudaStream_t stream = 0) {
  static bool configured = false;
  if (!configured) {
    SIMFA_CUDA_CHECK(cudaFuncSetAttribute(attn_fwd_kernel<kOverlap>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kSmemBytes)));
    configured = true;
  }
  attn_fwd_kernel<kOverlap><<<grid, kThreads, kSmemBytes, stream>>>(m.q, m.k, m.v, p, ev);
}

inline void launch_variant(bool overlap, const Maps& m, const Params& p, int grid,
                           const SimfaEvlogDev& ev, cudaStream_t stream = 0) {
  if (overlap)
    launch<true>(m, p, grid, ev, stream);
  else
    launch<false>(m, p, grid, ev, stream);
}

// Upper bound on events one warp records (see the SIMFA_EVLOG call sites in attn_kernel.cuh).
inline uint32_t evlog_entries_per_warp(const Shape& s, int grid) {
  const int tiles_per_cta = (s.num_tiles() + grid - 1) / grid;
  // Consumer warps: at most 10 events per KV block (waits, GEMMs, group waits, softmax, barriers)
  // plus 16 per tile (tile, prologue, tail, epilogue); the producer warp logs fewer.
  return static_cast<uint32_t>(tiles_per_cta) * (10u * s.num_n_blocks() + 16u) + 16u;
}

}  // namespace simfa_attn
