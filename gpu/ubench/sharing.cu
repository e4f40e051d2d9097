// CUDA-core work of two WarpGroups at once on one SM, with and without the tensor pipe busy: how
// concurrent softmaxes share the SM sub-partitions' pipes. One CTA of three WarpGroups on one SM:
//   WG1  runs R rounds of a mix (timed: clock64 of its first thread between two named barriers)
//   WG2  runs the same mix in the background until WG1 is done (or exits: "alone")
//   WG0  issues groups of 8 wgmma m64n176k16 SS (FA3's QK GEMM of one WarpGroup) in the
//        background until WG1 is done (or exits)
// Configurations: alone, pair (WG2 on), tensor (WG0 on), pair_tensor (both). Three WarpGroups
// leave 168 registers per thread, too few for the full softmax mix (S, O and P): that one runs in a
// CTA of WG1 and WG2 only (alone and pair; its tensor configurations are interference.csv's).
// Output sharing.csv:
//   mix,config,rounds,cycles,cycles_per_round,slowdown_vs_alone,clock_mhz
// A second part, sharing_d64.csv (same columns), measures FA3's head-dim-64 consumer: three
// consumer WarpGroups, each softmaxing a 64 x 128 block (64 score, 32 O and 32 P registers per
// thread, fast exp as FA3 builds it). That block is small enough for three of them in one CTA:
//   WG0  the timed softmax; WG1 the same in the background (pair, triple, pair_tensor);
//   WG2  the same (triple) or groups of 8 wgmma m64n128k16 SS, the QK GEMM of one such consumer
//        (tensor, pair_tensor).
#include <cuda_fp16.h>

#include <string>

#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "../common/ptx.cuh"
#include "../common/softmax_mix.cuh"
#include "../common/wgmma.cuh"
#include "../common/wgmma_dispatch.cuh"

using namespace simfa_gpu;

namespace {

enum Config : int { kAlone = 0, kPair = 1, kTensor = 2, kPairTensor = 3 };
const char* const kConfigNames[4] = {"alone", "pair", "tensor", "pair_tensor"};

constexpr uint32_t kHalfA = 64 * 128, kHalfB = 176 * 128;
struct Smem {
  alignas(1024) unsigned char a[2 * kHalfA];
  alignas(1024) unsigned char k[2 * kHalfB];
};
constexpr size_t kSmemBytes = sizeof(Smem) + 1024;

template <int kMix, bool kThree>
__global__ void __launch_bounds__(kThree ? 384 : 256, 1)
    sharing_kernel(int config, int rounds, unsigned long long* out, float* sink) {
  extern __shared__ unsigned char smem_raw[];
  Smem& sm = *reinterpret_cast<Smem*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                      ~uintptr_t(1023));
  __shared__ volatile int stop;
  __shared__ int go;
  {
    __half* h = reinterpret_cast<__half*>(&sm);
    for (uint32_t i = threadIdx.x; i < sizeof(Smem) / 2; i += blockDim.x)
      h[i] = __float2half(hash_unit(i, 9) * 0.25f);
  }
  if (threadIdx.x == 0) stop = 0;
  fence_proxy_async_smem();
  __syncthreads();
  const int wg = threadIdx.x / 128 + (kThree ? 0 : 1);
  const bool tensor_on = (config & kTensor) != 0, pair_on = (config & kPair) != 0;
  if (wg == 0) {
    if constexpr (kThree) {
    if (!tensor_on) return;
    float s[88];
#pragma unroll
    for (int i = 0; i < 88; ++i) s[i] = 0.f;
    const uint32_t a0 = smem_u32(sm.a), k0 = smem_u32(sm.k);
    const uint32_t none[4] = {0, 0, 0, 0};
    for (;;) {  // thread 0 reads the flag; the whole warpgroup follows (wgmma is collective)
      if (threadIdx.x == 0) go = !stop;
      named_bar_sync(1, 128);
      const int g = go;
      named_bar_sync(1, 128);
      if (!g) break;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) {
        const uint32_t off = (kk % 4) * 32;
        mma_n<176, false>(s, desc_kmajor_sw128(a0 + (kk / 4) * kHalfA + off), none,
                          desc_kmajor_sw128(k0 + (kk / 4) * kHalfB + off), 1u);
      }
      wgmma_commit();
      wgmma_wait<1>();
    }
    wgmma_wait<0>();
    fence_regs(s);
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < 88; ++i) acc += s[i];
    if (acc == 1234.5f) *sink = acc;
    }
  } else {
    if (wg == 2 && !pair_on) return;
    float s[88], o[64], m[2] = {0.f, 0.f}, l[2] = {1.f, 1.f};
    uint32_t p[44];
#pragma unroll
    for (int i = 0; i < 88; ++i) s[i] = 0.01f * ((threadIdx.x + i) % 17) - 0.08f;
#pragma unroll
    for (int i = 0; i < 64; ++i) o[i] = 0.001f * i;
#pragma unroll
    for (int j = 0; j < 44; ++j) p[j] = 0x2c002c00u + (j & 7);
    if (wg == 1) {
      mix_round<kMix>(s, o, p, m, l);  // warm-up round
      named_bar_sync(2, 128);
      const uint64_t t0 = clock_cycles();
      for (int r = 0; r < rounds; ++r) mix_round<kMix>(s, o, p, m, l);
      fence_regs(s);
      named_bar_sync(2, 128);
      const uint64_t t1 = clock_cycles();
      if ((threadIdx.x & 127) == 0) {
        *out = t1 - t0;
        stop = 1;
      }
    } else {
      while (!stop) mix_round<kMix>(s, o, p, m, l);
    }
    float acc = m[0] + m[1] + l[0] + l[1];
#pragma unroll
    for (int i = 0; i < 88; ++i) acc += s[i];
#pragma unroll
    for (int i = 0; i < 64; ++i) acc += o[i];
#pragma unroll
    for (int j = 0; j < 44; ++j) acc += __uint_as_float(p[j] & 0x3fffffffu);
    if (acc == 1234.5f) *sink = acc;
  }
}

