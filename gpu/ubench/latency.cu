// Pointer-chase latency (microbench-methods.md): one thread follows a random cyclic permutation of
// lines 128 B apart, one request in flight; either ordinary loads (ld.global.ca, L1-cacheable) or a
// 16-byte cp.async.bulk into shared memory completing on an mbarrier (expect-tx) per hop. The
// permutation is a keyed Feistel bijection built on the device, so a 2 GiB set costs no host work.
// Output: load_latency.csv / tma_latency.csv in the reference columns
//   working_set_kib,latency_ns,latency_cycles,clock_mhz
// plus '#' header lines (device, method). latency = min over runs of (run time / hops).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "../common/ptx.cuh"

using namespace simfa_gpu;

namespace {

constexpr uint32_t kLineWords = 16;  // 128 B / 8 B
constexpr int kMaxRuns = 16;

// ---- permutation: Feistel network over 2*half_bits bits, cycle-walked into [0, n) -------------
__device__ __forceinline__ uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
__device__ __forceinline__ uint32_t feistel_perm(uint32_t i, uint32_t n, uint32_t half_bits,
                                                 uint32_t key) {
  const uint32_t mask = (1u << half_bits) - 1u;
  uint32_t x = i;
  do {
    uint32_t l = x >> half_bits, r = x & mask;
    for (uint32_t round = 0; round < 4; ++round) {
      const uint32_t f = mix32(r ^ (key + round * 0x9e3779b9U)) & mask;
      const uint32_t t = l ^ f;
      l = r;
      r = t;
    }
    x = (l << half_bits) | r;
  } while (x >= n);  // cycle walking: the domain is at most 4n, so few extra rounds
  return x;
}

// Line perm(i) points at line perm(i+1): one cycle through all n lines.
__global__ void build_chase(uint64_t* buf, uint32_t n, uint32_t half_bits, uint32_t key) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t a = feistel_perm(i, n, half_bits, key);
    const uint32_t b = feistel_perm(i + 1 == n ? 0 : i + 1, n, half_bits, key);
    buf[uint64_t(a) * kLineWords] = reinterpret_cast<uint64_t>(buf + uint64_t(b) * kLineWords);
  }
}

struct ChaseResult {
  unsigned long long cycles[kMaxRuns];
  unsigned long long ns[kMaxRuns];
  unsigned long long sink;
};

__device__ __forceinline__ uint64_t ld_hop(uint64_t p) {
  uint64_t q;
  asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(q) : "l"(p) : "memory");
  return q;
}

// One thread: warm-up hops, then `runs` timed runs of `hops` hops each.
__global__ void chase_ld(const uint64_t* start, uint32_t warm, uint32_t hops, int runs,
                         ChaseResult* out) {
  uint64_t p = reinterpret_cast<uint64_t>(start);
  for (uint32_t i = 0; i < warm; ++i) p = ld_hop(p);
  for (int r = 0; r < runs; ++r) {
    const uint64_t g0 = global_ns(), c0 = clock_cycles();
    for (uint32_t i = 0; i < hops; i += 4) {
      p = ld_hop(p);
      p = ld_hop(p);
      p = ld_hop(p);
      p = ld_hop(p);
    }
    const uint64_t c1 = clock_cycles(), g1 = global_ns();
    out->cycles[r] = c1 - c0;
    out->ns[r] = g1 - g0;
  }
  out->sink = p;
}

__global__ void chase_tma(const uint64_t* start, uint32_t warm, uint32_t hops, int runs,
                          ChaseResult* out) {
  __shared__ alignas(128) uint64_t dst[2];
  __shared__ alignas(8) uint64_t bar;
  const uint32_t sdst = smem_u32(dst), sbar = smem_u32(&bar);
  mbar_init(sbar, 1);
  mbar_init_fence();
  uint32_t phase = 0;
  uint64_t p = reinterpret_cast<uint64_t>(start);
  auto hop = [&](uint64_t a) -> uint64_t {
    mbar_arrive_expect_tx(sbar, 16);
    tma_bulk_g2s(sdst, reinterpret_cast<const void*>(a), 16, sbar);
    mbar_wait(sbar, phase);
    phase ^= 1u;
    return *reinterpret_cast<volatile uint64_t*>(dst);
  };
  for (uint32_t i = 0; i < warm; ++i) p = hop(p);
  for (int r = 0; r < runs; ++r) {
    const uint64_t g0 = global_ns(), c0 = clock_cycles();
    for (uint32_t i = 0; i < hops; ++i) p = hop(p);
    const uint64_t c1 = clock_cycles(), g1 = global_ns();
    out->cycles[r] = c1 - c0;
    out->ns[r] = g1 - g0;
  }
  out->sink = p;
}

