// WGMMA latency and throughput for m64nNk16 (f32 += f16 * f16), N in {8,16,32,64,128,176,256},
// A from shared memory (SS) or registers (RS), B from shared memory; both K-major, 128-byte
// swizzle (the attention kernel's layout). One warpgroup on one SM:
//   latency:    fence; 1 wgmma; commit; wait_group 0        -> cycles per iteration
//   throughput: fence; kChain dependent-accumulator wgmmas; commit; wait_group 0
//               -> cycles / wgmma (the tensor pipe's issue interval; paper §4.2 models N/2)
// Output wgmma.csv:
//   n,mode,latency_cycles,throughput_cycles_per_wgmma,flop_per_cycle_per_sm,clock_mhz
#include <cuda_fp16.h>

#include <string>

#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "../common/ptx.cuh"
#include "../common/wgmma.cuh"
#include "../common/wgmma_dispatch.cuh"

using namespace simfa_gpu;

namespace {

constexpr int kChain = 16;  // wgmmas per commit group in the throughput loop

struct Result {
  unsigned long long lat_cycles, thr_cycles, sink;
};

template <int kN, bool kRS>
__device__ __forceinline__ void mma(float (&d)[kN / 2], uint64_t da, const uint32_t (&a)[4],
                                    uint64_t db) {
  mma_n<kN, kRS>(d, da, a, db, 1u);
}

template <int kN, bool kRS>
__global__ void __launch_bounds__(128, 1) wgmma_bench(int iters, Result* out) {
  __shared__ alignas(1024) __half sa[64 * 64];   // A: 64 rows x 128 B
  __shared__ alignas(1024) __half sb[256 * 64];  // B: up to 256 rows x 128 B
  for (int i = threadIdx.x; i < 64 * 64; i += 128) sa[i] = __float2half((i % 7) * 0.0625f);
  for (int i = threadIdx.x; i < 256 * 64; i += 128) sb[i] = __float2half((i % 5) * 0.0625f);
  fence_proxy_async_smem();  // generic-proxy stores -> async-proxy (wgmma) reads
  __syncthreads();
  const uint64_t da = desc_kmajor_sw128(smem_u32(sa));
  const uint64_t db = desc_kmajor_sw128(smem_u32(sb));
  uint32_t a[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = 0x2c002c00u + i;  // small halves
  float d[kN / 2];
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) d[i] = 0.f;

  for (int i = 0; i < 8; ++i) {  // warm-up (instruction cache, tensor pipe)
    wgmma_fence();
    mma<kN, kRS>(d, da, a, db);
    wgmma_commit();
    wgmma_wait<0>();
  }
  __syncwarp();
  const uint64_t t0 = clock_cycles();
  for (int i = 0; i < iters; ++i) {
    wgmma_fence();
    mma<kN, kRS>(d, da, a, db);
    wgmma_commit();
    wgmma_wait<0>();
  }
  const uint64_t t1 = clock_cycles();
  for (int i = 0; i < iters / kChain; ++i) {
    wgmma_fence();
#pragma unroll
    for (int c = 0; c < kChain; ++c) mma<kN, kRS>(d, da, a, db);
    wgmma_commit();
    wgmma_wait<0>();
  }
  const uint64_t t2 = clock_cycles();
  fence_regs(d);  // read the accumulators only after the last wait_group
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) s += d[i];
  if (threadIdx.x == 0) {
    out->lat_cycles = t1 - t0;
    out->thr_cycles = t2 - t1;
    out->sink = static_cast<unsigned long long>(s);
  }
}

template <int kN, bool kRS>
void run_one(CsvOut& csv, int iters, Result* dres, double mhz) {
  wgmma_bench<kN, kRS><<<1, 128>>>(iters, dres);
  SIMFA_CUDA_CHECK(cudaGetLastError());
  Result r{};
  SIMFA_CUDA_CHECK(cudaMemcpy(&r, dres, sizeof r, cudaMemcpyDeviceToHost));
  const int thr_iters = (iters / kChain) * kChain;
  const double lat = static_cast<double>(r.lat_cycles) / iters;
  const double thr = static_cast<double>(r.thr_cycles) / thr_iters;
  csv.linef("%d,%s,%.1f,%.2f,%.0f,%.0f\n", kN, kRS ? "RS" : "SS", lat, thr,
            2.0 * 64 * kN * 16 / thr, mhz);
}

