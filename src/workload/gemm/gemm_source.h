// GemmSource: a TraceSource that synthesizes the persistent warp-specialized GEMM (gemm_kernel.h)
// one k-block at a time per WarpGroup, like Fa3Source: WarpGroup 0 is the producer, 1 and 2 the
// consumers.
//
// Resource mapping (docs/workloads.md):
//   stages   the A/B ring of gemm.stages stages: stage s holds one A tile (tile_m x tile_k) and one
//            B tile (tile_n x tile_k); the j-th k-block the CTA loads goes to stage j mod stages.
//            Cooperative: every stage is released by both consumers (stage_arrivals 2). Pingpong:
//            by the consumer whose tile it holds (stage_arrivals 1); the other consumer passes an
//            MB_WAIT on it (at no cost: it has completed by then) so that its per-stage phase
//            counter (docs/trace-format.md, MB_WAIT) stays in step, as CUTLASS's consumer advances
//            its pipeline state past the other's k-blocks
//   barriers pingpong only: 8 + c the mainloop turn of consumer c, 10 + c its epilogue turn
//   groups    WGMMA 0, TMA store 0
//   maps      0 A, 1 B, 2 C
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "trace/source.h"
#include "workload/gemm/gemm_kernel.h"
#include "workload/step_gen.h"

namespace simfa {
class Config;
}

namespace simfa::workload::gemm {

namespace ids {
inline constexpr std::uint16_t kMapA = 0, kMapB = 1, kMapC = 2;
inline constexpr std::uint16_t kBarMainloop = 8, kBarEpilogue = 10;  // + consumer index
inline constexpr std::uint16_t kGroupMma = 0, kGroupStore = 0;
}  // namespace ids

struct GemmTile {
  std::int64_t m = 0, n = 0, batch = 0;  // tile coordinates (m fastest in the scheduler's order)
};

// Global and shared-memory placement, tensor maps and the per-operation instructions.
class GemmPlan {
 public:
  explicit GemmPlan(GemmKernel k);
  GemmPlan(const GemmPlan&) = delete;
  GemmPlan& operator=(const GemmPlan&) = delete;

  const GemmKernel& kernel() const { return k_; }
  const trace::KernelInfo& info() const { return info_; }

  // The i-th output tile of CTA `cta` (static persistent schedule: tiles cta, cta + grid, ...);
  // false past its last.
  bool tile(std::uint32_t cta, std::int64_t i, GemmTile& out) const;
  // Stage of the j-th k-block the CTA loads.
  int stage(std::uint64_t j) const { return static_cast<int>(j % static_cast<std::uint64_t>(k_.stages)); }

  using Out = std::vector<trace::Instr>;
  // Producer: ACQUIRE the stage with the bytes of one A and one B tile, then their TMA copies.
  void load(Out& o, int stage, const GemmTile& t, std::int64_t kb) const;
  // Consumer `c`: its WGMMAs over one stage (rows_per_consumer / 64 row blocks x tile_k / mma_k),
  // then the commit. `first`: the tile's first k-block (the accumulators start from zero).
  void mma(Out& o, int c, int stage, bool first) const;
  // Consumer `c`'s rows of tile t from its C buffer in shared memory: one TMA store per column
  // slab + commit (nothing for rows past M).
  void store(Out& o, int c, const GemmTile& t) const;

 private:
  GemmKernel k_;
  trace::KernelInfo info_;
  std::uint64_t a_ = 0, b_ = 0, c_ = 0;  // global bases
  std::uint64_t smem_c_ = 0;
  int k_slabs_ = 1, c_slab_ = 8;
  std::uint32_t tx_ = 0;
};

StepGen gemm_producer(std::shared_ptr<const GemmPlan> plan, std::uint32_t cta, std::vector<trace::Instr>* out);
StepGen gemm_consumer(std::shared_ptr<const GemmPlan> plan, std::uint32_t cta, int c, std::vector<trace::Instr>* out);

class GemmSource final : public trace::TraceSource {
 public:
  // Resolves the kernel from the gemm.* / sm.* keys of `cfg` for a GPU with `num_sms` SMs.
  GemmSource(const GemmShape& shape, const Config& cfg, int num_sms);
  explicit GemmSource(GemmKernel kernel);

  const trace::KernelInfo& kernel() const override { return plan_->info(); }
  std::uint32_t wgs_per_cta(std::uint32_t) const override {
    return static_cast<std::uint32_t>(1 + plan_->kernel().consumer_wgs);
  }
  trace::CtaProgram open(std::uint32_t cta) override;
  trace::SamplingReport sampling() const override;

  const GemmKernel& gemm() const { return plan_->kernel(); }
  const GemmPlan& plan() const { return *plan_; }

 private:
  std::shared_ptr<const GemmPlan> plan_;
};

}  // namespace simfa::workload::gemm
