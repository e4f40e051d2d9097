// FA3 operations as trace instructions: tensor maps over FA3's [batch, seq, head, dim] layouts,
// one TMA per swizzle-width column slab (or per tile), WGMMA sequences per GEMM, stage and barrier
// operations with FA3's counts.
#include "workload/emitter.h"

#include <algorithm>

#include "sim/error.h"

namespace simfa::workload {

namespace {
std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
constexpr std::uint64_t kGlobalAlign = 2u << 20;  // every tensor starts 2 MiB aligned
}  // namespace

Fa3Emitter::Fa3Emitter(const Fa3Kernel& k) : k_(k) {
  const auto& s = k.shape;
  const std::uint64_t P = k.elem_bytes, PO = k.out_bytes, D = s.head_dim, Hq = s.heads_q(),
                      Hk = s.heads_kv, G = s.group, L = s.seqlen_q, S = s.seqlen_kv, B = s.batch;
  if ((D * P) % 16 != 0 || (D * PO) % 16 != 0)
    user_error("head_dim (--head-dim) {}: a row must be a multiple of 16 bytes for TMA", D);

  // Global memory: Q, K, V, O (and simfa-attn's LSE) back to back, each 2 MiB aligned.
  const std::uint64_t align = kGlobalAlign;
  lay_.q = 1ull << 32;
  lay_.k = align_up(lay_.q + B * L * Hq * D * P, align);
  lay_.v = align_up(lay_.k + B * S * Hk * D * P, align);
  lay_.o = align_up(lay_.v + B * S * Hk * D * P, align);
  lay_.lse = align_up(lay_.o + B * L * Hq * D * PO, align);

  // Shared memory (fa3-kernel.md §1): current orders V, Q, K (+P for an SS PV GEMM); the original
  // Q, K, V. O aliases V stage 0 in both. The totals add the barrier/alignment overhead that
  // reproduces the compile probe (current +3072 B, original +96 B).
  lay_.k_stage_bytes = std::uint64_t(k.tile_n) * k.head_dim * P;
  lay_.q_bytes = std::uint64_t(k.tile_m) * k.head_dim * P;
  lay_.p_bytes = k.pv_rs ? 0 : std::uint64_t(k.tile_m) * k.tile_n * P;
  const std::uint64_t kv = lay_.k_stage_bytes * k.stages;
  if (k.impl == Impl::SimfaAttn) {
    // attn_kernel.cuh SharedStorage: Q, K stages, V stages (1024-aligned), then the 9 mbarriers
    // (the struct rounds them up to 1024 B), plus 1024 B of slack to align the dynamic base
    // (kSmemBytes = 215040 at 128 x 176).
    lay_.smem_q = 0, lay_.smem_k = lay_.q_bytes, lay_.smem_v = lay_.q_bytes + kv, lay_.smem_p = 0;
    lay_.smem_total = 2 * kv + lay_.q_bytes + 1024 + 1024;
  } else if (k.version == Version::Current) {
    lay_.smem_v = 0, lay_.smem_q = kv, lay_.smem_k = kv + lay_.q_bytes, lay_.smem_p = 2 * kv + lay_.q_bytes;
    lay_.smem_total = 2 * kv + lay_.q_bytes + lay_.p_bytes + 3072;
  } else {
    lay_.smem_q = 0, lay_.smem_k = lay_.q_bytes, lay_.smem_v = lay_.q_bytes + kv, lay_.smem_p = lay_.q_bytes + 2 * kv;
    lay_.smem_total = 2 * kv + lay_.q_bytes + lay_.p_bytes + 96;
  }
  lay_.smem_o = lay_.smem_v;  // simfa-attn stores from registers: a nominal source address

  // Tensor maps: dimensions innermost first, strides ascending (FA3's row-major [b, seq, h, d]).
  const std::uint32_t cols = static_cast<std::uint32_t>(std::min<std::uint64_t>(k.tma_cols, D));
  const std::uint32_t cols_o = static_cast<std::uint32_t>(std::min<std::uint64_t>(k.tma_cols_o, D));
  q_slabs_ = static_cast<int>((D + cols - 1) / cols);
  kv_slabs_ = q_slabs_;
  o_slabs_ = static_cast<int>((D + cols_o - 1) / cols_o);
  auto q_like = [&](std::uint16_t id, std::uint64_t base, std::uint64_t esz, std::uint32_t c,
                    std::int64_t rows) {
    trace::TensorMap m;
    m.id = id;
    m.esz = static_cast<std::uint32_t>(esz);
    m.base = base;
    if (k.pack_gqa) {
      // PackGQA: the tile's rows are (query position, head of the group) with the head fastest.
      m.rank = 5;
      m.dims = {D, G, Hk, L, B};
      m.strides = {esz, D * esz, G * D * esz, Hq * D * esz, L * Hq * D * esz};
      m.box = {c, static_cast<std::uint32_t>(G), 1,
               static_cast<std::uint32_t>(std::min<std::int64_t>(rows / G, L)), 1};
    } else {
      m.rank = 4;
      m.dims = {D, Hq, L, B};
      m.strides = {esz, D * esz, Hq * D * esz, L * Hq * D * esz};
      m.box = {c, 1, static_cast<std::uint32_t>(std::min<std::int64_t>(rows, L)), 1};
    }
    return m;
  };
  auto kv_map = [&](std::uint16_t id, std::uint64_t base) {
    trace::TensorMap m;
    m.id = id;
    m.rank = 4;
    m.esz = static_cast<std::uint32_t>(P);
    m.base = base;
    m.dims = {D, Hk, S, B};
    m.strides = {P, D * P, Hk * D * P, S * Hk * D * P};
    m.box = {cols, 1, static_cast<std::uint32_t>(std::min<std::int64_t>(k.tile_n / k.cluster, S)), 1};
    return m;
  };
  kv_rows_per_copy_ = k.tile_n / k.cluster;
  const int o_rows = k.paper_recipe || k.o_from_registers ? 64 : k.tile_m;
  if (k.pack_gqa && o_rows % G != 0)
    user_error("fa3.pack_gqa with the paper recipe stores 64 rows per WarpGroup; the group size {} "
               "must divide 64", G);
  info_.name = k.name();
  info_.ctas = k.grid;
  info_.cluster = static_cast<std::uint32_t>(k.cluster);
  info_.smem = lay_.smem_total;
  const int nc = k.consumer_wgs;
  // setmaxnreg split (fa3-kernel.md §1.1): 1 WG 56/256, 2 WGs 24/240, 3 WGs 32/160. simfa-attn:
  // 168 per thread at launch (__launch_bounds__(384, 1); ptxas), split 40 / 232.
  info_.regs = k.impl == Impl::SimfaAttn ? 384 * 168
               : nc == 1                 ? 56 * 128 + 256 * 128
               : nc == 2                 ? 24 * 128 + 240 * 256
                                         : 65536;
  info_.threads = static_cast<std::uint32_t>(128 * (1 + nc));
  info_.stages = static_cast<std::uint32_t>(2 * k.stages + 1);
  info_.stage_arrivals = static_cast<std::uint32_t>(nc * k.cluster);
  info_.groups = 16;
  for (const auto& m : {q_like(ids::kMapQ, lay_.q, P, cols, k.tile_m), kv_map(ids::kMapK, lay_.k),
                        kv_map(ids::kMapV, lay_.v), q_like(ids::kMapO, lay_.o, PO, cols_o, o_rows)}) {
    if (auto e = trace::validate(m))
      throw InternalError("fa3 emitter: bad tensor map " + std::to_string(m.id) + ": " + *e);
    info_.define_tmap(m);
  }
  if (k.o_from_registers) {
    // LSE: FP32 [batch, head, seqlen_q] (attn_kernel.cuh Params::lse); one 64-row segment per store.
    trace::TensorMap m;
    m.id = ids::kMapLse;
    m.rank = 3;
    m.esz = 4;
    m.base = lay_.lse;
    m.dims = {L, Hq, B};
    m.strides = {4, L * 4, Hq * L * 4};
    m.box = {static_cast<std::uint32_t>(std::min<std::uint64_t>(64, L)), 1, 1};
    if (auto e = trace::validate(m)) throw InternalError("fa3 emitter: bad LSE tensor map: " + *e);
    info_.define_tmap(m);
  }
  q_tx_ = static_cast<std::uint32_t>(q_slabs_ * info_.tmap(ids::kMapQ).box_bytes());
  kv_tx_ = static_cast<std::uint32_t>(kv_slabs_ * info_.tmap(ids::kMapK).box_bytes() * k.cluster);
}

void Fa3Emitter::set_global_bases(std::uint64_t q, std::uint64_t k, std::uint64_t v, std::uint64_t o) {
  lay_.q = q, lay_.k = k, lay_.v = v, lay_.o = o;
  info_.tmaps[ids::kMapQ].base = q;
  info_.tmaps[ids::kMapK].base = k;
  info_.tmaps[ids::kMapV].base = v;
  info_.tmaps[ids::kMapO].base = o;
}

void Fa3Emitter::place_outputs_after(std::uint64_t end) {
  const auto& s = k_.shape;
  lay_.o = align_up(end, kGlobalAlign);
  info_.tmaps[ids::kMapO].base = lay_.o;
  lay_.lse = align_up(lay_.o + std::uint64_t(s.batch * s.seqlen_q * s.heads_q() * s.head_dim) * k_.out_bytes,
                      kGlobalAlign);
  if (info_.has_tmap(ids::kMapLse)) info_.tmaps[ids::kMapLse].base = lay_.lse;
}

std::uint64_t Fa3Emitter::q_addr(std::int64_t b, std::int64_t row, std::int64_t hq, std::int64_t d) const {
  const auto& s = k_.shape;
  return lay_.q + std::uint64_t(((b * s.seqlen_q + row) * s.heads_q() + hq) * s.head_dim + d) * k_.elem_bytes;
}

std::uint64_t Fa3Emitter::kv_addr(std::uint64_t base, std::int64_t b, std::int64_t row, std::int64_t hk,
                                  std::int64_t d) const {
  const auto& s = k_.shape;
  return base + std::uint64_t(((b * s.seqlen_kv + row) * s.heads_kv + hk) * s.head_dim + d) * k_.elem_bytes;
}

// First element of the Q (or O) box of tile `t` at column `col`.
std::uint64_t Fa3Emitter::q_tile_origin(std::uint64_t base, int bytes, const Tile& t, std::int64_t col) const {
  const auto& s = k_.shape;
  std::int64_t row = t.m_block * k_.tile_m, head = t.head;
  if (k_.pack_gqa) row /= s.group, head *= s.group;
  return base + std::uint64_t(((t.batch * s.seqlen_q + row) * s.heads_q() + head) * s.head_dim + col) * bytes;
}

void Fa3Emitter::load_q(Out& o, const Tile& t) const {
  o.push_back(trace::Instr::acquire(q_stage(), q_tx_));
  const auto& m = info_.tmap(ids::kMapQ);
  const std::uint64_t slab = m.box_bytes();
  for (int i = 0; i < q_slabs_; ++i)
    o.push_back(trace::Instr::tma_tensor(lay_.smem_q + i * slab,
                                         q_tile_origin(lay_.q, k_.elem_bytes, t, std::int64_t(i) * m.box[0]),
                                         ids::kMapQ, q_stage()));
}

void Fa3Emitter::load_kv(Out& o, bool is_v, int stage, const Tile& t, std::int64_t n, std::uint32_t rank) const {
  const std::uint16_t sid = is_v ? v_stage(stage) : k_stage(stage);
  o.push_back(trace::Instr::acquire(sid, kv_tx_));
  const auto& m = info_.tmap(ids::kMapK);
  const std::int64_t hk = k_.pack_gqa ? t.head : t.head / k_.shape.group;
  const std::int64_t row = n * k_.tile_n + std::int64_t(rank) * kv_rows_per_copy_;
  const std::uint64_t base = is_v ? lay_.v : lay_.k;
  const std::uint64_t sbase = (is_v ? lay_.smem_v : lay_.smem_k) + std::uint64_t(stage) * lay_.k_stage_bytes;
  const std::uint64_t slab = m.box_bytes() * k_.cluster;
  for (int i = 0; i < kv_slabs_; ++i)
    o.push_back(trace::Instr::tma_tensor(sbase + i * slab + rank * m.box_bytes(),
                                         kv_addr(base, t.batch, row, hk, std::int64_t(i) * m.box[0]),
                                         is_v ? ids::kMapV : ids::kMapK, sid, cluster_mask()));
}

void Fa3Emitter::load_k(Out& o, int stage, const Tile& t, std::int64_t n, std::uint32_t rank) const {
  load_kv(o, false, stage, t, n, rank);
}
void Fa3Emitter::load_v(Out& o, int stage, const Tile& t, std::int64_t n, std::uint32_t rank) const {
  load_kv(o, true, stage, t, n, rank);
}

void Fa3Emitter::release_q(Out& o) const {
  o.push_back(trace::Instr::release(q_stage(), cluster_mask()));
}

void Fa3Emitter::gemm_qk(Out& o, int wg, int s) const {
  const std::uint64_t a = lay_.smem_q + std::uint64_t(wg) * 64 * k_.head_dim * k_.elem_bytes;
  const std::uint64_t b = lay_.smem_k + std::uint64_t(s) * lay_.k_stage_bytes;
  const std::uint64_t step = std::uint64_t(k_.mma_k) * k_.elem_bytes;
  for (int i = 0; i < k_.qk_wgmmas(); ++i)
    o.push_back(trace::Instr::wgmma(ids::kFragS, a + i * step, b + i * step, 64,
                                    static_cast<std::uint16_t>(k_.tile_n), static_cast<std::uint16_t>(k_.mma_k),
                                    k_.mma_dtype, /*acc=*/i > 0, trace::MmaMode::SS, false, ids::kGroupQK));
  o.push_back(trace::Instr::wgmma_commit(ids::kGroupQK));
}

void Fa3Emitter::gemm_pv(Out& o, int wg, int s) const {
  const std::uint64_t b = lay_.smem_v + std::uint64_t(s) * lay_.k_stage_bytes;
  const std::uint64_t bstep = std::uint64_t(k_.mma_k) * k_.head_dim * k_.elem_bytes;
  const std::uint64_t pa = lay_.smem_p + std::uint64_t(wg) * 64 * k_.tile_n * k_.elem_bytes;
  const std::uint64_t astep = std::uint64_t(k_.mma_k) * k_.elem_bytes;
  for (int i = 0; i < k_.pv_wgmmas(); ++i)
    o.push_back(trace::Instr::wgmma(ids::kFragO, k_.pv_rs ? ids::kFragP : pa + i * astep, b + i * bstep, 64,
                                    static_cast<std::uint16_t>(k_.head_dim), static_cast<std::uint16_t>(k_.mma_k),
                                    k_.mma_dtype, /*acc=*/true, k_.pv_rs ? trace::MmaMode::RS : trace::MmaMode::SS,
                                    false, ids::kGroupPV));
  o.push_back(trace::Instr::wgmma_commit(ids::kGroupPV));
}

void Fa3Emitter::store_o(Out& o, const Tile& t, int row_offset) const {
  const auto& m = info_.tmap(ids::kMapO);
  Tile shifted = t;
  std::int64_t extra_rows = row_offset;
  if (k_.pack_gqa) extra_rows /= k_.shape.group;
  const std::uint64_t row_bytes =
      std::uint64_t(k_.shape.heads_q()) * k_.shape.head_dim * k_.out_bytes;
  for (int i = 0; i < o_slabs_; ++i)
    o.push_back(trace::Instr::tma_store(lay_.smem_o + i * m.box_bytes(),
                                        q_tile_origin(lay_.o, k_.out_bytes, shifted, std::int64_t(i) * m.box[0]) +
                                            std::uint64_t(extra_rows) * row_bytes,
                                        ids::kMapO, ids::kGroupStore));
  o.push_back(trace::Instr::tma_commit(ids::kGroupStore));
}

void Fa3Emitter::store_o_from_registers(Out& o, const Tile& t, int wg) const {
  const auto& m = info_.tmap(ids::kMapO);
  const auto& s = k_.shape;
  const std::int64_t row = t.m_block * k_.tile_m + std::int64_t(wg) * 64;
  if (row >= s.seqlen_q) return;  // the kernel guards every store with row < seqlen_q
  const std::uint64_t row_bytes = std::uint64_t(s.heads_q()) * s.head_dim * k_.out_bytes;
  for (int i = 0; i < o_slabs_; ++i)
    o.push_back(trace::Instr::tma_store(lay_.smem_o + i * m.box_bytes(),
                                        q_tile_origin(lay_.o, k_.out_bytes, t, std::int64_t(i) * m.box[0]) +
                                            std::uint64_t(wg) * 64 * row_bytes,
                                        ids::kMapO, ids::kGroupStore));
  const std::uint64_t lse = lay_.lse + std::uint64_t((t.batch * s.heads_q() + t.head) * s.seqlen_q + row) * 4;
  o.push_back(trace::Instr::tma_store(lay_.smem_o, lse, ids::kMapLse, ids::kGroupStore));
  o.push_back(trace::Instr::tma_commit(ids::kGroupStore));
}

}  // namespace simfa::workload
