// TMA load bandwidth (microbench-methods.md): a grid of 1-4 one-thread blocks per SM walks a 4 GiB
// array, each block with one copy in flight (arm the mbarrier with the expected bytes, issue the
// copy, wait, next). Copy kinds: bulk (cp.async.bulk of load_kib contiguous bytes), tensor1d
// (8-byte elements, so the 256-element box limit reaches 2 KiB), tensor2d over 32768 x 32768
// float32 and tensor3d over 1024^3 float32 (cp.async.bulk.tensor through a CUtensorMap). Blocks
// take tiles grid-stride, x fastest. Output tma_bandwidth.csv, reference columns:
//   copy_kind,box_elems,load_kib,blocks,total_ms,bytes,throughput_gbs
// bytes = copies * box bytes actually moved (a box that does not divide the tensor leaves the
// remainder untouched, e.g. 96x32); total_ms = min over runs of the kernel time (CUDA events).
#include <algorithm>
#include <string>
#include <vector>

#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "../common/ptx.cuh"
#include "../common/tensormap.h"

using namespace simfa_gpu;

namespace {

constexpr uint64_t kArrayBytes = 4ull << 30;

struct Walk {
  const char* src;     // bulk: array base
  uint32_t bytes;      // per copy
  uint64_t copies;     // total copies in the grid
  uint32_t nx, ny;     // tiles per dimension 0 / 1 (tensor kinds)
  uint32_t bx, by, bz;  // box (elements)
};

// kRank 0 = bulk, 1..3 = tensor rank.
template <int kRank>
__global__ void tma_bw_kernel(const __grid_constant__ CUtensorMap tmap, Walk w) {
  extern __shared__ __align__(128) unsigned char smem[];
  __shared__ alignas(8) uint64_t bar;
  const uint32_t sdst = smem_u32(smem), sbar = smem_u32(&bar);
  mbar_init(sbar, 1);
  mbar_init_fence();
  if (kRank > 0) tma_prefetch_desc(&tmap);
  uint32_t phase = 0;
  for (uint64_t t = blockIdx.x; t < w.copies; t += gridDim.x) {
    mbar_arrive_expect_tx(sbar, w.bytes);
    if constexpr (kRank == 0) {
      tma_bulk_g2s(sdst, w.src + t * w.bytes, w.bytes, sbar);
    } else if constexpr (kRank == 1) {
      tma_load_1d(sdst, &tmap, static_cast<int>(t * w.bx), sbar);
    } else if constexpr (kRank == 2) {
      const int x = static_cast<int>(t % w.nx), y = static_cast<int>(t / w.nx);
      tma_load_2d(sdst, &tmap, x * w.bx, y * w.by, sbar);
    } else {
      const uint64_t xy = uint64_t(w.nx) * w.ny;
      const int x = static_cast<int>(t % w.nx), y = static_cast<int>((t / w.nx) % w.ny),
                z = static_cast<int>(t / xy);
      tma_load_3d(sdst, &tmap, x * w.bx, y * w.by, z * w.bz, sbar);
    }
    mbar_wait(sbar, phase);
    phase ^= 1u;
  }
}

struct Case {
  const char* kind;
  uint32_t box[3];  // elements, innermost first; bulk: {bytes,1,1}
};

// The 29 configurations of the reference tma_bandwidth.csv (same order of kinds).
const Case kCases[] = {
    {"bulk", {1024, 1, 1}},      {"bulk", {2048, 1, 1}},      {"bulk", {4096, 1, 1}},
    {"bulk", {8192, 1, 1}},      {"bulk", {12288, 1, 1}},     {"bulk", {16384, 1, 1}},
    {"tensor1d", {64, 1, 1}},    {"tensor1d", {96, 1, 1}},    {"tensor1d", {128, 1, 1}},
    {"tensor1d", {160, 1, 1}},   {"tensor1d", {192, 1, 1}},   {"tensor1d", {256, 1, 1}},
    {"tensor2d", {16, 16, 1}},   {"tensor2d", {32, 16, 1}},   {"tensor2d", {32, 32, 1}},
    {"tensor2d", {64, 32, 1}},   {"tensor2d", {64, 64, 1}},   {"tensor2d", {96, 32, 1}},
    {"tensor3d", {8, 8, 4}},     {"tensor3d", {8, 8, 8}},     {"tensor3d", {16, 8, 8}},
    {"tensor3d", {16, 16, 8}},   {"tensor3d", {16, 16, 12}},  {"tensor3d", {16, 16, 16}},
    {"tensor3d", {16, 256, 1}},  {"tensor3d", {256, 16, 1}},  {"tensor3d", {4, 4, 256}},
    {"tensor3d", {64, 64, 1}},
};

const char* kUsage =
    "simfa-ubench-tma-bw: TMA load bandwidth, bulk and tensor 1D/2D/3D, 1-4 blocks per SM.\n"
    "  --out-dir DIR     write tma_bandwidth.csv there (default: stdout only)\n"
    "  --runs N          timed runs per case, min kept (default 3, plus one warm-up)\n"
    "  --array-mib N     array size (default 4096)\n"
    "  --only KIND       run one copy kind only (bulk, tensor1d, tensor2d, tensor3d)\n";

}  // namespace

