// simfa's own warp-specialised attention forward kernel (FP16 in, FP32 accumulate, FP16 out),
// D = 128, tile 128 x 176, 2 K/V stages, FA3's structure (shared/reference/fa3-kernel.md):
//   WG0 (producer): warp 0, one lane, issues TMA for K, Q, V through mbarrier pipelines
//     (order K(N-1), Q, then K(j), V(j+1) for j = N-2..0, then V(0)); warps 1-3 exit.
//   WG1, WG2 (consumers): 64 Q rows each; S = Q K^T with 8 x wgmma m64n176k16 (SS), O += P V with
//     11 x wgmma m64n128k16 (RS: P from registers, V MN-major); online softmax in registers;
//     named-barrier ping-pong so one WG's GEMMs overlap the other's softmax.
//   kIntraWGOverlap = true: FA3's current schedule (QK(j) and PV(j+1) issued together, softmax(j)
//     overlapping PV(j+1)); false: QK -> softmax -> PV per block (fa3-kernel.md 3.2).
// Persistent grid with FA3's static scheduler: CTA b takes tiles b, b + grid, ...; the tile index
// maps to (m-block fastest, head, batch). Non-causal only; seqlen_k need not divide 176 (TMA zero
// fills, the first processed block masks), seqlen_q need not divide 128 (stores are guarded).
// Differences from FA3: no cluster / multicast, O is stored from registers (no smem + TMA store,
// hence no barrier_O), no L2 prefetch or cache hints.
// Instrumentation: SIMFA_EVLOG at paper Table 4 call sites (+ tile, barrier, epilogue events); it
// compiles to nothing unless SIMFA_EVLOG_ENABLED.
#pragma once

#include <cuda.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "../common/ptx.cuh"
#include "../common/wgmma.cuh"
#include "simfa/evlog.cuh"