template <bool kRS>
void run_all(CsvOut& csv, int iters, Result* dres, double mhz) {
  run_one<8, kRS>(csv, iters, dres, mhz);
  run_one<16, kRS>(csv, iters, dres, mhz);
  run_one<32, kRS>(csv, iters, dres, mhz);
  run_one<64, kRS>(csv, iters, dres, mhz);
  run_one<128, kRS>(csv, iters, dres, mhz);
  run_one<176, kRS>(csv, iters, dres, mhz);
  run_one<256, kRS>(csv, iters, dres, mhz);
}


// ---- chains: issue cost, outstanding limit, completion tail ------------------------------------
// One warpgroup issues `c` wgmmas back to back (dependent: one accumulator; indep2: alternating
// between two accumulators), then commit + wait_group 0. Warp 0 reads clock64 before the first
// wgmma, after the c-th is issued and after the wait returns. Issue time grows by the issue cost
// per wgmma while the tensor core's queue accepts them and by the pipe time once it is full (the
// outstanding limit); completion minus c x N/2 is the tail before wait_group releases. Each chain
// is fully unrolled with one wgmma.fence before it, as FA3 issues its GEMMs (a runtime loop makes
// ptxas insert a warpgroup.arrive before every wgmma). The indep2 form is kept in the code but
// not run: ptxas injects a warpgroup.wait into it (C7517), which would serialise what it measures.
#define SIMFA_CHAINS 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24
constexpr int kChains[] = {SIMFA_CHAINS};
constexpr int kNumChains = sizeof(kChains) / sizeof(kChains[0]);

struct ChainResult {
  unsigned long long issue[kNumChains], complete[kNumChains];
  unsigned long long sink;
};

template <int kN, bool kRS, bool kIndep>
struct ChainCtx {
  float d0[kN / 2];
  float d1[kIndep ? kN / 2 : 1];
  uint64_t da, db;
  uint32_t a[4];
};

template <int kN, bool kRS, bool kIndep, int kC>
__device__ __forceinline__ void chain_point(ChainCtx<kN, kRS, kIndep>& x, int reps, int idx,
                                            ChainResult* out) {
  unsigned long long best_issue = ~0ull, best_complete = ~0ull;
  for (int r = 0; r < reps; ++r) {
    named_bar_sync(1, 128);
    wgmma_fence();
    const uint64_t t0 = clock_cycles();
#pragma unroll
    for (int i = 0; i < kC; ++i) {
      if constexpr (kIndep) {
        if (i & 1) mma_n<kN, kRS>(x.d1, x.da, x.a, x.db, 1u);
        else mma_n<kN, kRS>(x.d0, x.da, x.a, x.db, 1u);
      } else {
        mma_n<kN, kRS>(x.d0, x.da, x.a, x.db, 1u);
      }
    }
    const uint64_t t1 = clock_cycles();
    wgmma_commit();
    wgmma_wait<0>();
    const uint64_t t2 = clock_cycles();
    fence_regs(x.d0);
    if constexpr (kIndep) fence_regs(x.d1);
    best_issue = min(best_issue, static_cast<unsigned long long>(t1 - t0));
    best_complete = min(best_complete, static_cast<unsigned long long>(t2 - t0));
  }
  if (threadIdx.x == 0 && idx >= 0) {
    out->issue[idx] = best_issue;
    out->complete[idx] = best_complete;
  }
}

template <int kN, bool kRS, bool kIndep, int... kCs>
__device__ __forceinline__ void all_chains(ChainCtx<kN, kRS, kIndep>& x, int reps,
                                           ChainResult* out) {
  int idx = 0;
  (chain_point<kN, kRS, kIndep, kCs>(x, reps, idx++, out), ...);
}

