// The GEMM workload: C[b] = A[b] · B[b]^T for `batch` independent problems of M x N x K, A row-major
// [M, K], B [N, K] (both K-contiguous: CUTLASS's "TN" layout, the one its Hopper kernels run
// fastest), C row-major [M, N]. The kernel is a persistent warp-specialized GEMM in the spirit of
// CUTLASS 3's sm90 `KernelTmaWarpSpecializedCooperative` / `...Pingpong` schedules
// (docs/workloads.md "GEMM"): one producer WarpGroup loads A and B tiles by TMA into a ring of
// mbarrier stages, two consumer WarpGroups issue WGMMA (SS) over K, then convert the FP32
// accumulators, stage them in shared memory and store C by TMA.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/attention.h"
#include "trace/isa.h"
#include "workload/bubbles.h"

namespace simfa {
class Config;
class ParamRegistry;
}  // namespace simfa

namespace simfa::workload::gemm {

// mbarriers of the A/B ring (full + empty per stage) and of the epilogue: CUTLASS's
// PipelineTmaAsync::SharedStorage is two 8-byte barriers per stage; rounded up to 1 KiB for the
// shared-memory alignment of the tiles that follow (a modelling allowance).
inline constexpr std::uint64_t kGemmBarrierBytes = 1024;

struct GemmShape {
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  spec::DType dtype = spec::DType::FP16;
};

// cooperative: both consumers work on the same output tile, each on tile_m / 2 of its rows, and
// both release every stage. pingpong: each consumer owns whole tiles (the CTA's tiles alternate
// between them); their mainloops take turns on the tensor cores and their epilogues take turns,
// so one consumer's epilogue runs under the other's mainloop.
enum class Schedule : std::uint8_t { Cooperative, Pingpong };
std::string_view schedule_name(Schedule s);

struct GemmKernel {
  GemmShape shape;
  Schedule schedule = Schedule::Cooperative;
  int tile_m = 128, tile_n = 128, tile_k = 64;
  int stages = 0;             // mbarrier stages of the A/B ring
  int consumer_wgs = 2;
  std::uint32_t grid = 0;     // persistent CTAs: min(SMs, tiles)
  std::int64_t tiles_m = 0, tiles_n = 0, k_blocks = 0;

  int elem_bytes = 2, out_bytes = 2;
  trace::DType mma_dtype = trace::DType::F16;
  int mma_k = 16;             // K of one WGMMA: 32 bytes of A

  // Epilogue per consumer WarpGroup, in cycles: FP32 -> output type conversion of its
  // accumulators and their store into shared memory (FA3's convert_o and stsm_o terms over the
  // rows and columns the consumer owns; workload/bubbles.h).
  std::uint32_t convert_cycles = 0, stsm_cycles = 0;

  std::int64_t total_tiles() const { return shape.batch * tiles_m * tiles_n; }
  // Rows of a tile one consumer computes: tile_m / 2 (cooperative) or tile_m (pingpong).
  int rows_per_consumer() const { return schedule == Schedule::Cooperative ? tile_m / consumer_wgs : tile_m; }
  std::uint64_t stage_bytes() const { return std::uint64_t(tile_m + tile_n) * tile_k * elem_bytes; }
  // Shared memory for C: one tile (cooperative: the consumers' halves), one per consumer (pingpong).
  std::uint64_t c_smem_bytes() const {
    return std::uint64_t(tile_m) * tile_n * out_bytes * (schedule == Schedule::Pingpong ? consumer_wgs : 1);
  }
  // Shared memory of one CTA: the ring, the C staging buffer(s), the barriers.
  std::uint64_t smem_bytes() const { return stage_bytes() * std::uint64_t(stages) + c_smem_bytes() + kGemmBarrierBytes; }
  // Elements of K per TMA box of A or B: one 128-byte swizzle row, or the whole tile_k below it.
  int k_slab() const { return std::min(tile_k, 128 / elem_bytes); }
  std::string name() const;  // "gemm_fp16_128x128x64_cooperative"
};

// Resolves the kernel for `shape` from the gemm.* and sm.* keys of `cfg` on a GPU of `num_sms`
// SMs. UserError naming the key or flag when a size or choice is impossible.
GemmKernel resolve_gemm(const GemmShape& shape, const Config& cfg, int num_sms);

// Registers the gemm.* keys.
void register_gemm_params(ParamRegistry& r);

}  // namespace simfa::workload::gemm