const char* kUsage =
    "simfa-ubench-latency: pointer-chase latency of ordinary loads and 16-byte TMA bulk copies.\n"
    "  --kind ld|tma|both     which chase (default both)\n"
    "  --out-dir DIR          write load_latency.csv / tma_latency.csv there (default: stdout only)\n"
    "  --min-kib N            smallest working set (default 2)\n"
    "  --max-mib N            largest working set (default 2048)\n"
    "  --step PCT             geometric step in percent (default 25)\n"
    "  --dense-lo-mib/--dense-hi-mib/--dense-step  extra points around the L2 transition\n"
    "                         (default 16 / 128 MiB, 6%%)\n"
    "  --hops N               hops per timed run (default 131072)\n"
    "  --runs N               timed runs per point, min kept (default 3)\n"
    "  --warm-max N           sets up to N lines get a full warm-up pass, larger ones 65536 hops\n"
    "                         (default 1048576 = 128 MiB)\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string kind = args.str("--kind", "both");
  const std::string out_dir = args.str("--out-dir", "");
  const double min_kib = static_cast<double>(args.num("--min-kib", 2));
  const double max_mib = static_cast<double>(args.num("--max-mib", 2048));
  const double step = 1.0 + static_cast<double>(args.num("--step", 25)) / 100.0;
  const double dlo = static_cast<double>(args.num("--dense-lo-mib", 16));
  const double dhi = static_cast<double>(args.num("--dense-hi-mib", 128));
  const double dstep = 1.0 + static_cast<double>(args.num("--dense-step", 6)) / 100.0;
  const uint32_t hops = static_cast<uint32_t>(args.num("--hops", 131072)) & ~3u;
  const int runs = static_cast<int>(std::clamp<long long>(args.num("--runs", 3), 1, kMaxRuns));
  const uint32_t warm_max = static_cast<uint32_t>(args.num("--warm-max", 1 << 20));
  args.done();
  if (kind != "ld" && kind != "tma" && kind != "both") args.fail("--kind must be ld, tma or both");
  if (hops == 0) args.fail("--hops must be >= 4");

  // Working sets in lines (128 B), ascending and unique.
  std::vector<uint32_t> lines;
  for (double kib = min_kib; kib <= max_mib * 1024.0 + 1e-9; kib *= step)
    lines.push_back(static_cast<uint32_t>(std::ceil(kib * 8.0)));
  for (double mib = dlo; mib <= dhi + 1e-9; mib *= dstep)
    lines.push_back(static_cast<uint32_t>(std::ceil(mib * 1024.0 * 8.0)));
  lines.push_back(static_cast<uint32_t>(max_mib * 1024.0 * 8.0));
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  while (!lines.empty() && lines.back() > static_cast<uint32_t>(max_mib * 1024.0 * 8.0))
    lines.pop_back();

  const DeviceInfo dev = query_device();
  const uint32_t max_lines = lines.back();
  uint64_t* buf = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&buf, uint64_t(max_lines) * 128));
  ChaseResult* dres = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dres, sizeof(ChaseResult)));

  for (int pass = 0; pass < 2; ++pass) {
    const bool tma = pass == 1;
    if ((tma && kind == "ld") || (!tma && kind == "tma")) continue;
    const std::string name = tma ? "tma_latency.csv" : "load_latency.csv";
    CsvOut csv(out_dir.empty() ? "" : out_dir + "/" + name);
    csv.line(device_comment(dev));
    csv.linef("# benchmark=%s\n", tma ? "pointer chase, 16-byte cp.async.bulk + mbarrier per hop"
                                      : "pointer chase, ld.global.ca.u64 per hop");
    csv.linef("# method=lines 128 B apart in a Feistel-random cycle; warm-up = one pass if lines <= %u"
              " else 65536 hops;"
              " %d runs of %u hops; min kept; clock_mhz = cycles/ns of that run\n",
              warm_max, runs, hops);
    csv.line("working_set_kib,latency_ns,latency_cycles,clock_mhz\n");
    for (uint32_t n : lines) {
      uint32_t half_bits = 1;
      while ((uint64_t(1) << (2 * half_bits)) < n) ++half_bits;
      build_chase<<<1024, 256>>>(buf, n, half_bits, 0x5eed0000u + n);
      SIMFA_CUDA_CHECK(cudaGetLastError());
      // Sets up to warm_max lines get one full pass (every line cached as it would be in steady
      // state); larger ones are DRAM-bound anyway and get a short warm-up (TLB, clocks).
      const uint32_t warm = n <= warm_max ? n : std::min<uint32_t>(n, 65536);
      if (tma)
        chase_tma<<<1, 1>>>(buf, warm, hops, runs, dres);
      else
        chase_ld<<<1, 1>>>(buf, warm, hops, runs, dres);
      SIMFA_CUDA_CHECK(cudaGetLastError());
      ChaseResult r{};
      SIMFA_CUDA_CHECK(cudaMemcpy(&r, dres, sizeof r, cudaMemcpyDeviceToHost));
      int best = 0;
      for (int i = 1; i < runs; ++i)
        if (r.cycles[i] < r.cycles[best]) best = i;
      const double cyc = static_cast<double>(r.cycles[best]) / hops;
      const double ns = static_cast<double>(r.ns[best]) / hops;
      const double mhz = r.ns[best] ? 1e3 * r.cycles[best] / static_cast<double>(r.ns[best]) : 0;
      csv.linef("%llu,%.1f,%.1f,%.0f\n", (unsigned long long)(uint64_t(n) * 128 / 1024), ns, cyc,
                mhz);
    }
  }
  SIMFA_CUDA_CHECK(cudaFree(dres));
  SIMFA_CUDA_CHECK(cudaFree(buf));
  std::fprintf(stderr, "# effective SM clock after the sweep: %.0f MHz\n", measure_sm_clock_mhz());
  return 0;
}