namespace simfa_attn {

using namespace simfa_gpu;

constexpr int kD = 128;
constexpr int kBlockM = 128;
constexpr int kBlockN = 176;
constexpr int kStages = 2;
constexpr int kThreads = 384;
constexpr uint32_t kQHalfBytes = 64 * kBlockM * 2;   // one 64-column half of Q: 16384
constexpr uint32_t kKVHalfBytes = 64 * kBlockN * 2;  // one 64-column half of K or V: 22528
constexpr uint32_t kQBytes = 2 * kQHalfBytes;
constexpr uint32_t kKVBytes = 2 * kKVHalfBytes;  // one stage: 45056
// setmaxnreg budget: 128 * producer + 256 * consumer = 384 * 168 (the launch allocation). FA3
// uses 24 / 240; 40 / 232 keeps the instrumented producer free of spills (ptxas -v).
#ifndef SIMFA_ATTN_PRODUCER_REGS
#define SIMFA_ATTN_PRODUCER_REGS 40
#endif
constexpr uint32_t kProducerRegs = SIMFA_ATTN_PRODUCER_REGS;
constexpr uint32_t kConsumerRegs = (384 * 168 - 128 * kProducerRegs) / 256;
static_assert(kProducerRegs % 8 == 0 && kConsumerRegs % 8 == 0, "setmaxnreg needs multiples of 8");
// Hardware named-barrier ids (0 is __syncthreads).
constexpr uint32_t kBarQueryEmpty = 1;  // 256 consumer threads arrive, producer warp 0 syncs: 288
constexpr uint32_t kBarSched0 = 2;      // ping-pong, WG1 waits here (256)
constexpr uint32_t kBarSched1 = 3;      // ping-pong, WG2 waits here (256)

struct SharedStorage {
  alignas(1024) unsigned char q[kQBytes];
  alignas(1024) unsigned char k[kStages][kKVBytes];
  alignas(1024) unsigned char v[kStages][kKVBytes];
  uint64_t bar_q;
  uint64_t k_full[kStages], k_empty[kStages], v_full[kStages], v_empty[kStages];
};
constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + slack to align the base

struct Params {
  __half* o;      // [b, sq, h, 128]
  float* lse;     // [b, h, sq], natural log
  int b, h, h_kv, sq, sk;
  float scale;       // softmax scale (1/sqrt(d))
  float scale_log2;  // scale * log2(e)
  int num_m_blocks, num_tiles;
  // Optional (nullptr: off): per CTA, kClkWords words: clock64 and %globaltimer at kernel entry
  // (thread 0), then at the end of each consumer WarpGroup's last tile (0 when it had none). The SM's effective clock
  // during the kernel is cycles / ns; the kernel's own span is last end - first entry.
  unsigned long long* clk;
};
constexpr int kClkWords = 6;

struct Tile {
  int m, head, batch;
};
__device__ __forceinline__ Tile decode_tile(const Params& p, int idx) {
  Tile t;
  t.m = idx % p.num_m_blocks;
  t.head = (idx / p.num_m_blocks) % p.h;
  t.batch = idx / (p.num_m_blocks * p.h);
  return t;
}

// K/V pipeline position `it` (counts blocks loaded by this CTA, across tiles): stage and the
// parity of the full-barrier phase the consumer waits for (the producer waits parity ^ 1 on empty).
__device__ __forceinline__ uint32_t stage_of(uint32_t it) { return it % kStages; }
__device__ __forceinline__ uint32_t parity_of(uint32_t it) { return (it / kStages) & 1u; }

// ---- producer ---------------------------------------------------------------------------------
__device__ __forceinline__ void load_kv(SharedStorage& ss, const CUtensorMap* map, bool is_v,
                                        uint32_t it, int n_block, int kv_head, int batch,
                                        const SimfaEvlogDev& ev) {
  const uint32_t s = stage_of(it);
  uint64_t* empty = is_v ? ss.v_empty : ss.k_empty;
  uint64_t* full = is_v ? ss.v_full : ss.k_full;
  unsigned char* dst = is_v ? ss.v[s] : ss.k[s];
  mbar_wait_or_trap(smem_u32(&empty[s]), parity_of(it) ^ 1u);  // ACQUIRE_STAGE
  SIMFA_EVLOG(ev, is_v ? SIMFA_EV_TMA_V_ISSUE : SIMFA_EV_TMA_K_ISSUE, s, n_block);
  mbar_arrive_expect_tx(smem_u32(&full[s]), kKVBytes);
  tma_load_4d(smem_u32(dst), map, 0, n_block * kBlockN, kv_head, batch, smem_u32(&full[s]));
  tma_load_4d(smem_u32(dst + kKVHalfBytes), map, 64, n_block * kBlockN, kv_head, batch,
              smem_u32(&full[s]));
}

__device__ __forceinline__ void producer(SharedStorage& ss, const CUtensorMap* tq,
                                         const CUtensorMap* tk, const CUtensorMap* tv,
                                         const Params& p, const SimfaEvlogDev& ev) {
  const bool leader = (threadIdx.x & 31) == 0;
  const int n_blocks = (p.sk + kBlockN - 1) / kBlockN;
  const int group = p.h / p.h_kv;
  uint32_t it = 0;
  for (int idx = blockIdx.x; idx < p.num_tiles; idx += gridDim.x) {
    const Tile t = decode_tile(p, idx);
    const int kvh = t.head / group;
    SIMFA_EVLOG(ev, SIMFA_EV_TILE_START, 0, idx);
    SIMFA_EVLOG(ev, SIMFA_EV_TILE_HEAD, 0, t.head);
    SIMFA_EVLOG(ev, SIMFA_EV_TILE_BATCH, 0, t.batch);
    if (leader) load_kv(ss, tk, false, it, n_blocks - 1, kvh, t.batch, ev);
    __syncwarp();
    named_bar_sync(kBarQueryEmpty, 288);  // both consumer WGs are done with the previous Q
    if (leader) {
      SIMFA_EVLOG(ev, SIMFA_EV_TMA_Q_ISSUE, 0, t.m);
      mbar_arrive_expect_tx(smem_u32(&ss.bar_q), kQBytes);
      tma_load_4d(smem_u32(ss.q), tq, 0, t.m * kBlockM, t.head, t.batch, smem_u32(&ss.bar_q));
      tma_load_4d(smem_u32(ss.q + kQHalfBytes), tq, 64, t.m * kBlockM, t.head, t.batch,
                  smem_u32(&ss.bar_q));
      for (int j = n_blocks - 2; j >= 0; --j) {
        const uint32_t it_j = it + (n_blocks - 1 - j);
        load_kv(ss, tk, false, it_j, j, kvh, t.batch, ev);
        load_kv(ss, tv, true, it_j - 1, j + 1, kvh, t.batch, ev);
      }
      load_kv(ss, tv, true, it + n_blocks - 1, 0, kvh, t.batch, ev);
    }
    __syncwarp();
    it += n_blocks;
  }
}

// ---- consumer helpers -------------------------------------------------------------------------
// S(64 x 176) = Q_wg(64 x 128) K^T: 8 k-steps of 16 over d; Q rows of this WG start 8 KiB into
// each Q half (64 rows x 128 B).
__device__ __forceinline__ void gemm_qk(float (&s)[88], const SharedStorage& ss, int wg,
                                        uint32_t stage) {
  const uint32_t q0 = smem_u32(ss.q) + wg * 64 * 128;
  const uint32_t k0 = smem_u32(ss.k[stage]);
  fence_regs(s);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    const uint32_t off = (kk % 4) * 32;  // 16 halves further along the 128-byte row
    const uint64_t da = desc_kmajor_sw128(q0 + (kk / 4) * kQHalfBytes + off);
    const uint64_t db = desc_kmajor_sw128(k0 + (kk / 4) * kKVHalfBytes + off);
    wgmma_m64n176k16_ss<0, 0>(s, da, db, kk == 0 ? 0u : 1u);
  }
  wgmma_commit();
  fence_regs(s);
}

