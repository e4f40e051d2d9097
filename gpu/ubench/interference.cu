// WGMMA with concurrent CUDA-core work on the same SM (one CTA of two warpgroups on one SM):
// WG0 issues tensor-core work, WG1 runs a softmax-like mix on its registers. Each (mma, mix) pair
// is measured four ways, each its own launch:
//   mma alone          WG0 runs R_mma rounds (timed), WG1 exits
//   mix alone          WG1 runs R_mix rounds (timed), WG0 exits
//   mma with mix       WG1 loops until WG0 has timed its R_mma rounds
//   mix with mma       WG0 runs enough rounds to outlast WG1's timed R_mix rounds (3x the
//                      mix's time alone: a loop on a flag would put wgmma in a branch)
// so each timed side always runs against a busy other side. mma rounds (B K-major or MN-major
// 128B-swizzled smem, random halves; commit per round, wait_group 1, so rounds overlap):
//   ss176  8 x m64n176k16 SS         (FA3's S = Q K^T of one WG, head dim 128)
//   rs128  11 x m64n128k16 RS, B MN-major   (FA3's O += P V, P from registers)
// (Both in one warpgroup, as FA3's consumer has them, need S, O and P live at once: with the
// mix's registers in the same kernel ptxas then serialises the wgmmas (C7512), so that pairing is
// left to the attention kernel's own timings.)
// mix rounds (per thread, on 88 score registers like one WG's 64 x 176 S fragment):
//   ffma 88 FFMA; ex2 88 MUFU.EX2; fmnmx 88 FMNMX; f2fp 44 F2FP packs; ffma_ex2 88 FFMA+EX2;
//   softmax  the attention kernel's own per-block code: row max (FMNMX + SHFL), exp2 of
//            (s * scale - max) (FFMA + MUFU.EX2), row sum, the rescale factor, P packed to
//            half2 (F2FP) and O (64 registers) rescaled (FMUL); exp2f as that kernel has it
//   softmax_fast  the same with exp2 by ex2.approx (FA3's --use_fast_math build)
// Output interference.csv (cycles are clock64 of the timed warpgroup's first thread):
//   mma,mix,mma_rounds,mix_rounds,mma_cycles_alone,mma_cycles_with_mix,mma_slowdown,
//   mix_cycles_alone,mix_cycles_with_mma,mix_slowdown,mma_ideal_cycles_per_round,
//   mma_cycles_per_round_alone,mix_cycles_per_round_alone,clock_mhz
#include <cuda_fp16.h>

#include <algorithm>
#include <string>

#include "../attn/attn_kernel.cuh"
#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "../common/pipe_ops.cuh"
#include "../common/softmax_mix.cuh"
#include "../common/ptx.cuh"
#include "../common/wgmma.cuh"
#include "../common/wgmma_dispatch.cuh"

using namespace simfa_gpu;

namespace {

enum Mma { kSs176, kRs128, kNumMma };
const char* const kMmaNames[kNumMma] = {"ss176", "rs128"};
const int kMmaIdeal[kNumMma] = {8 * 88, 11 * 64};  // tensor cycles at N/2
enum Mode : int { kMmaAlone = 0, kMixAlone = 1, kMmaWithMix = 2, kMixWithMma = 3 };

constexpr uint32_t kHalfA = 64 * 128;   // 64 rows x 128 B: one 64-column half of A (8 KiB)
constexpr uint32_t kHalfB = 176 * 128;  // 176 rows x 128 B: one 64-column half of K or V
struct Smem {
  alignas(1024) unsigned char a[2 * kHalfA];
  alignas(1024) unsigned char k[2 * kHalfB];
  alignas(1024) unsigned char v[2 * kHalfB];
};
constexpr size_t kSmemBytes = sizeof(Smem) + 1024;

struct Out {
  unsigned long long mma_cycles, mix_cycles;
  float sink;
};

template <int kMma>
__device__ __forceinline__ void mma_round(float (&s)[88], float (&o)[64], const uint32_t (&p)[44],
                                          uint32_t a0, uint32_t k0, uint32_t v0) {
  wgmma_fence();
  if constexpr (kMma == kSs176) {
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      const uint32_t off = (kk % 4) * 32;
      const uint32_t none[4] = {0, 0, 0, 0};
      mma_n<176, false>(s, desc_kmajor_sw128(a0 + (kk / 4) * kHalfA + off), none,
                        desc_kmajor_sw128(k0 + (kk / 4) * kHalfB + off), 1u);
    }
    wgmma_commit();
  }
  if constexpr (kMma == kRs128) {
#pragma unroll
    for (int kk = 0; kk < 11; ++kk) {
      const uint32_t a[4] = {p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3]};
      mma_n<128, true, 1>(o, 0, a, desc_mnmajor_sw128(v0 + kk * 16 * 128, kHalfB), 1u);
    }
    wgmma_commit();
  }
  wgmma_wait<1>();  // keep one round in flight
}