template <int kN, bool kRS, bool kIndep>
__global__ void __launch_bounds__(128, 1) wgmma_chain(int reps, ChainResult* out) {
  __shared__ alignas(1024) __half sa[64 * 64];
  __shared__ alignas(1024) __half sb[256 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += 128) sa[i] = __float2half(hash_unit(i, 1) * 0.5f);
  for (int i = threadIdx.x; i < 256 * 64; i += 128) sb[i] = __float2half(hash_unit(i, 2) * 0.5f);
  fence_proxy_async_smem();
  __syncthreads();
  ChainCtx<kN, kRS, kIndep> x;
  x.da = desc_kmajor_sw128(smem_u32(sa));
  x.db = desc_kmajor_sw128(smem_u32(sb));
#pragma unroll
  for (int i = 0; i < 4; ++i) x.a[i] = 0x2c002c00u + i;
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) x.d0[i] = 0.f;
  if constexpr (kIndep) {
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) x.d1[i] = 0.f;
  }
  chain_point<kN, kRS, kIndep, 8>(x, 2, -1, out);  // warm-up
  all_chains<kN, kRS, kIndep, SIMFA_CHAINS>(x, reps, out);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) s += x.d0[i];
  if constexpr (kIndep) {
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) s += x.d1[i];
  }
  if (threadIdx.x == 0) out->sink = static_cast<unsigned long long>(s);
}

template <int kN, bool kRS, bool kIndep>
void run_chain(CsvOut& csv, int reps, ChainResult* dres, double mhz) {
  wgmma_chain<kN, kRS, kIndep><<<1, 128>>>(reps, dres);
  SIMFA_CUDA_CHECK(cudaGetLastError());
  ChainResult r{};
  SIMFA_CUDA_CHECK(cudaMemcpy(&r, dres, sizeof r, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kNumChains; ++i)
    csv.linef("%d,%s,%s,%d,%llu,%llu,%.0f\n", kN, kRS ? "RS" : "SS", kIndep ? "indep2" : "dep",
              kChains[i], r.issue[i], r.complete[i], mhz);
}

// ---- staggered warps: is the wgmma's start collective? -------------------------------------------
// After a named barrier, warp `late` spins `delay` cycles before the four warps issue one wgmma
// (commit, wait_group 0). Each warp reports the cycles from the barrier to its wait's release: if
// the wgmma starts only when the last warp arrives, every warp's completion moves with the delay.
struct StaggerResult {
  unsigned long long complete[4];
};

template <int kN>
__global__ void __launch_bounds__(128, 1) wgmma_stagger(int late, int delay, int reps,
                                                        StaggerResult* out) {
  __shared__ alignas(1024) __half sa[64 * 64];
  __shared__ alignas(1024) __half sb[256 * 64];
  for (int i = threadIdx.x; i < 64 * 64; i += 128) sa[i] = __float2half(hash_unit(i, 3) * 0.5f);
  for (int i = threadIdx.x; i < 256 * 64; i += 128) sb[i] = __float2half(hash_unit(i, 4) * 0.5f);
  fence_proxy_async_smem();
  __syncthreads();
  const uint64_t da = desc_kmajor_sw128(smem_u32(sa));
  const uint64_t db = desc_kmajor_sw128(smem_u32(sb));
  const uint32_t a[4] = {0x2c002c00u, 0x2c002c01u, 0x2c002c02u, 0x2c002c03u};
  float d[kN / 2];
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) d[i] = 0.f;
  const int warp = threadIdx.x / 32;
  unsigned long long best = ~0ull;
  for (int r = 0; r < reps + 2; ++r) {
    named_bar_sync(1, 128);
    const uint64_t t0 = clock_cycles();
    if (warp == late) {
      while (clock_cycles() - t0 < static_cast<uint64_t>(delay)) {
      }
    }
    __syncwarp();
    wgmma_fence();
    mma_n<kN, false>(d, da, a, db, 1u);
    wgmma_commit();
    wgmma_wait<0>();
    const uint64_t t1 = clock_cycles();
    fence_regs(d);
    if (r >= 2) best = min(best, static_cast<unsigned long long>(t1 - t0));
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) s += d[i];
  if ((threadIdx.x & 31) == 0) out->complete[warp] = best + (s == 12345.f ? 1 : 0);
}

template <int kN>
void run_stagger(CsvOut& csv, int reps, StaggerResult* dres, double mhz) {
  for (int late : {3, 0})
    for (int delay : {0, 50, 100, 200, 400, 800}) {
      wgmma_stagger<kN><<<1, 128>>>(late, delay, reps, dres);
      SIMFA_CUDA_CHECK(cudaGetLastError());
      StaggerResult r{};
      SIMFA_CUDA_CHECK(cudaMemcpy(&r, dres, sizeof r, cudaMemcpyDeviceToHost));
      csv.linef("%d,SS,%d,%d,%llu,%llu,%llu,%llu,%.0f\n", kN, late, delay, r.complete[0],
                r.complete[1], r.complete[2], r.complete[3], mhz);
    }
}