// O(64 x 128) += P(64 x 176) V(176 x 128): 11 k-steps over kv rows; P fragment k-step kk is
// registers p[4kk .. 4kk+3]; V is MN-major (d contiguous), its two 64-column halves LBO apart.
__device__ __forceinline__ void gemm_pv(float (&o)[64], const uint32_t (&p)[44],
                                        const SharedStorage& ss, uint32_t stage) {
  const uint32_t v0 = smem_u32(ss.v[stage]);
  fence_regs(o);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 11; ++kk) {
    const uint32_t a[4] = {p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3]};
    const uint64_t db = desc_mnmajor_sw128(v0 + kk * 16 * 128, kKVHalfBytes);
    wgmma_m64n128k16_rs<1>(o, a, db, 1u);
  }
  wgmma_commit();
  fence_regs(o);
}

// Quad (4 lanes sharing a row) reductions.
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Accumulator fragment of m64nN (per thread): element 4i + 2r + e is row (g + 8r), column
// 8i + 2t + e, with g = lane / 4, t = lane % 4 (rows relative to the warp's 16).
// Masks columns >= limit to -inf (first processed block only).
__device__ __forceinline__ void mask_cols(float (&s)[88], int limit) {
  const int t = threadIdx.x & 3;
#pragma unroll
  for (int i = 0; i < 22; ++i)
#pragma unroll
    for (int e = 0; e < 2; ++e)
      if (8 * i + 2 * t + e >= limit) s[4 * i + e] = s[4 * i + 2 + e] = -INFINITY;
}

// exp2 as FA3 computes it with --use_fast_math: one MUFU.EX2 (ex2.approx.ftz), no range handling.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Online softmax over one block: updates the running max m and the per-thread partial row sum l,
// turns s into exp2(s * scale_log2 - m * scale_log2) and returns the correction factor for O.
// kFastExp: exp2 by ex2.approx as FA3 builds it (the microbenchmarks measure both; this kernel
// uses exp2f).
template <bool kFirst, bool kFastExp = false>
__device__ __forceinline__ void softmax_block(float (&s)[88], float (&m)[2], float (&l)[2],
                                              float (&corr)[2], float scale_log2) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = kFirst ? -INFINITY : m[r];
#pragma unroll
    for (int i = 0; i < 22; ++i) mx = fmaxf(mx, fmaxf(s[4 * i + 2 * r], s[4 * i + 2 * r + 1]));
    mx = quad_max(mx);
    const float mx_scaled = mx * scale_log2;
    const float dm = (m[r] - mx) * scale_log2;
    corr[r] = kFirst ? 1.f : (kFastExp ? exp2_approx(dm) : exp2f(dm));
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 22; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float arg = fmaf(s[4 * i + 2 * r + e], scale_log2, -mx_scaled);
        const float x = kFastExp ? exp2_approx(arg) : exp2f(arg);
        s[4 * i + 2 * r + e] = x;
        sum += x;
      }
    l[r] = kFirst ? sum : fmaf(l[r], corr[r], sum);
    m[r] = mx;
  }
}