template <int kMix, bool kThree = true>
void run_mix(CsvOut& csv, int rounds, unsigned long long* dout, float* dsink, double mhz) {
  SIMFA_CUDA_CHECK(cudaFuncSetAttribute(sharing_kernel<kMix, kThree>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(kSmemBytes)));
  unsigned long long alone = 0;
  for (int config = 0; config < (kThree ? 4 : 2); ++config) {
    sharing_kernel<kMix, kThree><<<1, kThree ? 384 : 256, kSmemBytes>>>(config, rounds, dout, dsink);
    SIMFA_CUDA_CHECK(cudaGetLastError());
    unsigned long long cyc = 0;
    SIMFA_CUDA_CHECK(cudaMemcpy(&cyc, dout, sizeof cyc, cudaMemcpyDeviceToHost));
    if (config == kAlone) alone = cyc;
    csv.linef("%s,%s,%d,%llu,%.1f,%.4f,%.0f\n", kMixNames[kMix], kConfigNames[config], rounds, cyc,
              double(cyc) / rounds, alone ? double(cyc) / alone : 0.0, mhz);
  }
}

// ---- head dim 64: three consumers' 64 x 128 softmax blocks --------------------------------------

enum Config64 : int { k64Alone, k64Pair, k64Triple, k64Tensor, k64PairTensor, kNumConfig64 };
const char* const kConfig64Names[kNumConfig64] = {"alone", "pair", "triple", "tensor", "pair_tensor"};

// FA3's online softmax of one 64 x 128 block in the m64n128 accumulator layout (two rows per
// thread, 32 values each), the O rescale (64 x 64 O: 32 registers) and the P conversion, with
// exp2 by ex2.approx (--use_fast_math): simfa_attn::softmax_block's code for 128 columns.
template <bool kSplit>
__device__ __forceinline__ void softmax64_round(float (&s)[64], float (&o)[32], uint32_t (&p)[32],
                                                float (&m)[2], float (&l)[2], float scale_log2) {
  float corr[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = m[r];
#pragma unroll
    for (int i = 0; i < 16; ++i) mx = fmaxf(mx, fmaxf(s[4 * i + 2 * r], s[4 * i + 2 * r + 1]));
    mx = simfa_attn::quad_max(mx);
    const float mx_scaled = mx * scale_log2;
    corr[r] = simfa_attn::exp2_approx((m[r] - mx) * scale_log2);
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < 16; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float x = simfa_attn::exp2_approx(fmaf(s[4 * i + 2 * r + e], scale_log2, -mx_scaled));
        s[4 * i + 2 * r + e] = x;
        sum += x;
      }
    l[r] = fmaf(l[r], corr[r], sum);
    m[r] = mx;
  }
  auto convert = [&] {
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const __half2 h = __floats2half2_rn(s[2 * j], s[2 * j + 1]);
      p[j] = *reinterpret_cast<const uint32_t*>(&h);
    }
  };
  auto rescale = [&] {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      o[4 * i + 0] *= corr[0];
      o[4 * i + 1] *= corr[0];
      o[4 * i + 2] *= corr[1];
      o[4 * i + 3] *= corr[1];
    }
  };
  if constexpr (kSplit) {
    // FA3's order: the PV wait (nothing outstanding: returns at once), then rescale and convert.
    fence_regs(s);
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    fence_regs(o);
    rescale();
    convert();
  } else {
    convert();
    rescale();
  }
  fence_regs(p);  // the next round softmaxes this round's probabilities, as the kernel mix does
}