const char* kUsage =
    "simfa-ubench-wgmma: wgmma m64nNk16 f16 latency and throughput, SS and RS, one warpgroup.\n"
    "  --out-dir DIR   write wgmma.csv there (default: stdout only)\n"
    "  --iters N       iterations per measurement (default 4096)\n"
    "  --reps N        repetitions per chain / stagger point, minimum kept (default 20)\n"
    "Also writes wgmma_chain.csv (issue and completion cycles of chains of 1-24 wgmmas: issue\n"
    "cost, outstanding limit, tail) and wgmma_stagger.csv (one warp late: collective start).\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string out_dir = args.str("--out-dir", "");
  const int iters = static_cast<int>(args.num("--iters", 4096));
  const int reps = static_cast<int>(args.num("--reps", 20));
  args.done();
  if (reps < 1 || reps > 100000) args.fail("--reps must be in 1..100000");
  if (iters < kChain) args.fail("--iters must be >= 16");
  const DeviceInfo dev = query_device();
  Result* dres = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dres, sizeof(Result)));
  const double mhz = measure_sm_clock_mhz();
  CsvOut csv(out_dir.empty() ? "" : out_dir + "/wgmma.csv");
  csv.line(device_comment(dev));
  csv.linef("# benchmark=wgmma.mma_async m64nNk16.f32.f16.f16, 1 warpgroup, B (and A for SS) "
            "K-major 128B-swizzled smem\n");
  csv.linef("# method=latency: fence+1 wgmma+commit+wait_group 0 per iteration, %d iterations;"
            " throughput: %d dependent-accumulator wgmmas per commit group; clock_mhz measured by "
            "a %%globaltimer spin just before\n",
            iters, kChain);
  csv.line("n,mode,latency_cycles,throughput_cycles_per_wgmma,flop_per_cycle_per_sm,clock_mhz\n");
  run_all<false>(csv, iters, dres, mhz);
  run_all<true>(csv, iters, dres, mhz);
  SIMFA_CUDA_CHECK(cudaFree(dres));

  ChainResult* dchain = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dchain, sizeof(ChainResult)));
  CsvOut chain(out_dir.empty() ? "" : out_dir + "/wgmma_chain.csv");
  chain.line(device_comment(dev));
  chain.linef("# benchmark=wgmma chains: after a named barrier, fence, clock64, c wgmma m64nNk16 "
              "(acc dep: one accumulator; indep2: alternating two), clock64 (issue), commit, "
              "wait_group 0, clock64 (complete); B (and A for SS) K-major 128B-swizzled smem, "
              "random halves; minimum of %d repetitions; one warpgroup on one SM\n", reps);
  chain.line("n,mode,acc,chain,issue_cycles,complete_cycles,clock_mhz\n");
  run_chain<64, false, false>(chain, reps, dchain, mhz);
  run_chain<64, true, false>(chain, reps, dchain, mhz);
  run_chain<128, false, false>(chain, reps, dchain, mhz);
  run_chain<128, true, false>(chain, reps, dchain, mhz);
  run_chain<176, false, false>(chain, reps, dchain, mhz);
  run_chain<256, false, false>(chain, reps, dchain, mhz);
  run_chain<256, true, false>(chain, reps, dchain, mhz);
  SIMFA_CUDA_CHECK(cudaFree(dchain));

  StaggerResult* dstag = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dstag, sizeof(StaggerResult)));
  CsvOut stag(out_dir.empty() ? "" : out_dir + "/wgmma_stagger.csv");
  stag.line(device_comment(dev));
  stag.linef("# benchmark=one wgmma m64nNk16 SS after a named barrier; warp late_warp spins "
             "delay_cycles first; complete_wK = cycles from the barrier to warp K's wait_group 0 "
             "release, minimum of %d repetitions\n", reps);
  stag.line("n,mode,late_warp,delay_cycles,complete_w0,complete_w1,complete_w2,complete_w3,"
            "clock_mhz\n");
  run_stagger<128>(stag, reps, dstag, mhz);
  run_stagger<256>(stag, reps, dstag, mhz);
  SIMFA_CUDA_CHECK(cudaFree(dstag));
  return 0;
}
