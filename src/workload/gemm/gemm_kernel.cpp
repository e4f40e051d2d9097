// Resolution of the GEMM launch: tiles, stages, schedule and grid from the gemm.* keys, every
// choice checked with an error naming its key or flag.
#include "workload/gemm/gemm_kernel.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/error.h"
#include "sim/variants.h"

namespace simfa::workload::gemm {

namespace {
std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

constinit const Variant<Schedule> kCooperative{
    "cooperative", "both consumer WarpGroups on one output tile, tile_m / 2 rows each (CUTLASS 3 "
    "KernelTmaWarpSpecializedCooperative)", Schedule::Cooperative};
constinit const Variant<Schedule> kPingpong{
    "pingpong", "each consumer owns whole tiles; their mainloops and their epilogues take turns "
    "(CUTLASS 3 KernelTmaWarpSpecializedPingpong)", Schedule::Pingpong};
const VariantList<Schedule>& schedules() {
  static const VariantList<Schedule> list("gemm.schedule", "GEMM schedule", {&kCooperative, &kPingpong});
  return list;
}
}  // namespace

std::string_view schedule_name(Schedule s) {
  for (const auto* v : schedules().all())
    if (v->make == s) return v->name;
  throw InternalError("schedule_name: unknown Schedule");
}

std::string GemmKernel::name() const {
  return fmt::format("gemm_{}_{}x{}x{}_{}", spec::dtype_name(shape.dtype), tile_m, tile_n, tile_k,
                     schedule_name(schedule));
}

void register_gemm_params(ParamRegistry& r) {
  using T = ParamType;
  r.add(variant_param("gemm.schedule", "cooperative", "consumer schedule of the persistent warp-specialized GEMM",
                      "CUTLASS 3 include/cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_{cooperative,pingpong}.hpp; "
                      "default: the cooperative 128x128x64 configuration, 64 rows per consumer (issue 19)",
                      schedules()));
  r.add({"gemm.tile_m", T::Int, "128", "rows",
         "rows of C per CTA tile, a multiple of 64 (cooperative: of 128, each consumer takes half)",
         "CUTLASS 3 Hopper GEMM example 48 (TileShape 128x128x64) and its profiler's 128x128x64 "
         "cooperative kernels", 64, 256, {}});
  r.add({"gemm.tile_n", T::Int, "128", "columns",
         "columns of C per CTA tile: the WGMMA N, a multiple of 8 up to 256",
         "CUTLASS 3 Hopper GEMM example 48 (TileShape 128x128x64)", 8, 256, {}});
  r.add({"gemm.tile_k", T::Int, "0", "elements",
         "K per mainloop stage (0 = 128 bytes of K: 64 for 16-bit types, 128 for FP8, one 128-byte "
         "swizzle row)",
         "CUTLASS 3 Hopper tiles: 128x128x64 for 16-bit, 128x128x128 for FP8 (examples 48 and 54)", 0, 256, {}});
  r.add({"gemm.stages", T::Int, "0", "stages",
         "stages of the A/B mbarrier ring (0 = as many as fit: shared memory minus the C staging "
         "buffers and the barriers, over the bytes of one A and one B tile)",
         "CUTLASS 3 StageCountAutoCarveout (collective/builders/sm90_common.inl "
         "compute_stage_count_or_override): (capacity - epilogue carveout) / stage bytes",
         0, 64, {}});
  r.add({"gemm.grid", T::Int, "0", "CTAs",
         "persistent grid size (0 = the SM count, at most one CTA per output tile)",
         "CUTLASS 3 PersistentTileSchedulerSm90: grid = min(SMs, tiles) with one CTA per SM", 0, 1 << 20, {}});
}

GemmKernel resolve_gemm(const GemmShape& s, const Config& cfg, int num_sms) {
  if (s.batch < 1) user_error("--batch must be at least 1, got {}", s.batch);
  if (s.m < 1) user_error("--m must be at least 1, got {}", s.m);
  if (s.n < 1) user_error("--n must be at least 1, got {}", s.n);
  if (s.k < 1) user_error("--k must be at least 1, got {}", s.k);
  GemmKernel k;
  k.shape = s;
  k.elem_bytes = spec::dtype_bytes(s.dtype);
  k.out_bytes = spec::dtype_out_bytes(s.dtype);
  k.mma_dtype = s.dtype == spec::DType::FP8_E4M3 ? trace::DType::E4M3
                : s.dtype == spec::DType::BF16   ? trace::DType::BF16
                                                 : trace::DType::F16;
  k.mma_k = 32 / k.elem_bytes;
  // TMA: every row stride is a multiple of 16 bytes (A and B rows are K long, C rows N long).
  if (s.k * k.elem_bytes % 16 != 0)
    user_error("--k {}: rows of A and B are K-contiguous and TMA needs them to be a multiple of 16 bytes: "
               "--k must be a multiple of {} for {}", s.k, 16 / k.elem_bytes, spec::dtype_name(s.dtype));
  if (s.n * k.out_bytes % 16 != 0)
    user_error("--n {}: rows of C are N-contiguous and TMA needs them to be a multiple of 16 bytes: "
               "--n must be a multiple of {}", s.n, 16 / k.out_bytes);

  k.schedule = schedules().get(cfg.s("gemm.schedule")).make;
  k.tile_m = static_cast<int>(cfg.i("gemm.tile_m"));
  k.tile_n = static_cast<int>(cfg.i("gemm.tile_n"));
  k.tile_k = static_cast<int>(cfg.i("gemm.tile_k"));
  if (k.tile_k == 0) k.tile_k = 128 / k.elem_bytes;
  const int row_unit = k.schedule == Schedule::Cooperative ? 64 * k.consumer_wgs : 64;
  if (k.tile_m % row_unit != 0)
    user_error("gemm.tile_m = {}: must be a multiple of {} ({}: {})", k.tile_m, row_unit, schedule_name(k.schedule),
               k.schedule == Schedule::Cooperative ? "each of the 2 consumer WarpGroups owns a multiple of 64 rows"
                                                   : "a WGMMA has M = 64");
  if (k.tile_n % 8 != 0)
    user_error("gemm.tile_n = {}: the WGMMA N must be a multiple of 8 (up to 256)", k.tile_n);
  if (k.tile_k % k.mma_k != 0 || k.tile_k * k.elem_bytes % 16 != 0)
    user_error("gemm.tile_k = {}: must be a multiple of {} (the WGMMA K of {})", k.tile_k, k.mma_k,
               spec::dtype_name(s.dtype));
  // One TMA box per 128-byte swizzle row of K (CUTLASS's SW128 K-major layouts).
  if (k.tile_k > k.k_slab() && k.tile_k % k.k_slab() != 0)
    user_error("gemm.tile_k = {}: above 128 bytes of K it must be a multiple of {} (one 128-byte TMA box each)",
               k.tile_k, k.k_slab());
  // The last K block is not clipped: a box's columns past the end of a row would be the next row's.
  if (s.k % k.tile_k != 0)
    user_error("--k {}: must be a multiple of the tile's K, gemm.tile_k = {} (this model does not clip the "
               "last K block)", s.k, k.tile_k);

  const std::uint64_t smem = cfg.u("sm.max_smem_per_cta");
  const std::uint64_t fixed = k.c_smem_bytes() + kGemmBarrierBytes;
  const std::int64_t given = cfg.i("gemm.stages");
  if (given == 0) {
    const std::int64_t fit = smem > fixed ? static_cast<std::int64_t>((smem - fixed) / k.stage_bytes()) : 0;
    k.stages = static_cast<int>(std::min<std::int64_t>(fit, 64));
    if (k.stages < 1)
      user_error("gemm.tile_m/tile_n/tile_k = {}x{}x{}: not even one stage of A and B ({} bytes) fits in "
                 "sm.max_smem_per_cta = {} bytes beside the {} bytes of C",
                 k.tile_m, k.tile_n, k.tile_k, k.stage_bytes(), smem, k.c_smem_bytes());
  } else {
    k.stages = static_cast<int>(given);
    if (fixed + k.stage_bytes() * std::uint64_t(k.stages) > smem)
      user_error("gemm.stages = {}: {} stages of {} bytes plus {} bytes of C exceed sm.max_smem_per_cta = {} bytes",
                 k.stages, k.stages, k.stage_bytes(), k.c_smem_bytes(), smem);
  }

  k.tiles_m = cdiv(s.m, k.tile_m);
  k.tiles_n = cdiv(s.n, k.tile_n);
  k.k_blocks = cdiv(s.k, k.tile_k);
  std::int64_t grid = cfg.i("gemm.grid");
  if (grid == 0) grid = std::min<std::int64_t>(num_sms, k.total_tiles());
  k.grid = static_cast<std::uint32_t>(grid);

  const PipeRates p = pipe_rates(cfg);
  // The epilogue terms of FA3's bubble model for the consumer's rows x tile_n accumulators (the
  // softmax terms it also computes are not used).
  const BubbleCosts b = compute_bubbles_pipes(k.rows_per_consumer(), k.tile_n, k.tile_n, k.elem_bytes, k.out_bytes,
                                              0.0, p);
  k.convert_cycles = b.convert_o;
  k.stsm_cycles = b.stsm_o;
  return k;
}

}  // namespace simfa::workload::gemm
