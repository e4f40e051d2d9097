// FA3's producer and consumer WarpGroups as coroutines. Each loop iteration appends one step (a
// K/V pair, one mainloop iteration, an epilogue) and suspends, so memory stays bounded however
// long the sequence is. Stage s of the j-th block a CTA processes is j mod stages, counted across
// tiles exactly as FA3's pipeline state is (K(n) and V(n) share a stage index).
#include "workload/programs.h"

namespace simfa::workload {

using ids::kBarEpilogue;
using ids::kBarO;
using ids::kBarSchedEmpty;
using ids::kBarSchedFull;

StepGen producer_program(std::shared_ptr<const Fa3Plan> plan, std::uint32_t cta,
                         std::vector<trace::Instr>* out) {
  const Fa3Kernel& k = plan->k;
  const Fa3Emitter& e = plan->em;
  auto& o = *out;
  const std::uint32_t rank = cta % static_cast<std::uint32_t>(k.cluster);
  const bool current = k.version == Version::Current;
  const bool uses_barrier_o = k.uses_barrier_o();  // not in the paper's recipe nor in simfa-attn
  const bool dynamic = claims_tiles(k.scheduler);
  std::uint64_t it = 0;   // blocks this CTA has processed (pipeline stage counter)
  std::int64_t work = 0;  // non-empty tiles processed (FA3's work_idx)
  Tile t;
  for (std::int64_t i = 0; plan->sched.tile(cta, i, t); ++i) {
    const BlockRange r = block_range(k, t.m_block);
    const std::int64_t N = r.count();
    if (N > 0) {
      auto st = [&](std::int64_t j) { return static_cast<int>((it + j) % k.stages); };
      auto blk = [&](std::int64_t j) { return r.n_max - 1 - j; };
      // K(N-1); QueryEmpty + Q (ACQUIRE of the Q stage); barrier_O from the previous tile's store.
      e.load_k(o, st(0), t, blk(0), rank);
      e.load_q(o, t);
      if (uses_barrier_o && work > 0) e.bar_sync(o, kBarO, 1);
      co_yield 0;
      // simfa-attn's producer has this one order for both consumer schedules.
      if (k.intra_wg_overlap || k.impl == Impl::SimfaAttn) {
        // K(N-2), V(N-1), K(N-3), V(N-2), ..., K(0), V(1); then V(0).
        for (std::int64_t j = 1; j < N; ++j) {
          e.load_k(o, st(j), t, blk(j), rank);
          e.load_v(o, st(j - 1), t, blk(j - 1), rank);
          co_yield 0;
        }
        e.load_v(o, st(N - 1), t, blk(N - 1), rank);
      } else {
        // V(N-1), then K(n), V(n) for n = N-2 ... 0.
        e.load_v(o, st(0), t, blk(0), rank);
        for (std::int64_t j = 1; j < N; ++j) {
          e.load_k(o, st(j), t, blk(j), rank);
          e.load_v(o, st(j), t, blk(j), rank);
          co_yield 0;
        }
      }
      it += static_cast<std::uint64_t>(N);
      ++work;
    }
    if (dynamic) {
      // get_next_work: wait until the consumers read the previous tile index, publish the next.
      e.bar_sync(o, kBarSchedEmpty, static_cast<std::uint32_t>(k.consumer_wgs));
      e.bar_arrive(o, kBarSchedFull);
    }
    co_yield 0;
  }
  // Kernel end (current): wait for the last O store's smem read.
  if (uses_barrier_o && current && work > 0) e.bar_sync(o, kBarO, 1);
}

namespace {

struct ConsumerCtx {
  const Fa3Kernel& k;
  const Fa3Emitter& e;
  std::vector<trace::Instr>& o;
  int c;         // this consumer's index
  int nc;        // consumer WarpGroups
  bool current;
  std::uint16_t own_bar() const { return static_cast<std::uint16_t>(k.pingpong_bar + c); }
  std::uint16_t next_bar() const { return static_cast<std::uint16_t>(k.pingpong_bar + (c + 1) % nc); }
  bool last() const { return c == nc - 1; }
  // Paper §5.2 ping-pong: consumer 0 arrives on barrier A before each QK and waits on B before each
  // softmax; consumer 1 does the opposite.
  void paper_before_qk() const {
    if (c == 0) e.bar_arrive(o, k.pingpong_bar);
    else e.bar_sync(o, k.pingpong_bar, 1);
  }
  void paper_before_softmax() const {
    if (c == 0) e.bar_sync(o, static_cast<std::uint16_t>(k.pingpong_bar + 1), 1);
    else e.bar_arrive(o, static_cast<std::uint16_t>(k.pingpong_bar + 1));
  }
  // Softmax of one block in the paper's form: one bubble after wait_group 1 (plus the causal mask).
  void paper_softmax(bool masked) const {
    if (k.paper_pingpong) paper_before_softmax();
    e.bubble(o, (masked && k.shape.causal ? k.bubbles.mask : 0) + k.bubbles.paper_total());
  }
};

}  // namespace

StepGen consumer_program(std::shared_ptr<const Fa3Plan> plan, std::uint32_t cta, int wg,
                         std::vector<trace::Instr>* out) {
  const Fa3Kernel& k = plan->k;
  ConsumerCtx x{k, plan->em, *out, wg, k.consumer_wgs, k.version == Version::Current};
  const Fa3Emitter& e = x.e;
  auto& o = *out;
  const BubbleCosts& bc = k.bubbles;
  const bool pp = k.pingpong && !k.paper_pingpong;  // FA3's own ping-pong placement
  const bool dynamic = claims_tiles(k.scheduler);
  const std::uint32_t others = static_cast<std::uint32_t>(x.nc - 1);
  const std::uint32_t p_extra = k.pv_rs ? 0 : bc.stsm_p;  // SS PV: P goes through smem

  // mma_init: the first WG gets the first turn (current: it arrives on its own barrier; the
  // original: the last WG arrives on the first WG's barrier). QueryEmpty's initial arrive is the
  // Q stage being free. Dynamic scheduler: the consumers say the tile-index slot is empty.
  if (pp && ((x.current && x.c == 0) || (!x.current && x.last()))) e.bar_arrive(o, k.pingpong_bar);
  if (dynamic) e.bar_arrive(o, kBarSchedEmpty);
  co_yield 0;

  std::uint64_t it = 0;
  std::int64_t work = 0;
  Tile t;
  for (std::int64_t i = 0; plan->sched.tile(cta, i, t); ++i) {
    const BlockRange r = block_range(k, t.m_block);
    const std::int64_t N = r.count();
    if (N > 0) {
      auto st = [&](std::int64_t j) { return static_cast<int>((it + j) % k.stages); };
      auto blk = [&](std::int64_t j) { return r.n_max - 1 - j; };
      auto masked = [&](std::int64_t j) { return block_masked(k, r, blk(j)); };
      // Original: the previous tile's O store is waited for (smem read) right after the first QK
      // GEMM's issue, then barrier_O, which the producer waits on before its first V load.
      auto original_barrier_o = [&] {
        if (!x.current && !k.paper_recipe && x.last() && work > 0) {
          o.push_back(trace::Instr::tma_wait(ids::kGroupStore, 0, /*read_only=*/true));
          e.bar_arrive(o, kBarO);
        }
      };
      e.wait_q(o);
      if (k.intra_wg_overlap) {
        // Prologue: QK(N-1) alone.
        e.wait_k(o, st(0));
        if (k.paper_pingpong) x.paper_before_qk();
        if (pp && !x.current) e.bar_sync(o, x.own_bar(), 1);
        e.gemm_qk(o, x.c, st(0));
        if (pp && !x.current) e.bar_arrive(o, x.next_bar());
        original_barrier_o();
        e.mma_wait(o, 0);
        e.release_k(o, st(0));
        if (k.paper_bubbles) {
          x.paper_softmax(masked(0));
        } else {
          e.bubble(o, bc.mask + bc.softmax() + bc.convert_p + p_extra + (x.current ? bc.zero_o : 0));
        }
        co_yield 0;
        // Steady state: QK(j) with PV(j+1), softmax(j) overlapping PV(j+1).
        for (std::int64_t j = 1; j < N; ++j) {
          const bool waits = !k.first_wg_waits_only || x.c == 0;
          if (waits) e.wait_k(o, st(j));
          if (k.paper_pingpong) x.paper_before_qk();
          if (pp) e.bar_sync(o, x.own_bar(), 1);
          e.gemm_qk(o, x.c, st(j));
          if (!k.paper_bubbles && (!x.current || k.head_dim > 128))
            e.bubble(o, bc.rescale_o);  // original, or RescaleOBeforeGemm (hdim > 128)
          if (waits) e.wait_v(o, st(j - 1));
          e.gemm_pv(o, x.c, st(j - 1));
          if (pp) e.bar_arrive(o, x.next_bar());
          e.mma_wait(o, 1);
          e.release_k(o, st(j));
          if (k.paper_bubbles) {
            x.paper_softmax(masked(j));
          } else {
            e.bubble(o, (masked(j) ? bc.mask : 0) + bc.softmax());
          }
          e.mma_wait(o, 0);
          e.release_v(o, st(j - 1));
          if (!k.paper_bubbles)
            e.bubble(o, bc.convert_p + p_extra + (x.current && k.head_dim <= 128 ? bc.rescale_o : 0));
          co_yield 0;
        }
        // Tail: QueryEmpty, PV(n_min).
        e.release_q(o);
        if (!k.paper_bubbles && !x.current) e.bubble(o, bc.rescale_o);
        e.wait_v(o, st(N - 1));
        e.gemm_pv(o, x.c, st(N - 1));
        e.mma_wait(o, 0);
        e.release_v(o, st(N - 1));
        // O *= 1/row_sum (simfa-attn: in its epilogue bubble)
        if (!k.paper_bubbles && !k.o_from_registers) e.bubble(o, bc.rescale_o);
      } else {
        // No intra-WarpGroup overlap (current, fa3-kernel.md §3.2): the ping-pong protects
        // [QK(N-1)], [PV(j) .. QK(j-1)], ..., [PV(n_min)]. The original release had no such path;
        // with fa3.version=original it keeps the original's barrier_O hand-off.
        if (pp) e.bar_sync(o, x.own_bar(), 1);
        for (std::int64_t j = 0; j < N; ++j) {
          e.wait_k(o, st(j));
          e.gemm_qk(o, x.c, st(j));
          if (pp) e.bar_arrive(o, x.next_bar());
          if (j == 0) original_barrier_o();
          e.mma_wait(o, 0);
          e.release_k(o, st(j));
          if (k.paper_bubbles) {
            x.paper_softmax(masked(j));
          } else {
            e.bubble(o, (masked(j) ? bc.mask : 0) + bc.softmax() + bc.convert_p + p_extra +
                            (j > 0 ? bc.rescale_o : 0));
          }
          e.wait_v(o, st(j));
          if (pp) e.bar_sync(o, x.own_bar(), 1);
          e.gemm_pv(o, x.c, st(j));
          e.mma_wait(o, 0);
          e.release_v(o, st(j));
          co_yield 0;
        }
        if (pp) e.bar_arrive(o, x.next_bar());
        e.release_q(o);
        if (!k.paper_bubbles && !k.o_from_registers) e.bubble(o, bc.rescale_o);
      }
      it += static_cast<std::uint64_t>(N);
    }
    // Dynamic scheduler: read the next tile index (before the epilogue, as FA3 does).
    if (dynamic) {
      e.bar_sync(o, kBarSchedFull, static_cast<std::uint32_t>(x.nc));
      e.bar_arrive(o, kBarSchedEmpty);
    }
    if (N > 0) {
      if (k.paper_recipe) {
        // The paper's events stop at the mainloop; O leaves as each WarpGroup's own TMA store.
        e.store_o(o, t, 64 * x.c);
      } else if (k.o_from_registers) {
        // simfa-attn: each consumer normalises, converts and stores its own rows (and LSE) from
        // registers; nothing waits for the stores.
        e.bubble(o, k.register_epilogue_bubble());
        e.store_o_from_registers(o, t, x.c);
      } else {
        // Epilogue: convert O, sync the consumers (smem_o aliases V stage 0), STSM, then the last
        // consumer WarpGroup's last warp stores O by TMA once every consumer has arrived.
        e.bubble(o, bc.convert_o);
        if (others) e.bar_sync(o, kBarEpilogue, others);
        e.bubble(o, bc.stsm_o);
        if (!x.last()) {
          e.bar_arrive(o, kBarEpilogue);
        } else {
          if (others) e.bar_sync(o, kBarEpilogue, others);
          e.store_o(o, t, 0);
          if (x.current) {
            o.push_back(trace::Instr::tma_wait(ids::kGroupStore, 0, /*read_only=*/true));
            e.bar_arrive(o, kBarO);
          }
        }
      }
      ++work;
    }
    co_yield 0;
  }
  // Kernel end: outstanding O stores complete before the CTA exits.
  if (work > 0 && (k.paper_recipe || (!x.current && x.last())))
    o.push_back(trace::Instr::tma_wait(ids::kGroupStore, 0));
}

}  // namespace simfa::workload