__device__ __forceinline__ void convert_p(const float (&s)[88], uint32_t (&p)[44]) {
#pragma unroll
  for (int j = 0; j < 44; ++j) {
    const __half2 h = __floats2half2_rn(s[2 * j], s[2 * j + 1]);
    p[j] = *reinterpret_cast<const uint32_t*>(&h);
  }
}

__device__ __forceinline__ void rescale_o(float (&o)[64], const float (&corr)[2]) {
#pragma unroll
  for (int i = 0; i < 16; ++i) {
    o[4 * i + 0] *= corr[0];
    o[4 * i + 1] *= corr[0];
    o[4 * i + 2] *= corr[1];
    o[4 * i + 3] *= corr[1];
  }
}

// Releases a K or V stage: one arrival per consumer WG (the empty barriers count 2).
__device__ __forceinline__ void release(uint64_t* empty, uint32_t s) {
  if ((threadIdx.x & 127) == 0) mbar_arrive(smem_u32(&empty[s]));
}

__device__ __forceinline__ void wait_full(uint64_t* full, uint32_t it, int ev_id, int n_block,
                                          const SimfaEvlogDev& ev) {
  SIMFA_EVLOG(ev, ev_id, stage_of(it), n_block);
  mbar_wait_or_trap(smem_u32(&full[stage_of(it)]), parity_of(it));
}

__device__ __forceinline__ void store_o(const Params& p, const Tile& t, int wg,
                                        const float (&o)[64], const float (&m)[2],
                                        const float (&l)[2]) {
  const int lane = threadIdx.x & 31, warp = (threadIdx.x & 127) >> 5;
  const int g = lane >> 2, tq = lane & 3;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int row = t.m * kBlockM + wg * 64 + warp * 16 + g + 8 * r;
    if (row >= p.sq) continue;
    __half* dst = p.o + ((size_t(t.batch) * p.sq + row) * p.h + t.head) * kD;
#pragma unroll
    for (int i = 0; i < 16; ++i)
      *reinterpret_cast<__half2*>(dst + 8 * i + 2 * tq) =
          __floats2half2_rn(o[4 * i + 2 * r], o[4 * i + 2 * r + 1]);
    if (tq == 0) p.lse[(size_t(t.batch) * p.h + t.head) * p.sq + row] = m[r] * p.scale + logf(l[r]);
  }
}

