// Launch and prologue cost of a persistent kernel shaped like the attention kernel (one CTA per
// SM, 384 threads, the attention kernel's dynamic shared memory), with three bodies:
//   empty      nothing but two timer reads
//   init       thread 0 initialises 9 mbarriers (+ fence.mbarrier_init), then __syncthreads
//   init_tmap  as init, plus prefetch.tensormap of three TensorMaps (__grid_constant__)
// and, for reference, a one-warp kernel with no shared memory (tiny). Per kernel:
//   event_us_single          CUDA events around one launch queued behind a 30 us spin kernel
//                            (so no host launch latency is in the interval), median of --runs
//   event_us_back_to_back    events around 100 launches in one stream, per launch
//   event_us_graph           events around one CUDA graph of 100 launches, per launch
//   gap_prev_end_ns          %globaltimer from the end of the spin kernel before it to the first
//                            CTA's start: the launch latency between dependent kernels
//   cta_start_skew_ns        first to last CTA start
//   span_ns                  first CTA start to last CTA end (what the kernel itself takes)
//   prologue_cycles          clock64 from a CTA's first instruction to after the __syncthreads
//                            that follows barrier initialisation (median over CTAs and runs)
// Output launch.csv.
#include <algorithm>
#include <string>
#include <vector>

#include "../attn/attn_kernel.cuh"
#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "../common/ptx.cuh"
#include "../common/tensormap.h"

using namespace simfa_gpu;

namespace {

struct CtaRec {
  unsigned long long g_start, g_end, c_start, c_init;
};

__global__ void spin_kernel(uint64_t ns, unsigned long long* end_ns) {
  const uint64_t g0 = global_ns();
  uint64_t g = g0;
  while (g - g0 < ns) g = global_ns();
  *end_ns = g;
}

enum Body { kEmpty, kInit, kInitTmap, kNumBodies };
const char* const kBodyNames[kNumBodies] = {"empty", "init", "init_tmap"};

template <int kBody>
__global__ void __launch_bounds__(384, 1)
    persistent_kernel(const __grid_constant__ CUtensorMap t0, const __grid_constant__ CUtensorMap t1,
                      const __grid_constant__ CUtensorMap t2, CtaRec* rec) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ alignas(8) uint64_t bars[9];
  const uint64_t g0 = global_ns(), c0 = clock_cycles();
  if constexpr (kBody != kEmpty) {
    if (threadIdx.x == 0) {
      if constexpr (kBody == kInitTmap) {
        tma_prefetch_desc(&t0);
        tma_prefetch_desc(&t1);
        tma_prefetch_desc(&t2);
      }
      for (int i = 0; i < 9; ++i) mbar_init(smem_u32(&bars[i]), i < 5 ? 1 : 2);
      mbar_init_fence();
    }
    __syncthreads();
  }
  const uint64_t c1 = clock_cycles();
  if (rec && threadIdx.x == 0) {
    smem_raw[0] = 1;  // touch the dynamic allocation
    rec[blockIdx.x] = CtaRec{g0, global_ns(), c0, c1};
  }
}

__global__ void tiny_kernel(CtaRec* rec) {
  const uint64_t g0 = global_ns(), c0 = clock_cycles();
  if (rec && threadIdx.x == 0) rec[blockIdx.x] = CtaRec{g0, global_ns(), c0, clock_cycles()};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Ctx {
  int grid = 0, threads = 0;
  size_t smem = 0;
  CUtensorMap maps[3];
  CtaRec* rec = nullptr;
  unsigned long long* spin_end = nullptr;
  cudaEvent_t e0, e1;
};

template <int kBody>
void launch(const Ctx& c, bool tiny, CtaRec* rec, cudaStream_t st) {
  if (tiny)
    tiny_kernel<<<1, 32, 0, st>>>(rec);
  else
    persistent_kernel<kBody><<<c.grid, c.threads, c.smem, st>>>(c.maps[0], c.maps[1], c.maps[2], rec);
}

template <int kBody>
void measure(CsvOut& csv, const Ctx& c, bool tiny, int runs, double mhz) {
  const int grid = tiny ? 1 : c.grid;
  std::vector<double> single, gap, skew, span, prologue;
  for (int r = 0; r < runs + 3; ++r) {
    spin_kernel<<<1, 1>>>(30000, c.spin_end);
    SIMFA_CUDA_CHECK(cudaEventRecord(c.e0));
    launch<kBody>(c, tiny, c.rec, 0);
    SIMFA_CUDA_CHECK(cudaEventRecord(c.e1));
    SIMFA_CUDA_CHECK(cudaEventSynchronize(c.e1));
    SIMFA_CUDA_CHECK(cudaGetLastError());
    if (r < 3) continue;  // warm-up
    float ms = 0;
    SIMFA_CUDA_CHECK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    single.push_back(1e3 * ms);
    std::vector<CtaRec> rec(grid);
    unsigned long long spin_end = 0;
    SIMFA_CUDA_CHECK(cudaMemcpy(rec.data(), c.rec, sizeof(CtaRec) * grid, cudaMemcpyDeviceToHost));
    SIMFA_CUDA_CHECK(cudaMemcpy(&spin_end, c.spin_end, sizeof spin_end, cudaMemcpyDeviceToHost));
    unsigned long long s_min = ~0ull, s_max = 0, e_max = 0;
    for (const CtaRec& x : rec) {
      s_min = std::min(s_min, x.g_start), s_max = std::max(s_max, x.g_start);
      e_max = std::max(e_max, x.g_end);
      prologue.push_back(double(x.c_init - x.c_start));
    }
    gap.push_back(double(s_min) - double(spin_end));
    skew.push_back(double(s_max - s_min));
    span.push_back(double(e_max - s_min));
  }
  // Back to back: 100 launches without records between two events.
  constexpr int kBatch = 100;
  std::vector<double> b2b, graph;
  for (int r = 0; r < 5; ++r) {
    SIMFA_CUDA_CHECK(cudaEventRecord(c.e0));
    for (int i = 0; i < kBatch; ++i) launch<kBody>(c, tiny, nullptr, 0);
    SIMFA_CUDA_CHECK(cudaEventRecord(c.e1));
    SIMFA_CUDA_CHECK(cudaEventSynchronize(c.e1));
    SIMFA_CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    SIMFA_CUDA_CHECK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    b2b.push_back(1e3 * ms / kBatch);
  }
  cudaStream_t st;
  SIMFA_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  SIMFA_CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kBatch; ++i) launch<kBody>(c, tiny, nullptr, st);
  SIMFA_CUDA_CHECK(cudaStreamEndCapture(st, &g));
  SIMFA_CUDA_CHECK(cudaGraphInstantiate(&ge, g, 0));
  for (int r = 0; r < 6; ++r) {
    SIMFA_CUDA_CHECK(cudaEventRecord(c.e0, st));
    SIMFA_CUDA_CHECK(cudaGraphLaunch(ge, st));
    SIMFA_CUDA_CHECK(cudaEventRecord(c.e1, st));
    SIMFA_CUDA_CHECK(cudaEventSynchronize(c.e1));
    float ms = 0;
    SIMFA_CUDA_CHECK(cudaEventElapsedTime(&ms, c.e0, c.e1));
    if (r > 0) graph.push_back(1e3 * ms / kBatch);
  }
  SIMFA_CUDA_CHECK(cudaGraphExecDestroy(ge));
  SIMFA_CUDA_CHECK(cudaGraphDestroy(g));
  SIMFA_CUDA_CHECK(cudaStreamDestroy(st));
  csv.linef("%s,%d,%d,%zu,%.3f,%.3f,%.3f,%.0f,%.0f,%.0f,%.0f,%.0f\n",
            tiny ? "tiny" : kBodyNames[kBody], grid, tiny ? 32 : c.threads, tiny ? size_t(0) : c.smem,
            median(single), median(b2b), median(graph), median(gap), median(skew), median(span),
            median(prologue), mhz);
}