constexpr uint32_t kHalfB64 = 128 * 128;
struct Smem64 {
  alignas(1024) unsigned char a[2 * kHalfA];
  alignas(1024) unsigned char k[2 * kHalfB64];
};
constexpr size_t kSmem64Bytes = sizeof(Smem64) + 1024;

template <bool kSplit>
__global__ void __launch_bounds__(384, 1)
    sharing64_kernel(int config, int rounds, unsigned long long* out, float* sink) {
  extern __shared__ unsigned char smem_raw[];
  Smem64& sm = *reinterpret_cast<Smem64*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                          ~uintptr_t(1023));
  __shared__ volatile int stop;
  __shared__ int go;
  {
    __half* h = reinterpret_cast<__half*>(&sm);
    for (uint32_t i = threadIdx.x; i < sizeof(Smem64) / 2; i += blockDim.x)
      h[i] = __float2half(hash_unit(i, 9) * 0.25f);
  }
  if (threadIdx.x == 0) stop = 0;
  fence_proxy_async_smem();
  __syncthreads();
  const int wg = threadIdx.x / 128;
  const bool second = config == k64Pair || config == k64Triple || config == k64PairTensor;
  const bool third_softmax = config == k64Triple;
  const bool tensor = config == k64Tensor || config == k64PairTensor;
  if (wg == 2 && tensor) {
    float s[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) s[i] = 0.f;
    const uint32_t a0 = smem_u32(sm.a), k0 = smem_u32(sm.k);
    const uint32_t none[4] = {0, 0, 0, 0};
    for (;;) {  // thread 256 reads the flag; the whole warpgroup follows (wgmma is collective)
      if ((threadIdx.x & 127) == 0) go = !stop;
      named_bar_sync(1, 128);
      const int g = go;
      named_bar_sync(1, 128);
      if (!g) break;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) {
        const uint32_t off = (kk % 4) * 32;
        mma_n<128, false>(s, desc_kmajor_sw128(a0 + (kk / 4) * kHalfA + off), none,
                          desc_kmajor_sw128(k0 + (kk / 4) * kHalfB64 + off), 1u);
      }
      wgmma_commit();
      wgmma_wait<1>();
    }
    wgmma_wait<0>();
    fence_regs(s);
    float acc = 0.f;
#pragma unroll
    for (int i = 0; i < 64; ++i) acc += s[i];
    if (acc == 1234.5f) *sink = acc;
    return;
  }
  if ((wg == 1 && !second) || (wg == 2 && !third_softmax)) return;
  float s[64], o[32], m[2] = {0.f, 0.f}, l[2] = {1.f, 1.f};
  uint32_t p[32];
#pragma unroll
  for (int i = 0; i < 64; ++i) s[i] = 0.01f * ((threadIdx.x + i) % 17) - 0.08f;
#pragma unroll
  for (int i = 0; i < 32; ++i) o[i] = 0.001f * i;
#pragma unroll
  for (int j = 0; j < 32; ++j) p[j] = 0;
  const float scale_log2 = 0.127f;
  if (wg == 0) {
    softmax64_round<kSplit>(s, o, p, m, l, scale_log2);  // warm-up round
    named_bar_sync(2, 128);
    const uint64_t t0 = clock_cycles();
    for (int r = 0; r < rounds; ++r) softmax64_round<kSplit>(s, o, p, m, l, scale_log2);
    fence_regs(s);
    named_bar_sync(2, 128);
    const uint64_t t1 = clock_cycles();
    if ((threadIdx.x & 127) == 0) {
      *out = t1 - t0;
      stop = 1;
    }
  } else {
    while (!stop) softmax64_round<kSplit>(s, o, p, m, l, scale_log2);
  }
  float acc = m[0] + m[1] + l[0] + l[1];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc += s[i];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc += o[i] + __uint_as_float(p[i] & 0x3fffffffu);
  if (acc == 1234.5f) *sink = acc;
}

