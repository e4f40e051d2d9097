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

using namespace simfa_gpu;

namespace {

constexpr int kChain = 16;  // wgmmas per commit group in the throughput loop

struct Result {
  unsigned long long lat_cycles, thr_cycles, sink;
};

template <int kN, bool kRS>
__device__ __forceinline__ void mma(float (&d)[kN / 2], uint64_t da, const uint32_t (&a)[4],
                                    uint64_t db) {
  if constexpr (kN == 8) {
    if constexpr (kRS) wgmma_m64n8k16_rs(d, a, db, 1); else wgmma_m64n8k16_ss(d, da, db, 1);
  } else if constexpr (kN == 16) {
    if constexpr (kRS) wgmma_m64n16k16_rs(d, a, db, 1); else wgmma_m64n16k16_ss(d, da, db, 1);
  } else if constexpr (kN == 32) {
    if constexpr (kRS) wgmma_m64n32k16_rs(d, a, db, 1); else wgmma_m64n32k16_ss(d, da, db, 1);
  } else if constexpr (kN == 64) {
    if constexpr (kRS) wgmma_m64n64k16_rs(d, a, db, 1); else wgmma_m64n64k16_ss(d, da, db, 1);
  } else if constexpr (kN == 128) {
    if constexpr (kRS) wgmma_m64n128k16_rs(d, a, db, 1); else wgmma_m64n128k16_ss(d, da, db, 1);
  } else if constexpr (kN == 176) {
    if constexpr (kRS) wgmma_m64n176k16_rs(d, a, db, 1); else wgmma_m64n176k16_ss(d, da, db, 1);
  } else {
    static_assert(kN == 256, "unsupported N");
    if constexpr (kRS) wgmma_m64n256k16_rs(d, a, db, 1); else wgmma_m64n256k16_ss(d, da, db, 1);
  }
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

const char* kUsage =
    "simfa-ubench-wgmma: wgmma m64nNk16 f16 latency and throughput, SS and RS, one warpgroup.\n"
    "  --out-dir DIR   write wgmma.csv there (default: stdout only)\n"
    "  --iters N       iterations per measurement (default 4096)\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string out_dir = args.str("--out-dir", "");
  const int iters = static_cast<int>(args.num("--iters", 4096));
  args.done();
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
  return 0;
}