const char* kUsage =
    "simfa-ubench-launch: launch and prologue cost of a persistent kernel shaped like the\n"
    "attention kernel (one CTA per SM, 384 threads, its shared memory): empty body, mbarrier\n"
    "initialisation, and TensorMap prefetch; CUDA events, graphs and %globaltimer gaps.\n"
    "  --out-dir DIR   write launch.csv there (default: stdout only)\n"
    "  --runs N        single-launch repetitions, median kept (default 50)\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string out_dir = args.str("--out-dir", "");
  const int runs = static_cast<int>(args.num("--runs", 50));
  args.done();
  if (runs < 1 || runs > 100000) args.fail("--runs must be in 1..100000");
  const DeviceInfo dev = query_device();
  Ctx c;
  c.grid = dev.sm_count;
  c.threads = 384;
  c.smem = simfa_attn::kSmemBytes;
  void* buf = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&buf, 1 << 20));
  for (int i = 0; i < 3; ++i) {  // 512 x 512 FP16, box 64 x 64, as the kernel's maps are shaped
    const cuuint64_t dims[2] = {512, 512}, strides[1] = {1024};
    const cuuint32_t box[2] = {64, 64};
    c.maps[i] = make_tensormap(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, buf, dims, strides, box,
                               CU_TENSOR_MAP_SWIZZLE_128B);
  }
  SIMFA_CUDA_CHECK(cudaMalloc(&c.rec, sizeof(CtaRec) * c.grid));
  SIMFA_CUDA_CHECK(cudaMalloc(&c.spin_end, sizeof(unsigned long long)));
  SIMFA_CUDA_CHECK(cudaEventCreate(&c.e0));
  SIMFA_CUDA_CHECK(cudaEventCreate(&c.e1));
  for (const void* k : {reinterpret_cast<const void*>(persistent_kernel<kEmpty>),
                        reinterpret_cast<const void*>(persistent_kernel<kInit>),
                        reinterpret_cast<const void*>(persistent_kernel<kInitTmap>)})
    SIMFA_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(c.smem)));
  const double mhz = measure_sm_clock_mhz();
  CsvOut csv(out_dir.empty() ? "" : out_dir + "/launch.csv");
  csv.line(device_comment(dev));
  csv.linef("# benchmark=launch and prologue cost; single: events around one launch queued behind "
            "a 30 us spin, median of %d; back_to_back: 100 launches between events (5 times, "
            "median); graph: one graph of 100 launches (5 times, median); gap/skew/span from "
            "%%globaltimer; prologue from clock64\n",
            runs);
  csv.line("kernel,grid,threads,smem_bytes,event_us_single,event_us_back_to_back,event_us_graph,"
           "gap_prev_end_ns,cta_start_skew_ns,span_ns,prologue_cycles,clock_mhz\n");
  measure<kEmpty>(csv, c, true, runs, mhz);
  measure<kEmpty>(csv, c, false, runs, mhz);
  measure<kInit>(csv, c, false, runs, mhz);
  measure<kInitTmap>(csv, c, false, runs, mhz);
  SIMFA_CUDA_CHECK(cudaFree(buf));
  SIMFA_CUDA_CHECK(cudaFree(c.rec));
  SIMFA_CUDA_CHECK(cudaFree(c.spin_end));
  return 0;
}
