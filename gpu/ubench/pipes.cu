// CUDA-core pipes of one SM: throughput and dependent latency of the instructions in an attention
// kernel's softmax. One block on one SM; each thread runs `ilp` independent chains of one op for
// `iters` x 8 steps. warps = 1, ilp = 1 gives the dependent latency (cycles per op on one chain);
// many warps and chains give the SM's throughput (lane results per cycle). Ops (inline PTX, so the
// compiler keeps each one):
//   ex2    ex2.approx.ftz.f32 of -x (MUFU.EX2)       ffma   fma.rn.f32 (FFMA)
//   fmul   mul.rn.f32                            fadd   add.rn.f32
//   fmnmx  max.f32 (FMNMX)                       f2fp   cvt.rn.f16x2.f32 (F2FP.F16.F32.PACK_AB)
//   shfl   shfl.sync.bfly.b32 (SHFL.BFLY)        ffma_ex2  fma then ex2 (FA3's exp2(x*scale - max))
// Output pipes.csv:
//   op,warps,ilp,steps_per_thread,cycles,lane_ops_per_cycle_per_sm,cycles_per_op_per_chain,clock_mhz
#include <string>
#include <vector>

#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "../common/pipe_ops.cuh"
#include "../common/ptx.cuh"

using namespace simfa_gpu;

namespace {

constexpr int kUnroll = 8;

template <int kOp, int kIlp>
__global__ void pipe_kernel(int iters, unsigned long long* cycles, float* sink) {
  float x[kIlp];
#pragma unroll
  for (int i = 0; i < kIlp; ++i) x[i] = 0.25f + 1e-4f * threadIdx.x + 1e-3f * i;
  const float c = kOp == kFfmaEx2 ? -0.999f : 0.999f;  // ffma_ex2: x = 2^(-0.999 x - 0.999)
  // One untimed pass warms the instruction cache.
  for (int it = 0; it < 2; ++it)
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int i = 0; i < kIlp; ++i) pipe_step<kOp>(x[i], c);
  __syncthreads();
  const uint64_t t0 = clock_cycles();
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int i = 0; i < kIlp; ++i) pipe_step<kOp>(x[i], c);
  __syncthreads();
  const uint64_t t1 = clock_cycles();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < kIlp; ++i) s += x[i];
  if (threadIdx.x == 0) *cycles = t1 - t0;
  if (s == 1234.5f) *sink = s;  // never true in practice; keeps the chains alive
}

struct Dev {
  unsigned long long* cycles;
  float* sink;
};

template <int kOp, int kIlp>
void run_point(CsvOut& csv, const Dev& d, int warps, int iters, double mhz) {
  pipe_kernel<kOp, kIlp><<<1, 32 * warps>>>(iters, d.cycles, d.sink);
  SIMFA_CUDA_CHECK(cudaGetLastError());
  unsigned long long cyc = 0;
  SIMFA_CUDA_CHECK(cudaMemcpy(&cyc, d.cycles, sizeof cyc, cudaMemcpyDeviceToHost));
  const double steps = static_cast<double>(iters) * kUnroll;  // per chain
  const double lane_ops = steps * kIlp * 32.0 * warps;
  csv.linef("%s,%d,%d,%.0f,%llu,%.3f,%.3f,%.0f\n", kOpNames[kOp], warps, kIlp, steps * kIlp, cyc,
            cyc ? lane_ops / cyc : 0.0, steps > 0 ? cyc / steps : 0.0, mhz);
}

template <int kOp>
void run_op(CsvOut& csv, const Dev& d, int iters, double mhz) {
  run_point<kOp, 1>(csv, d, 1, iters, mhz);  // dependent latency
  for (int warps : {4, 8, 16, 32}) {
    run_point<kOp, 1>(csv, d, warps, iters, mhz);
    run_point<kOp, 4>(csv, d, warps, iters, mhz);
    run_point<kOp, 8>(csv, d, warps, iters, mhz);
  }
}

const char* kUsage =
    "simfa-ubench-pipes: throughput and dependent latency of MUFU.EX2, FFMA, FMUL, FADD, FMNMX,\n"
    "F2FP, SHFL and FFMA+EX2 on one SM (1-32 warps, 1-8 independent chains per thread).\n"
    "  --out-dir DIR   write pipes.csv there (default: stdout only)\n"
    "  --iters N       loop iterations (x8 steps) per thread (default 4096)\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string out_dir = args.str("--out-dir", "");
  const int iters = static_cast<int>(args.num("--iters", 4096));
  args.done();
  if (iters < 1 || iters > (1 << 24)) args.fail("--iters must be in 1..16777216");
  const DeviceInfo dev = query_device();
  Dev d{};
  SIMFA_CUDA_CHECK(cudaMalloc(&d.cycles, sizeof(unsigned long long)));
  SIMFA_CUDA_CHECK(cudaMalloc(&d.sink, sizeof(float)));
  const double mhz = measure_sm_clock_mhz();
  CsvOut csv(out_dir.empty() ? "" : out_dir + "/pipes.csv");
  csv.line(device_comment(dev));
  csv.linef("# benchmark=CUDA-core pipes, one block on one SM, %d iterations x %d steps per chain;"
            " cycles = clock64 of thread 0 between two __syncthreads; lane_ops_per_cycle_per_sm = "
            "32 x warps x ilp x steps / cycles; cycles_per_op_per_chain = cycles / steps "
            "(the dependent latency when warps = ilp = 1)\n",
            iters, kUnroll);
  csv.line("op,warps,ilp,steps_per_thread,cycles,lane_ops_per_cycle_per_sm,"
           "cycles_per_op_per_chain,clock_mhz\n");
  run_op<kEx2>(csv, d, iters, mhz);
  run_op<kFfma>(csv, d, iters, mhz);
  run_op<kFmul>(csv, d, iters, mhz);
  run_op<kFadd>(csv, d, iters, mhz);
  run_op<kFmnmx>(csv, d, iters, mhz);
  run_op<kF2fp>(csv, d, iters, mhz);
  run_op<kShfl>(csv, d, iters, mhz);
  run_op<kFfmaEx2>(csv, d, iters, mhz);
  SIMFA_CUDA_CHECK(cudaFree(d.cycles));
  SIMFA_CUDA_CHECK(cudaFree(d.sink));
  return 0;
}