template <bool kSplit>
void run_d64(CsvOut& csv, int rounds, unsigned long long* dout, float* dsink, double mhz) {
  SIMFA_CUDA_CHECK(cudaFuncSetAttribute(sharing64_kernel<kSplit>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(kSmem64Bytes)));
  unsigned long long alone = 0;
  for (int config = 0; config < kNumConfig64; ++config) {
    sharing64_kernel<kSplit><<<1, 384, kSmem64Bytes>>>(config, rounds, dout, dsink);
    SIMFA_CUDA_CHECK(cudaGetLastError());
    unsigned long long cyc = 0;
    SIMFA_CUDA_CHECK(cudaMemcpy(&cyc, dout, sizeof cyc, cudaMemcpyDeviceToHost));
    if (config == k64Alone) alone = cyc;
    csv.linef("%s,%s,%d,%llu,%.1f,%.4f,%.0f\n", kSplit ? "softmax64_split" : "softmax64",
              kConfig64Names[config], rounds, cyc,
              double(cyc) / rounds, alone ? double(cyc) / alone : 0.0, mhz);
  }
}

const char* kUsage =
    "simfa-ubench-sharing: a softmax-like CUDA-core mix in one WarpGroup, alone, next to the same\n"
    "mix in a second WarpGroup, next to wgmma in a third, and both (one CTA on one SM).\n"
    "Also FA3's head-dim-64 consumer: 64 x 128 softmax blocks in one, two and three WarpGroups.\n"
    "  --out-dir DIR   write sharing.csv and sharing_d64.csv there (default: stdout only)\n"
    "  --rounds N      timed mix rounds (default 800)\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string out_dir = args.str("--out-dir", "");
  const int rounds = static_cast<int>(args.num("--rounds", 800));
  args.done();
  if (rounds < 1 || rounds > 1000000) args.fail("--rounds must be in 1..1000000");
  const DeviceInfo dev = query_device();
  unsigned long long* dout = nullptr;
  float* dsink = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dout, sizeof(unsigned long long)));
  SIMFA_CUDA_CHECK(cudaMalloc(&dsink, sizeof(float)));
  const double mhz = measure_sm_clock_mhz();
  CsvOut csv(out_dir.empty() ? "" : out_dir + "/sharing.csv");
  csv.line(device_comment(dev));
  csv.line("# benchmark=one CTA of 3 warpgroups on one SM: WG1 timed mix rounds; WG2 the same mix "
           "in the background (pair); WG0 8 x wgmma m64n176k16 SS groups in the background "
           "(tensor); slowdown against WG1 alone; the softmax mix in a CTA of WG1 and WG2 only\n");
  csv.line("mix,config,rounds,cycles,cycles_per_round,slowdown_vs_alone,clock_mhz\n");
  run_mix<kMixFfma>(csv, rounds, dout, dsink, mhz);
  run_mix<kMixEx2>(csv, rounds, dout, dsink, mhz);
  run_mix<kMixFmnmx>(csv, rounds, dout, dsink, mhz);
  run_mix<kMixF2fp>(csv, rounds, dout, dsink, mhz);
  run_mix<kMixFfmaEx2>(csv, rounds, dout, dsink, mhz);
  run_mix<kMixSoftmax, false>(csv, rounds, dout, dsink, mhz);
  run_mix<kMixSoftmaxFast, false>(csv, rounds, dout, dsink, mhz);
  run_mix<kMixSoftmaxFastSplit, false>(csv, rounds, dout, dsink, mhz);
  CsvOut csv64(out_dir.empty() ? "" : out_dir + "/sharing_d64.csv");
  csv64.line(device_comment(dev));
  csv64.line("# benchmark=one CTA of 3 warpgroups on one SM: WG0 timed rounds of FA3's head-dim-64 "
             "consumer softmax (64 x 128 block, fast exp, O rescale, P conversion); WG1 the same in "
             "the background (pair, triple, pair_tensor); WG2 the same (triple) or 8 x wgmma "
             "m64n128k16 SS groups (tensor, pair_tensor); slowdown against WG0 alone\n");
  csv64.line("mix,config,rounds,cycles,cycles_per_round,slowdown_vs_alone,clock_mhz\n");
  run_d64<false>(csv64, rounds, dout, dsink, mhz);
  run_d64<true>(csv64, rounds, dout, dsink, mhz);
  SIMFA_CUDA_CHECK(cudaFree(dout));
  SIMFA_CUDA_CHECK(cudaFree(dsink));
  return 0;
}