// ---- consumer ---------------------------------------------------------------------------------
template <bool kIntraWGOverlap>
__device__ __forceinline__ void consumer(SharedStorage& ss, const Params& p, int wg,
                                         const SimfaEvlogDev& ev) {
  const uint32_t bar_own = wg == 0 ? kBarSched0 : kBarSched1;
  const uint32_t bar_other = wg == 0 ? kBarSched1 : kBarSched0;
  const int n_blocks = (p.sk + kBlockN - 1) / kBlockN;
  const int last_limit = p.sk - (n_blocks - 1) * kBlockN;  // valid columns of block N-1
  named_bar_arrive(kBarQueryEmpty, 288);                    // smem Q is free for the first tile
  if (wg == 0) named_bar_arrive(kBarSched0, 256);           // WG1 issues first
  uint32_t it = 0, work = 0;
  float s[88], o[64], m[2], l[2], corr[2];
  uint32_t pf[44];
  for (int idx = blockIdx.x; idx < p.num_tiles; idx += gridDim.x, it += n_blocks, ++work) {
    const Tile t = decode_tile(p, idx);
    SIMFA_EVLOG(ev, SIMFA_EV_TILE_START, 0, idx);
    SIMFA_EVLOG(ev, SIMFA_EV_TILE_HEAD, 0, t.head);
    SIMFA_EVLOG(ev, SIMFA_EV_TILE_BATCH, 0, t.batch);
    mbar_wait_or_trap(smem_u32(&ss.bar_q), work & 1u);
#pragma unroll
    for (int i = 0; i < 64; ++i) o[i] = 0.f;
    if constexpr (kIntraWGOverlap) {
      // Prologue: block N-1 outside the ping-pong.
      const uint32_t it0 = it;
      wait_full(ss.k_full, it0, SIMFA_EV_WAIT_K_START, n_blocks - 1, ev);
      SIMFA_EVLOG(ev, SIMFA_EV_GEMM_QK_ISSUE, stage_of(it0), n_blocks - 1);
      gemm_qk(s, ss, wg, stage_of(it0));
      SIMFA_EVLOG(ev, SIMFA_EV_WAIT_WG_0, stage_of(it0), n_blocks - 1);
      wgmma_wait<0>();
      fence_regs(s);
      release(ss.k_empty, stage_of(it0));
      SIMFA_EVLOG(ev, SIMFA_EV_SOFTMAX_START, stage_of(it0), n_blocks - 1);
      mask_cols(s, last_limit);
      softmax_block<true>(s, m, l, corr, p.scale_log2);
      convert_p(s, pf);
      SIMFA_EVLOG(ev, SIMFA_EV_SOFTMAX_END, stage_of(it0), n_blocks - 1);
      for (int j = n_blocks - 2; j >= 0; --j) {
        const uint32_t it_j = it + (n_blocks - 1 - j), it_v = it_j - 1;  // K(j), V(j+1)
        if (wg == 0) wait_full(ss.k_full, it_j, SIMFA_EV_WAIT_K_START, j, ev);
        SIMFA_EVLOG(ev, SIMFA_EV_BAR_WAIT_START, 0, bar_own);
        named_bar_sync(bar_own, 256);
        SIMFA_EVLOG(ev, SIMFA_EV_GEMM_QK_ISSUE, stage_of(it_j), j);
        gemm_qk(s, ss, wg, stage_of(it_j));
        if (wg == 0) wait_full(ss.v_full, it_v, SIMFA_EV_WAIT_V_START, j + 1, ev);
        SIMFA_EVLOG(ev, SIMFA_EV_GEMM_PV_ISSUE, stage_of(it_v), j + 1);
        gemm_pv(o, pf, ss, stage_of(it_v));
        SIMFA_EVLOG(ev, SIMFA_EV_BAR_ARRIVE, 0, bar_other);
        named_bar_arrive(bar_other, 256);
        SIMFA_EVLOG(ev, SIMFA_EV_WAIT_WG_1, stage_of(it_j), j);
        wgmma_wait<1>();
        fence_regs(s);
        release(ss.k_empty, stage_of(it_j));
        SIMFA_EVLOG(ev, SIMFA_EV_SOFTMAX_START, stage_of(it_j), j);
        softmax_block<false>(s, m, l, corr, p.scale_log2);
        SIMFA_EVLOG(ev, SIMFA_EV_SOFTMAX_END, stage_of(it_j), j);
        SIMFA_EVLOG(ev, SIMFA_EV_WAIT_WG_0, stage_of(it_v), j + 1);
        wgmma_wait<0>();
        fence_regs(o);
        fence_regs(pf);
        release(ss.v_empty, stage_of(it_v));
        convert_p(s, pf);
        rescale_o(o, corr);
      }
      named_bar_arrive(kBarQueryEmpty, 288);
      const uint32_t it_last = it + n_blocks - 1;  // V(0)
      wait_full(ss.v_full, it_last, SIMFA_EV_WAIT_V_START, 0, ev);
      SIMFA_EVLOG(ev, SIMFA_EV_GEMM_PV_ISSUE, stage_of(it_last), 0);
      gemm_pv(o, pf, ss, stage_of(it_last));
      SIMFA_EVLOG(ev, SIMFA_EV_WAIT_WG_0, stage_of(it_last), 0);
      wgmma_wait<0>();
      fence_regs(o);
      release(ss.v_empty, stage_of(it_last));
    } else {
      // QK -> softmax -> PV per block; windows [QK(N-1)], [PV(j) .. QK(j-1)], ..., [PV(0)].
      SIMFA_EVLOG(ev, SIMFA_EV_BAR_WAIT_START, 0, bar_own);
      named_bar_sync(bar_own, 256);
      for (int j = n_blocks - 1; j >= 0; --j) {
        const uint32_t it_j = it + (n_blocks - 1 - j);
        const uint32_t st = stage_of(it_j);
        wait_full(ss.k_full, it_j, SIMFA_EV_WAIT_K_START, j, ev);
        SIMFA_EVLOG(ev, SIMFA_EV_GEMM_QK_ISSUE, st, j);
        gemm_qk(s, ss, wg, st);
        SIMFA_EVLOG(ev, SIMFA_EV_BAR_ARRIVE, 0, bar_other);
        named_bar_arrive(bar_other, 256);
        SIMFA_EVLOG(ev, SIMFA_EV_WAIT_WG_0, st, j);
        wgmma_wait<0>();
        fence_regs(s);
        release(ss.k_empty, st);
        SIMFA_EVLOG(ev, SIMFA_EV_SOFTMAX_START, st, j);
        if (j == n_blocks - 1) {
          mask_cols(s, last_limit);
          softmax_block<true>(s, m, l, corr, p.scale_log2);
        } else {
          softmax_block<false>(s, m, l, corr, p.scale_log2);
          rescale_o(o, corr);
        }
        convert_p(s, pf);
        SIMFA_EVLOG(ev, SIMFA_EV_SOFTMAX_END, st, j);
        wait_full(ss.v_full, it_j, SIMFA_EV_WAIT_V_START, j, ev);
        SIMFA_EVLOG(ev, SIMFA_EV_BAR_WAIT_START, 0, bar_own);
        named_bar_sync(bar_own, 256);
        SIMFA_EVLOG(ev, SIMFA_EV_GEMM_PV_ISSUE, st, j);
        gemm_pv(o, pf, ss, st);
        SIMFA_EVLOG(ev, SIMFA_EV_WAIT_WG_0, st, j);
        wgmma_wait<0>();
        fence_regs(o);
        fence_regs(pf);
        release(ss.v_empty, st);
      }
      SIMFA_EVLOG(ev, SIMFA_EV_BAR_ARRIVE, 0, bar_other);
      named_bar_arrive(bar_other, 256);
      named_bar_arrive(kBarQueryEmpty, 288);
    }
    // Epilogue: finish the row sums across the quad, normalise, store O and LSE.
    SIMFA_EVLOG(ev, SIMFA_EV_EPILOGUE_START, 0, t.m);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      l[r] = quad_sum(l[r]);
      corr[r] = 1.f / l[r];
    }
    rescale_o(o, corr);
    store_o(p, t, wg, o, m, l);
    SIMFA_EVLOG(ev, SIMFA_EV_EPILOGUE_END, 0, t.m);
    // Each tile overwrites this WarpGroup's end record, so the last tile's stays. (Here and not
    // after the tile loop: any code after the consumer's loop makes ptxas spill and serialise.)
    if ((threadIdx.x & 127) == 0 && p.clk) {
      unsigned long long* c = p.clk + size_t(blockIdx.x) * kClkWords + 2 * (threadIdx.x / 128);
      c[0] = clock_cycles();
      c[1] = global_ns();
    }
  }
}

