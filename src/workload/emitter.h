// Building blocks of FA3 traces: each call appends the trace instructions of one FA3 operation
// (a K tile load, a QK GEMM, a stage release, a ping-pong sync, ...). The FA3 synthesizer sequences
// them per WarpGroup (programs.cpp); a translator of real instrumentation logs can reuse them to
// turn each logged event into the same instructions (TMA_K_ISSUE -> load_k, GEMM_QK_ISSUE -> gemm_qk).
//
// Resource mapping (docs/fa3-workload.md has the full table):
//   stages   K[s] = s, V[s] = stages + s, Q = 2*stages (barrier_Q; its releases are QueryEmpty)
//   barriers 1 EpilogueBarrier, 4/5 tile-scheduler smem empty/full, 9+c ping-pong of consumer c,
//            13 barrier_O (the O store's smem read is done)
//   groups   WGMMA 0 = QK, 1 = PV; TMA store 0
//   maps     0 Q, 1 K, 2 V, 3 O, 4 LSE (simfa-attn only)
#pragma once
#include <cstdint>
#include <vector>

#include "trace/isa.h"
#include "workload/fa3_kernel.h"
#include "workload/tile_scheduler.h"

namespace simfa::workload {

namespace ids {
inline constexpr std::uint16_t kMapQ = 0, kMapK = 1, kMapV = 2, kMapO = 3, kMapLse = 4;
inline constexpr std::uint16_t kBarEpilogue = 1, kBarSchedEmpty = 4, kBarSchedFull = 5;
inline constexpr std::uint16_t kBarPingPong = 9, kBarO = 13;
inline constexpr std::uint16_t kGroupQK = 0, kGroupPV = 1, kGroupStore = 0;
inline constexpr std::uint32_t kFragS = 0, kFragO = 1, kFragP = 2;  // accumulator fragment ids
}  // namespace ids

// Global and shared-memory placement of the tensors and buffers.
struct Fa3Layout {
  std::uint64_t q = 0, k = 0, v = 0, o = 0;  // global base addresses (2 MiB aligned)
  std::uint64_t lse = 0;                     // simfa-attn: the FP32 log-sum-exp, [batch, head, seqlen_q]
  std::uint64_t smem_q = 0, smem_k = 0, smem_v = 0, smem_p = 0, smem_o = 0;
  std::uint64_t k_stage_bytes = 0, q_bytes = 0, p_bytes = 0;
  std::uint64_t smem_total = 0;  // SharedStorage bytes (fa3-kernel.md §1 probe sizes)
};

class Fa3Emitter {
 public:
  using Out = std::vector<trace::Instr>;
  explicit Fa3Emitter(const Fa3Kernel& k);

  const trace::KernelInfo& kernel_info() const { return info_; }
  const Fa3Layout& layout() const { return lay_; }

  // Places Q, K, V and O at these global addresses instead of the default layout (the log
  // translator keeps a real kernel's pointers); the tensor maps' bases follow. Call before emitting.
  void set_global_bases(std::uint64_t q, std::uint64_t k, std::uint64_t v, std::uint64_t o);
  // Places O, then simfa-attn's LSE, after global address `end` with the default layout's
  // alignment (a simfa-attn log records no O or LSE pointer); the maps' bases follow.
  void place_outputs_after(std::uint64_t end);

  std::uint16_t k_stage(int s) const { return static_cast<std::uint16_t>(s); }
  std::uint16_t v_stage(int s) const { return static_cast<std::uint16_t>(k_.stages + s); }
  std::uint16_t q_stage() const { return static_cast<std::uint16_t>(2 * k_.stages); }
  std::uint16_t cluster_mask() const { return k_.cluster > 1 ? std::uint16_t((1u << k_.cluster) - 1) : 0; }

  // Producer: ACQUIRE_STAGE with the stage's expected bytes, then the TMA copies. K/V of block `n`
  // for the CTA of cluster rank `rank` (with a cluster: its share of the rows, multicast).
  void load_q(Out& o, const Tile& t) const;
  void load_k(Out& o, int stage, const Tile& t, std::int64_t n, std::uint32_t rank) const;
  void load_v(Out& o, int stage, const Tile& t, std::int64_t n, std::uint32_t rank) const;

  // Consumer waits and releases. A K/V release reaches every CTA of the cluster. So does the
  // QueryEmpty release of the Q stage, because stage_arrivals is kernel-wide (consumers x cluster):
  // a CTA reloads Q once both CTAs' consumers are done with theirs (docs/fa3-workload.md, deviations).
  void wait_q(Out& o) const { o.push_back(trace::Instr::mb_wait(q_stage())); }
  void wait_k(Out& o, int s) const { o.push_back(trace::Instr::mb_wait(k_stage(s))); }
  void wait_v(Out& o, int s) const { o.push_back(trace::Instr::mb_wait(v_stage(s))); }
  void release_q(Out& o) const;
  void release_k(Out& o, int s) const { o.push_back(trace::Instr::release(k_stage(s), cluster_mask())); }
  void release_v(Out& o, int s) const { o.push_back(trace::Instr::release(v_stage(s), cluster_mask())); }

  // GEMMs of consumer `wg`: QK = head_dim/k WGMMAs m64 n tile_n (SS), PV = tile_n/k WGMMAs
  // m64 n head_dim (RS, or SS with P in smem), each followed by its commit.
  void gemm_qk(Out& o, int wg, int k_stage_index) const;
  void gemm_pv(Out& o, int wg, int v_stage_index) const;
  void mma_wait(Out& o, std::uint32_t n) const { o.push_back(trace::Instr::wgmma_wait(ids::kGroupPV, n)); }

  void bubble(Out& o, std::uint32_t cycles) const {
    if (cycles) o.push_back(trace::Instr::bubble(cycles));
  }
  void bar_sync(Out& o, std::uint16_t bid, std::uint32_t k) const { o.push_back(trace::Instr::bar_wait(bid, k)); }
  void bar_arrive(Out& o, std::uint16_t bid) const { o.push_back(trace::Instr::bar_arrive(bid)); }

  // O of tile `t` (rows [row_offset, row_offset + rows) of the tile): TMA stores + commit.
  void store_o(Out& o, const Tile& t, int row_offset) const;
  // simfa-attn: consumer `wg` stores its 64 rows of O and their LSE from registers. The trace ISA
  // has no ordinary store, so the same bytes go out as TMA stores (one per 64-column box of O, one
  // for the LSE row segment) + commit, never waited for (docs/fa3-workload.md).
  void store_o_from_registers(Out& o, const Tile& t, int wg) const;

  // Global address of element (d, head, row, batch) of Q / O (row = query position) or K / V.
  std::uint64_t q_addr(std::int64_t b, std::int64_t row, std::int64_t hq, std::int64_t d) const;
  std::uint64_t kv_addr(std::uint64_t base, std::int64_t b, std::int64_t row, std::int64_t hk,
                        std::int64_t d) const;

 private:
  void load_kv(Out& o, bool is_v, int stage, const Tile& t, std::int64_t n, std::uint32_t rank) const;
  std::uint64_t q_tile_origin(std::uint64_t base, int bytes, const Tile& t, std::int64_t col) const;

  const Fa3Kernel& k_;
  Fa3Layout lay_;
  trace::KernelInfo info_;
  int q_slabs_ = 1, kv_slabs_ = 1, o_slabs_ = 1;
  std::uint32_t q_tx_ = 0, kv_tx_ = 0;
  std::int64_t kv_rows_per_copy_ = 0;
};

}  // namespace simfa::workload