template <int kMma, int kMix>
__global__ void __launch_bounds__(256, 1)
    interference_kernel(int mode, int mma_rounds, int mix_rounds, Out* out) {
  extern __shared__ unsigned char smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                      ~uintptr_t(1023));
  __shared__ volatile int stop;
  {
    __half* h = reinterpret_cast<__half*>(&sm);
    for (uint32_t i = threadIdx.x; i < sizeof(Smem) / 2; i += blockDim.x)
      h[i] = __float2half(hash_unit(i, 7) * 0.25f);
  }
  if (threadIdx.x == 0) stop = 0;
  fence_proxy_async_smem();
  __syncthreads();
  const int wg = threadIdx.x / 128;
  const bool timed = (mode == kMmaAlone || mode == kMmaWithMix) ? wg == 0 : wg == 1;
  const bool background = (mode == kMmaWithMix && wg == 1) || (mode == kMixWithMma && wg == 0);
  if (!timed && !background) return;

  float s[88], o[64], m[2] = {0.f, 0.f}, l[2] = {1.f, 1.f};
  uint32_t p[44];
#pragma unroll
  for (int i = 0; i < 88; ++i) s[i] = 0.01f * ((threadIdx.x + i) % 17) - 0.08f;
#pragma unroll
  for (int i = 0; i < 64; ++i) o[i] = 0.001f * i;
#pragma unroll
  for (int j = 0; j < 44; ++j) p[j] = 0x2c002c00u + (j & 7);

  if (wg == 0) {
    // One code path whether timed or in the background (the host sizes background rounds to
    // outlast the timed side): wgmma must not sit in a branch the compiler sees as divergent.
    const uint32_t a0 = smem_u32(sm.a), k0 = smem_u32(sm.k), v0 = smem_u32(sm.v);
    mma_round<kMma>(s, o, p, a0, k0, v0);  // warm-up round
    wgmma_wait<0>();
    named_bar_sync(2, 128);
    const uint64_t t0 = clock_cycles();
    for (int r = 0; r < mma_rounds; ++r) mma_round<kMma>(s, o, p, a0, k0, v0);
    wgmma_wait<0>();
    fence_regs(s);
    fence_regs(o);
    named_bar_sync(2, 128);
    const uint64_t t1 = clock_cycles();
    if (threadIdx.x == 0 && timed) {
      out->mma_cycles = t1 - t0;
      stop = 1;
    }
  } else {
    if (timed) {
      mix_round<kMix>(s, o, p, m, l);  // warm-up round
      named_bar_sync(3, 128);
      const uint64_t t0 = clock_cycles();
      for (int r = 0; r < mix_rounds; ++r) mix_round<kMix>(s, o, p, m, l);
      fence_regs(s);
      named_bar_sync(3, 128);
      const uint64_t t1 = clock_cycles();
      if (threadIdx.x == 128) {
        out->mix_cycles = t1 - t0;
        stop = 1;
      }
    } else {
      while (!stop) mix_round<kMix>(s, o, p, m, l);
    }
  }
  float acc = m[0] + m[1] + l[0] + l[1];
#pragma unroll
  for (int i = 0; i < 88; ++i) acc += s[i];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += o[i];
#pragma unroll
  for (int j = 0; j < 44; ++j) acc += __uint_as_float(p[j] & 0x3fffffffu);
  if (acc == 1234.5f) out->sink = acc;  // keeps every register's computation alive
}

template <int kMma, int kMix>
unsigned long long run_mode(int mode, int mma_rounds, int mix_rounds, Out* dout) {
  static bool configured = false;
  if (!configured) {
    SIMFA_CUDA_CHECK(cudaFuncSetAttribute(interference_kernel<kMma, kMix>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(kSmemBytes)));
    configured = true;
  }
  SIMFA_CUDA_CHECK(cudaMemset(dout, 0, sizeof(Out)));
  interference_kernel<kMma, kMix><<<1, 256, kSmemBytes>>>(mode, mma_rounds, mix_rounds, dout);
  SIMFA_CUDA_CHECK(cudaGetLastError());
  Out h{};
  SIMFA_CUDA_CHECK(cudaMemcpy(&h, dout, sizeof h, cudaMemcpyDeviceToHost));
  return (mode == kMmaAlone || mode == kMmaWithMix) ? h.mma_cycles : h.mix_cycles;
}