template <bool kIntraWGOverlap>
__global__ void __launch_bounds__(kThreads, 1)
    attn_fwd_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
                    const __grid_constant__ CUtensorMap tv, const Params p, const SimfaEvlogDev ev) {
  extern __shared__ unsigned char smem_raw[];
  SharedStorage& ss = *reinterpret_cast<SharedStorage*>(
      (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  const int wg = threadIdx.x / 128;
  // The 128-byte swizzle needs the shared-window address aligned to 1024 B (the generic pointer
  // was rounded): trap rather than compute garbage if that ever differs.
  if (threadIdx.x == 0 && (smem_u32(&ss) & 1023u) != 0) __trap();
  if (p.clk && threadIdx.x == 0) {
    unsigned long long* c = p.clk + size_t(blockIdx.x) * kClkWords;
    c[0] = clock_cycles();
    c[1] = global_ns();
    for (int i = 2; i < kClkWords; ++i) c[i] = 0;  // a CTA without tiles leaves its ends at 0
  }
  if (threadIdx.x == 0) {
    tma_prefetch_desc(&tq);
    tma_prefetch_desc(&tk);
    tma_prefetch_desc(&tv);
    mbar_init(smem_u32(&ss.bar_q), 1);
    for (int s = 0; s < kStages; ++s) {
      mbar_init(smem_u32(&ss.k_full[s]), 1);
      mbar_init(smem_u32(&ss.v_full[s]), 1);
      mbar_init(smem_u32(&ss.k_empty[s]), 2);
      mbar_init(smem_u32(&ss.v_empty[s]), 2);
    }
    mbar_init_fence();
  }
  __syncthreads();
  if (wg == 0) {
    setmaxnreg_dec<kProducerRegs>();
    if (threadIdx.x < 32) producer(ss, &tq, &tk, &tv, p, ev);
  } else {
    setmaxnreg_inc<kConsumerRegs>();
    consumer<kIntraWGOverlap>(ss, p, wg - 1, ev);
  }
}

}  // namespace simfa_attn