int main(int argc, char** argv) {
  Args args(argc, argv, kUsage);
  const std::string out_dir = args.str("--out-dir", "");
  const int runs = static_cast<int>(std::max<long long>(1, args.num("--runs", 3)));
  const uint64_t array_bytes = static_cast<uint64_t>(args.num("--array-mib", 4096)) << 20;
  const std::string only = args.str("--only", "");
  args.done();
  if (array_bytes < (64ull << 20) || array_bytes > kArrayBytes)
    args.fail("--array-mib must be in 64..4096");

  const DeviceInfo dev = query_device();
  char* arr = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&arr, array_bytes));
  SIMFA_CUDA_CHECK(cudaMemset(arr, 1, array_bytes));
  cudaEvent_t e0, e1;
  SIMFA_CUDA_CHECK(cudaEventCreate(&e0));
  SIMFA_CUDA_CHECK(cudaEventCreate(&e1));

  CsvOut csv(out_dir.empty() ? "" : out_dir + "/tma_bandwidth.csv");
  csv.line(device_comment(dev));
  csv.linef("# benchmark=TMA load bandwidth, one thread per block, one copy in flight per block\n");
  csv.linef("# method=array %llu bytes; tensor1d uint64 elements; tensor2d 32768^2 fp32 (scaled to"
            " array); tensor3d 1024^3 fp32 (scaled); %d runs after 1 warm-up, min kept\n",
            (unsigned long long)array_bytes, runs);
  csv.line("copy_kind,box_elems,load_kib,blocks,total_ms,bytes,throughput_gbs\n");

  for (const Case& c : kCases) {
    const std::string kind = c.kind;
    if (!only.empty() && kind != only) continue;
    const int rank = kind == "bulk" ? 0 : kind[6] - '0';
    CUtensorMap tmap{};
    Walk w{};
    w.src = arr;
    w.bx = c.box[0], w.by = c.box[1], w.bz = c.box[2];
    std::string box_str;
    if (rank == 0) {
      w.bytes = c.box[0];
      w.copies = array_bytes / w.bytes;
    } else if (rank == 1) {
      const cuuint64_t dims[1] = {array_bytes / 8};
      const cuuint64_t no_strides[1] = {0};  // rank 1 has no strides; pass a valid pointer
      const cuuint32_t box[1] = {c.box[0]};
      tmap = make_tensormap(CU_TENSOR_MAP_DATA_TYPE_UINT64, 1, arr, dims, no_strides, box,
                            CU_TENSOR_MAP_SWIZZLE_NONE);
      w.bytes = c.box[0] * 8;
      w.copies = dims[0] / c.box[0];
    } else {
      // 2D: square side s with s*s*4 = array bytes (32768 for 4 GiB); 3D: cube side (1024).
      uint64_t elems = array_bytes / 4, side = 1;
      if (rank == 2)
        while ((side * 2) * (side * 2) <= elems) side *= 2;
      else
        while ((side * 2) * (side * 2) * (side * 2) <= elems) side *= 2;
      const cuuint64_t dims[3] = {side, side, side};
      const cuuint64_t strides[2] = {side * 4, side * side * 4};
      const cuuint32_t box[3] = {c.box[0], c.box[1], c.box[2]};
      tmap = make_tensormap(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank, arr, dims, strides, box,
                            CU_TENSOR_MAP_SWIZZLE_NONE);
      w.bytes = c.box[0] * c.box[1] * (rank == 3 ? c.box[2] : 1) * 4;
      w.nx = static_cast<uint32_t>(side / c.box[0]);
      w.ny = static_cast<uint32_t>(side / c.box[1]);
      const uint64_t nz = rank == 3 ? side / c.box[2] : 1;
      w.copies = uint64_t(w.nx) * w.ny * nz;
      box_str = std::to_string(c.box[0]) + "x" + std::to_string(c.box[1]);
      if (rank == 3) box_str += "x" + std::to_string(c.box[2]);
    }
    for (int per_sm = 1; per_sm <= 4; ++per_sm) {
      const int blocks = per_sm * dev.sm_count;
      auto launch = [&] {
        switch (rank) {
          case 0: tma_bw_kernel<0><<<blocks, 1, w.bytes>>>(tmap, w); break;
          case 1: tma_bw_kernel<1><<<blocks, 1, w.bytes>>>(tmap, w); break;
          case 2: tma_bw_kernel<2><<<blocks, 1, w.bytes>>>(tmap, w); break;
          default: tma_bw_kernel<3><<<blocks, 1, w.bytes>>>(tmap, w); break;
        }
      };
      launch();  // warm-up
      SIMFA_CUDA_CHECK(cudaGetLastError());
      float best = 1e30f;
      for (int r = 0; r < runs; ++r) {
        SIMFA_CUDA_CHECK(cudaEventRecord(e0));
        launch();
        SIMFA_CUDA_CHECK(cudaEventRecord(e1));
        SIMFA_CUDA_CHECK(cudaEventSynchronize(e1));
        SIMFA_CUDA_CHECK(cudaGetLastError());
        float ms = 0;
        SIMFA_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        best = std::min(best, ms);
      }
      const uint64_t bytes = w.copies * w.bytes;
      const double kib = w.bytes / 1024.0;  // reference prints 1.0, 0.75, 12.0
      char kib_str[32];
      std::snprintf(kib_str, sizeof kib_str, kib == static_cast<int>(kib) ? "%.1f" : "%g", kib);
      csv.linef("%s,%s,%s,%d,%f,%llu,%f\n", c.kind, box_str.c_str(), kib_str, blocks,
                best, (unsigned long long)bytes, bytes / (best * 1e-3) / 1e9);
    }
  }
  std::fprintf(stderr, "# effective SM clock after the sweep: %.0f MHz\n", measure_sm_clock_mhz());
  SIMFA_CUDA_CHECK(cudaFree(arr));
  return 0;
}