template <int kMma, int kMix>
void run_pair(CsvOut& csv, int mma_rounds, int mix_rounds, Out* dout, double mhz) {
  const unsigned long long ma = run_mode<kMma, kMix>(kMmaAlone, mma_rounds, mix_rounds, dout);
  const unsigned long long xa = run_mode<kMma, kMix>(kMixAlone, mma_rounds, mix_rounds, dout);
  const unsigned long long mw = run_mode<kMma, kMix>(kMmaWithMix, mma_rounds, mix_rounds, dout);
  // Background tensor rounds: enough to outlast the timed mix three times over.
  const double per_round = ma ? double(ma) / mma_rounds : 1.0;
  const int bg_rounds = static_cast<int>(std::min(1e6, 3.0 * double(xa) / per_round + 8));
  const unsigned long long xw = run_mode<kMma, kMix>(kMixWithMma, bg_rounds, mix_rounds, dout);
  csv.linef("%s,%s,%d,%d,%llu,%llu,%.4f,%llu,%llu,%.4f,%d,%.1f,%.1f,%.0f\n", kMmaNames[kMma],
            kMixNames[kMix], mma_rounds, mix_rounds, ma, mw, ma ? double(mw) / ma : 0.0, xa, xw,
            xa ? double(xw) / xa : 0.0, kMmaIdeal[kMma], per_round, double(xa) / mix_rounds, mhz);
}

template <int kMma>
void run_mma(CsvOut& csv, int mma_rounds, int mix_rounds, Out* dout, double mhz) {
  run_pair<kMma, kMixFfma>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_pair<kMma, kMixEx2>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_pair<kMma, kMixFmnmx>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_pair<kMma, kMixF2fp>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_pair<kMma, kMixFfmaEx2>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_pair<kMma, kMixSoftmax>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_pair<kMma, kMixSoftmaxFast>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_pair<kMma, kMixSoftmaxFastSplit>(csv, mma_rounds, mix_rounds, dout, mhz);
}

const char* kUsage =
    "simfa-ubench-interference: wgmma throughput with a concurrent softmax-like CUDA-core mix on\n"
    "the same SM, and the mix's time with concurrent wgmma (one CTA, two warpgroups).\n"
    "  --out-dir DIR      write interference.csv there (default: stdout only)\n"
    "  --mma-rounds N     timed tensor rounds (default 400)\n"
    "  --mix-rounds N     timed mix rounds (default 800)\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string out_dir = args.str("--out-dir", "");
  const int mma_rounds = static_cast<int>(args.num("--mma-rounds", 400));
  const int mix_rounds = static_cast<int>(args.num("--mix-rounds", 800));
  args.done();
  if (mma_rounds < 1 || mma_rounds > 1000000) args.fail("--mma-rounds must be in 1..1000000");
  if (mix_rounds < 1 || mix_rounds > 1000000) args.fail("--mix-rounds must be in 1..1000000");
  const DeviceInfo dev = query_device();
  Out* dout = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dout, sizeof(Out)));
  const double mhz = measure_sm_clock_mhz();
  CsvOut csv(out_dir.empty() ? "" : out_dir + "/interference.csv");
  csv.line(device_comment(dev));
  csv.line("# benchmark=one CTA of 2 warpgroups on one SM: WG0 wgmma rounds (commit per round, "
           "wait_group 1), WG1 a CUDA-core mix on 88+64+44 registers; each side timed alone "
           "(the other warpgroup exits) and with the other side looping until the timed side "
           "is done; slowdown = with / alone; random smem operands\n");
  csv.line("mma,mix,mma_rounds,mix_rounds,mma_cycles_alone,mma_cycles_with_mix,mma_slowdown,"
           "mix_cycles_alone,mix_cycles_with_mma,mix_slowdown,mma_ideal_cycles_per_round,"
           "mma_cycles_per_round_alone,mix_cycles_per_round_alone,clock_mhz\n");
  run_mma<kSs176>(csv, mma_rounds, mix_rounds, dout, mhz);
  run_mma<kRs128>(csv, mma_rounds, mix_rounds, dout, mhz);
  SIMFA_CUDA_CHECK(cudaFree(dout));
  return 0;
}
