// The GEMM's layouts, instructions and per-WarpGroup programs (CUTLASS 3 sm90 warp-specialized
// kernels: the producer's load loop, the consumers' mainloop of collective/sm90_mma_tma_gmma_ss_
// warpspecialized.hpp with one WGMMA batch in flight, and the TMA-store epilogue).
#include "workload/gemm/gemm_source.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/error.h"
#include "workload/gen_stream.h"

namespace simfa::workload::gemm {

namespace {
std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
constexpr std::uint64_t kGlobalAlign = 2u << 20;  // every tensor starts 2 MiB aligned (as FA3's)
}  // namespace

GemmPlan::GemmPlan(GemmKernel kernel) : k_(std::move(kernel)) {
  const GemmShape& s = k_.shape;
  const std::uint64_t P = k_.elem_bytes, PO = k_.out_bytes, M = s.m, N = s.n, K = s.k, B = s.batch;
  a_ = 1ull << 32;
  b_ = align_up(a_ + B * M * K * P, kGlobalAlign);
  c_ = align_up(b_ + B * N * K * P, kGlobalAlign);
  smem_c_ = k_.stage_bytes() * std::uint64_t(k_.stages);

  k_slabs_ = k_.tile_k / k_.k_slab();
  // C: the widest column slab (at most 128 bytes, one swizzle row) that divides both the tile's
  // and the matrix's N, so that no box runs past the end of a row.
  c_slab_ = 8;
  for (int w : {128 / k_.out_bytes, 64 / k_.out_bytes, 32 / k_.out_bytes, 16 / k_.out_bytes})
    if (w >= 8 && k_.tile_n % w == 0 && s.n % w == 0) {
      c_slab_ = w;
      break;
    }

  auto map = [](std::uint16_t id, std::uint64_t base, std::uint64_t esz, std::uint64_t cols, std::uint64_t rows,
                std::uint64_t batch, std::uint64_t box_cols, std::uint64_t box_rows) {
    trace::TensorMap m;
    m.id = id;
    m.rank = 3;
    m.esz = static_cast<std::uint32_t>(esz);
    m.base = base;
    m.dims = {cols, rows, batch};
    m.strides = {esz, cols * esz, rows * cols * esz};
    m.box = {static_cast<std::uint32_t>(box_cols), static_cast<std::uint32_t>(std::min(box_rows, rows)), 1};
    return m;
  };
  info_.name = k_.name();
  info_.ctas = k_.grid;
  info_.cluster = 1;
  info_.smem = k_.smem_bytes();
  // setmaxnreg: producer 40, consumers 232 registers per thread (CUTLASS 3
  // sm90_gemm_tma_warpspecialized_cooperative.hpp / _pingpong.hpp LoadRegisterRequirement,
  // MmaRegisterRequirement).
  info_.regs = 40 * 128 + 232 * 128 * static_cast<std::uint32_t>(k_.consumer_wgs);
  info_.threads = static_cast<std::uint32_t>(128 * (1 + k_.consumer_wgs));
  info_.stages = static_cast<std::uint32_t>(k_.stages);
  info_.stage_arrivals = k_.schedule == Schedule::Cooperative ? static_cast<std::uint32_t>(k_.consumer_wgs) : 1;
  info_.groups = 16;
  for (const auto& m : {map(ids::kMapA, a_, P, K, M, B, k_.k_slab(), k_.tile_m),
                        map(ids::kMapB, b_, P, K, N, B, k_.k_slab(), k_.tile_n),
                        map(ids::kMapC, c_, PO, N, M, B, c_slab_, k_.rows_per_consumer())}) {
    if (auto e = trace::validate(m))
      throw InternalError("gemm: bad tensor map " + std::to_string(m.id) + ": " + *e);
    info_.define_tmap(m);
  }
  tx_ = static_cast<std::uint32_t>(k_slabs_ * (info_.tmap(ids::kMapA).box_bytes() + info_.tmap(ids::kMapB).box_bytes()));
}

bool GemmPlan::tile(std::uint32_t cta, std::int64_t i, GemmTile& out) const {
  const std::int64_t idx = std::int64_t(cta) + i * std::int64_t(k_.grid);
  if (idx >= k_.total_tiles()) return false;
  out.m = idx % k_.tiles_m;
  out.n = idx / k_.tiles_m % k_.tiles_n;
  out.batch = idx / (k_.tiles_m * k_.tiles_n);
  return true;
}


void GemmPlan::load(Out& o, int st, const GemmTile& t, std::int64_t kb) const {
  const auto sid = static_cast<std::uint16_t>(st);
  o.push_back(trace::Instr::acquire(sid, tx_));
  const GemmShape& s = k_.shape;
  const std::uint64_t P = k_.elem_bytes;
  const std::uint64_t smem_a = std::uint64_t(st) * k_.stage_bytes();
  const std::uint64_t smem_b = smem_a + std::uint64_t(k_.tile_m) * k_.tile_k * P;
  const std::uint64_t a_slab = info_.tmap(ids::kMapA).box_bytes(), b_slab = info_.tmap(ids::kMapB).box_bytes();
  for (int i = 0; i < k_slabs_; ++i) {
    const std::uint64_t col = std::uint64_t(kb) * k_.tile_k + std::uint64_t(i) * k_.k_slab();
    const std::uint64_t a_row = std::uint64_t(t.batch) * s.m + std::uint64_t(t.m) * k_.tile_m;
    o.push_back(trace::Instr::tma_tensor(smem_a + i * a_slab, a_ + (a_row * s.k + col) * P, ids::kMapA, sid));
  }
  for (int i = 0; i < k_slabs_; ++i) {
    const std::uint64_t col = std::uint64_t(kb) * k_.tile_k + std::uint64_t(i) * k_.k_slab();
    const std::uint64_t b_row = std::uint64_t(t.batch) * s.n + std::uint64_t(t.n) * k_.tile_n;
    o.push_back(trace::Instr::tma_tensor(smem_b + i * b_slab, b_ + (b_row * s.k + col) * P, ids::kMapB, sid));
  }
}

void GemmPlan::mma(Out& o, int c, int st, bool first) const {
  const std::uint64_t P = k_.elem_bytes;
  const std::uint64_t smem_a = std::uint64_t(st) * k_.stage_bytes();
  const std::uint64_t smem_b = smem_a + std::uint64_t(k_.tile_m) * k_.tile_k * P;
  const int rows = k_.rows_per_consumer();
  const std::uint64_t row0 = k_.schedule == Schedule::Cooperative ? std::uint64_t(c) * rows : 0;
  const std::uint64_t step = std::uint64_t(k_.mma_k) * P;
  for (int kk = 0; kk < k_.tile_k / k_.mma_k; ++kk)
    for (int r = 0; r < rows / 64; ++r)
      o.push_back(trace::Instr::wgmma(static_cast<std::uint32_t>(r),
                                      smem_a + (row0 + std::uint64_t(r) * 64) * k_.tile_k * P + kk * step,
                                      smem_b + kk * step, 64, static_cast<std::uint16_t>(k_.tile_n),
                                      static_cast<std::uint16_t>(k_.mma_k), k_.mma_dtype,
                                      /*acc=*/!(first && kk == 0), trace::MmaMode::SS, false, ids::kGroupMma));
  o.push_back(trace::Instr::wgmma_commit(ids::kGroupMma));
}

void GemmPlan::store(Out& o, int c, const GemmTile& t) const {
  const GemmShape& s = k_.shape;
  const int rows = k_.rows_per_consumer();
  const std::int64_t row = t.m * k_.tile_m + (k_.schedule == Schedule::Cooperative ? std::int64_t(c) * rows : 0);
  if (row >= s.m) return;  // this consumer's rows lie past M: CUTLASS's predicated store writes nothing
  const std::uint64_t PO = k_.out_bytes;
  const std::uint64_t smem = smem_c_ + (k_.schedule == Schedule::Cooperative
                                            ? std::uint64_t(c) * rows * k_.tile_n * PO
                                            : std::uint64_t(c) * k_.tile_m * k_.tile_n * PO);
  const std::uint64_t slab_bytes = info_.tmap(ids::kMapC).box_bytes();
  const std::uint64_t grow = std::uint64_t(t.batch) * s.m + std::uint64_t(row);
  for (int i = 0; i * c_slab_ < k_.tile_n; ++i) {
    const std::uint64_t col = std::uint64_t(t.n) * k_.tile_n + std::uint64_t(i) * c_slab_;
    if (col >= std::uint64_t(s.n)) break;  // slabs past N: nothing to store
    o.push_back(trace::Instr::tma_store(smem + i * slab_bytes, c_ + (grow * s.n + col) * PO, ids::kMapC,
                                        ids::kGroupStore));
  }
  o.push_back(trace::Instr::tma_commit(ids::kGroupStore));
}

// The producer (CollectiveMma::load): for every tile of the CTA, in order, every k-block into the
// next stage of the ring.
StepGen gemm_producer(std::shared_ptr<const GemmPlan> plan, std::uint32_t cta, std::vector<trace::Instr>* out) {
  const GemmKernel& k = plan->kernel();
  auto& o = *out;
  std::uint64_t it = 0;  // k-blocks loaded
  GemmTile t;
  for (std::int64_t i = 0; plan->tile(cta, i, t); ++i)
    for (std::int64_t kb = 0; kb < k.k_blocks; ++kb) {
      plan->load(o, plan->stage(it++), t, kb);
      co_yield 0;
    }
}

// Consumer `c`: the mainloop (wait the stage, WGMMAs, commit, wait for all but the latest batch,
// release the previous stage), the tail (wait for everything, release the last stage), then the
// epilogue: convert the accumulators, wait until the previous store has read the C buffer, write
// it (STSM), store it by TMA. Pingpong orders the mainloops and the epilogues of the two consumers
// (CUTLASS's OrderedSequenceBarrier: consumer 0's mainloop, consumer 1's, ...; the same for the
// epilogues).
StepGen gemm_consumer(std::shared_ptr<const GemmPlan> plan, std::uint32_t cta, int c, std::vector<trace::Instr>* out) {
  const GemmKernel& k = plan->kernel();
  auto& o = *out;
  const bool pingpong = k.schedule == Schedule::Pingpong;
  const int nc = k.consumer_wgs;
  const auto own = [&](std::uint16_t base) { return static_cast<std::uint16_t>(base + c); };
  const auto next = [&](std::uint16_t base) { return static_cast<std::uint16_t>(base + (c + 1) % nc); };
  if (pingpong && c == 0) {  // consumer 0 has the first turn of both
    o.push_back(trace::Instr::bar_arrive(ids::kBarMainloop));
    o.push_back(trace::Instr::bar_arrive(ids::kBarEpilogue));
  }
  std::int64_t stored = 0;
  GemmTile t;
  for (std::int64_t i = 0; plan->tile(cta, i, t); ++i) {
    if (pingpong && i % nc != c) continue;
    const std::uint64_t it = std::uint64_t(i) * std::uint64_t(k.k_blocks);  // the tile's first k-block
    if (pingpong) {
      o.push_back(trace::Instr::bar_wait(own(ids::kBarMainloop), 1));
      // The other consumer's previous tile: its fills completed before that consumer handed over
      // the turn; passing them keeps this consumer's phase counters in step.
      if (i > 0)
        for (std::int64_t kb = 0; kb < k.k_blocks; ++kb)
          o.push_back(trace::Instr::mb_wait(static_cast<std::uint16_t>(plan->stage(it - std::uint64_t(k.k_blocks - kb)))));
    }
    for (std::int64_t kb = 0; kb < k.k_blocks; ++kb) {
      const int st = plan->stage(it + std::uint64_t(kb));
      o.push_back(trace::Instr::mb_wait(static_cast<std::uint16_t>(st)));
      plan->mma(o, c, st, kb == 0);
      if (kb > 0) {
        o.push_back(trace::Instr::wgmma_wait(ids::kGroupMma, 1));
        o.push_back(trace::Instr::release(static_cast<std::uint16_t>(plan->stage(it + std::uint64_t(kb) - 1))));
      }
      co_yield 0;
    }
    if (pingpong) o.push_back(trace::Instr::bar_arrive(next(ids::kBarMainloop)));
    o.push_back(trace::Instr::wgmma_wait(ids::kGroupMma, 0));
    o.push_back(trace::Instr::release(static_cast<std::uint16_t>(plan->stage(it + std::uint64_t(k.k_blocks) - 1))));
    if (pingpong) o.push_back(trace::Instr::bar_wait(own(ids::kBarEpilogue), 1));
    if (k.convert_cycles) o.push_back(trace::Instr::bubble(k.convert_cycles));
    if (stored > 0) o.push_back(trace::Instr::tma_wait(ids::kGroupStore, 0, /*read_only=*/true));
    if (k.stsm_cycles) o.push_back(trace::Instr::bubble(k.stsm_cycles));
    plan->store(o, c, t);
    ++stored;
    if (pingpong) o.push_back(trace::Instr::bar_arrive(next(ids::kBarEpilogue)));
    co_yield 0;
  }
  // Kernel end: the stores complete before the CTA exits.
  if (stored > 0) o.push_back(trace::Instr::tma_wait(ids::kGroupStore, 0));
}

GemmSource::GemmSource(const GemmShape& shape, const Config& cfg, int num_sms)
    : GemmSource(resolve_gemm(shape, cfg, num_sms)) {
  if (cfg.s("sample.mode") != "off")
    user_error("sample.mode = {} ({}): sampled simulation is FA3's (docs/sampling.md); the GEMM workload simulates "
               "every tile (drop the key)",
               cfg.s("sample.mode"), cfg.origin("sample.mode"));
}

GemmSource::GemmSource(GemmKernel kernel) : plan_(std::make_shared<const GemmPlan>(std::move(kernel))) {}

trace::CtaProgram GemmSource::open(std::uint32_t cta) {
  trace::CtaProgram p;
  p.id = cta;
  auto prod = std::make_unique<GenStream>(fmt::format("gemm cta {} producer", cta));
  prod->start(gemm_producer(plan_, cta, prod->buffer()));
  p.wgs.push_back({"producer", std::move(prod)});
  for (int c = 0; c < plan_->kernel().consumer_wgs; ++c) {
    auto s = std::make_unique<GenStream>(fmt::format("gemm cta {} consumer {}", cta, c));
    s->start(gemm_consumer(plan_, cta, c, s->buffer()));
    p.wgs.push_back({fmt::format("consumer{}", c), std::move(s)});
  }
  return p;
}

trace::SamplingReport GemmSource::sampling() const {
  trace::SamplingReport r;
  r.note = "full detail";
  return r;
}

}  // namespace simfa::workload::gemm
