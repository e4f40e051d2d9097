// FA3's producer and consumer WarpGroups as coroutines. Each loop iteration appends one step (a
// K/V pair, one mainloop iteration, an epilogue) and suspends, so memory stays bounded however
// long the sequence is. Stage s of the j-th block a CTA processes is j mod stages, counted across
// tiles exactly as FA3's pipeline state is (K(n) and V(n) share a stage index).
#include "workload/programs.h"

#include <algorithm>
#include <utility>

namespace simfa::workload {

using ids::kBarEpilogue;
using ids::kBarO;
using ids::kBarSchedEmpty;
using ids::kBarSchedFull;

namespace {

// Sampled simulation (workload/sampler.h): every WarpGroup of a CTA asks the sampler at the same
// points, before a tile's prologue and before each further block, and follows the same cuts: it
// sleeps the predicted time of the skipped work and continues where the cut says.
// Functional warming of a cut (docs/sampling.md): the TMA copies of the last part of the skipped
// work, oldest first, flagged trace::kTmaWarm: the loads (producer) or the O stores (the consumers
// that store) of the last `warm_tiles` skipped tiles and the K/V loads of the last `kv` skipped
// blocks (one sweep of a tile's KV range), so that the L2 holds what the real kernel would have left.
struct Warm {
  const Fa3Plan& plan;
  std::uint32_t cta;
  int wg;  // -1: the producer; else the consumer index
  std::uint64_t warm_tiles;

  void operator()(std::int64_t i, std::int64_t q, const Cut& c, std::vector<trace::Instr>& out) const {
    if (warm_tiles == 0) return;  // the sampler replays the whole span itself (span replay)
    const Fa3Kernel& k = plan.k;
    const Fa3Emitter& e = plan.em;
    const auto rank = cta % static_cast<std::uint32_t>(k.cluster);
    const bool stores_o = wg >= 0 && (k.paper_recipe || k.o_from_registers || wg == k.consumer_wgs - 1);
    if (wg >= 0 && !stores_o) return;
    // Count the skipped blocks and tiles, then emit the last ones.
    std::int64_t blocks = 0, tiles = 0;
    Tile t;
    auto walk = [&](auto&& f) {
      for (std::int64_t ti = i; ti <= c.tile && plan.sched.tile(cta, ti, t); ++ti) {
        const BlockRange r = block_range(k, t.m_block);
        const std::int64_t n = r.count();
        const std::int64_t from = ti == i ? q : 0, to = ti == c.tile ? c.pos : n;
        if (n == 0 || from >= to) continue;
        f(t, r, from, to);
      }
    };
    walk([&](const Tile&, const BlockRange&, std::int64_t from, std::int64_t to) {
      blocks += to - from;
      ++tiles;
    });
    const std::int64_t kv = k.n_blocks;
    std::int64_t b = 0, tn = 0;
    std::vector<trace::Instr> tmp;
    auto keep = [&](bool write) {
      for (trace::Instr in : tmp) {
        const bool tma = in.op == trace::Op::TMA_TENSOR || in.op == trace::Op::TMA_BULK || in.op == trace::Op::TMA_STORE;
        if (!tma || (in.op == trace::Op::TMA_STORE) != write) continue;
        in.flags = trace::kTmaWarm;
        out.push_back(in);
      }
      tmp.clear();
    };
    walk([&](const Tile& tt, const BlockRange& r, std::int64_t from, std::int64_t to) {
      const bool late_tile = tn++ >= tiles - static_cast<std::int64_t>(warm_tiles);
      if (wg < 0) {
        if (late_tile) e.load_q(tmp, tt);
        for (std::int64_t p = from; p < to; ++p, ++b) {
          if (b < blocks - kv) continue;
          e.load_k(tmp, 0, tt, r.n_max - 1 - p, rank);
          e.load_v(tmp, 0, tt, r.n_max - 1 - p, rank);
        }
        keep(false);
      } else if (late_tile) {
        if (k.o_from_registers) e.store_o_from_registers(tmp, tt, wg);
        else e.store_o(tmp, tt, k.paper_recipe ? 64 * wg : 0);
        keep(true);
      }
    });
  }
};

struct Resume {
  std::int64_t tile = -1, pos = 0;  // a cut into a later tile: continue there
  std::uint64_t sleep = 0;          // not yet slept
  std::vector<trace::Instr> warm;   // not yet issued
  const Warm* warmer = nullptr;

  static void emit_sleep(std::vector<trace::Instr>& o, std::uint64_t cycles) {
    while (cycles > 0) {
      const auto d = static_cast<std::uint32_t>(std::min<std::uint64_t>(cycles, 1u << 31));
      o.push_back(trace::Instr::sleep(d));
      cycles -= d;
    }
  }
  void flush(std::vector<trace::Instr>& o) {
    o.insert(o.end(), warm.begin(), warm.end());
    // Each warming copy issues in a cycle of its own: the sleep is that much shorter.
    const std::uint64_t w = warm.size();
    warm.clear();
    const std::uint64_t d = sleep - std::min<std::uint64_t>(sleep, w);
    sleep = 0;
    emit_sleep(o, d);
  }
  // Before tile i's prologue: false when the tile is skipped; else `p` is its first position.
  bool enter(Fa3Sampler& s, std::uint32_t cta, std::int64_t i, std::vector<trace::Instr>& o, std::int64_t& p) {
    p = 0;
    if (tile > i) return false;
    if (tile == i) {
      p = pos;
      tile = -1;
    } else if (const Cut c = s.at(cta, i, 0); c.cut) {
      (*warmer)(i, 0, c, warm);
      sleep += c.sleep;
      if (c.tile > i) {
        tile = c.tile, pos = c.pos;
        return false;
      }
      p = c.pos;
    }
    flush(o);
    return true;
  }
  // The position after `p` in tile i of N blocks, into `q`; false when the tile's blocks end here
  // (also when a cut continues in a later tile: its sleep comes before that tile). A cut that
  // continues in this tile issues `before` ahead of its sleep and sets `*cut_inside`.
  bool next(Fa3Sampler* s, std::uint32_t cta, std::int64_t i, std::int64_t N, std::vector<trace::Instr>& o,
            std::int64_t p, std::int64_t& q, const std::vector<trace::Instr>* before = nullptr,
            bool* cut_inside = nullptr) {
    q = p + 1;
    if (q >= N) return false;
    if (!s) return true;
    const Cut c = s->at(cta, i, q);
    if (!c.cut) return true;
    (*warmer)(i, q, c, warm);
    sleep += c.sleep;
    if (c.tile > i) {
      tile = c.tile, pos = c.pos;
      return false;
    }
    if (before) o.insert(o.end(), before->begin(), before->end());
    if (cut_inside) *cut_inside = true;
    flush(o);
    q = c.pos;
    return true;
  }
};

}  // namespace

StepGen producer_program(std::shared_ptr<const Fa3Plan> plan, std::uint32_t cta,
                         std::vector<trace::Instr>* out, Fa3Sampler* smp) {
  const Fa3Kernel& k = plan->k;
  const Fa3Emitter& e = plan->em;
  auto& o = *out;
  const std::uint32_t rank = cta % static_cast<std::uint32_t>(k.cluster);
  const bool current = k.version == Version::Current;
  const bool uses_barrier_o = k.uses_barrier_o();  // not in the paper's recipe nor in simfa-attn
  const bool dynamic = claims_tiles(k.scheduler);
  std::uint64_t it = 0;   // blocks this CTA has processed (pipeline stage counter)
  std::int64_t work = 0;  // non-empty tiles processed (FA3's work_idx)
  Resume rs;              // sampled simulation: where a fast-forward continues
  std::vector<trace::Instr> v_prev;  // the V load that follows the next K load
  const Warm warmer{*plan, cta, -1, smp ? smp->warm_tiles() : 0};
  rs.warmer = &warmer;
  Tile t;
  for (std::int64_t i = 0; plan->sched.tile(cta, i, t); ++i) {
    const BlockRange r = block_range(k, t.m_block);
    const std::int64_t N = r.count();
    std::int64_t p = 0;  // position (0 = block n_max-1) of the block being loaded
    if (N > 0 && smp && !rs.enter(*smp, cta, i, o, p)) continue;
    if (N > 0) {
      std::int64_t x = 0;  // blocks loaded in this tile (the stage counter's offset)
      auto st = [&](std::int64_t j) { return static_cast<int>((it + j) % k.stages); };
      auto blk = [&](std::int64_t q) { return r.n_max - 1 - q; };
      // K(N-1); QueryEmpty + Q (ACQUIRE of the Q stage); barrier_O from the previous tile's store.
      e.load_k(o, st(0), t, blk(p), rank);
      e.load_q(o, t);
      if (uses_barrier_o && work > 0) e.bar_sync(o, kBarO, 1);
      co_yield 0;
      // simfa-attn's producer has this one order for both consumer schedules.
      if (k.intra_wg_overlap || k.impl == Impl::SimfaAttn) {
        // K(N-2), V(N-1), K(N-3), V(N-2), ..., K(0), V(1); then V(0). V(p) goes with K(p's next
        // block). Where a fast-forward span cuts in between and continues in this tile, the real
        // kernel loaded V(p) right after the cut, and V(the resumed block's predecessor) is
        // skipped work (the span replay counts it): V(p) is issued before the sleep, and the
        // resumed block's K goes alone. (Until session 19 V(p) was issued after the sleep, a span
        // late, when the L2 held the span's end state: docs/sampling.md step 5.)
        for (std::int64_t q;;) {
          v_prev.clear();
          e.load_v(v_prev, st(x), t, blk(p), rank);
          bool cut_inside = false;
          if (!rs.next(smp, cta, i, N, o, p, q, &v_prev, &cut_inside)) break;
          ++x;
          e.load_k(o, st(x), t, blk(q), rank);
          if (!cut_inside) o.insert(o.end(), v_prev.begin(), v_prev.end());
          p = q;
          co_yield 0;
        }
        o.insert(o.end(), v_prev.begin(), v_prev.end());
      } else {
        // V(N-1), then K(n), V(n) for n = N-2 ... 0.
        e.load_v(o, st(0), t, blk(p), rank);
        for (std::int64_t q; rs.next(smp, cta, i, N, o, p, q);) {
          ++x;
          e.load_k(o, st(x), t, blk(q), rank);
          e.load_v(o, st(x), t, blk(q), rank);
          p = q;
          co_yield 0;
        }
      }
      it += static_cast<std::uint64_t>(x + 1);
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
  // FA3's own ping-pong placement (not the paper's).
  bool pp() const { return k.pingpong && !k.paper_pingpong; }
  // SS PV GEMM: P goes through shared memory.
  std::uint32_t p_extra() const { return k.pv_rs ? 0 : k.bubbles.stsm_p; }
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

// One consumer's mainloop over the KV blocks of one tile: what the tile loop hands the mainloop
// (and gets back: the blocks computed, `b`). The sampler's cuts (`rs`, `smp`) apply inside.
struct TileMainloop {
  const ConsumerCtx& x;
  Resume& rs;
  Fa3Sampler* smp;
  std::uint32_t cta;
  std::int64_t i, N;     // tile i of this CTA, N blocks
  const BlockRange& r;
  std::int64_t p;        // position (0 = block n_max-1) of the block being computed
  std::uint64_t it;      // the stage counter at the tile's first block
  std::int64_t work;     // non-empty tiles before this one
  bool marks;            // consumer 0 tells the sampler where the CTA is
  std::int64_t b = 0;    // blocks computed in this tile (the stage counter's offset)

  int st(std::int64_t j) const { return static_cast<int>((it + j) % x.k.stages); }
  bool masked(std::int64_t q) const { return block_masked(x.k, r, r.n_max - 1 - q); }
  // Original: the previous tile's O store is waited for (smem read) right after the first QK
  // GEMM's issue, then barrier_O, which the producer waits on before its first V load.
  void original_barrier_o() const {
    if (!x.current && !x.k.paper_recipe && x.last() && work > 0) {
      x.o.push_back(trace::Instr::tma_wait(ids::kGroupStore, 0, /*read_only=*/true));
      x.e.bar_arrive(x.o, kBarO);
    }
  }
};

// Intra-WarpGroup overlap (fa3-kernel.md §3.1; FA3's default): QK(N-1) alone, then each step
// issues QK(j) and PV(j+1) and runs softmax(j) under PV(j+1), then the tail PV(n_min). The
// original release differs in where the ping-pong sync and the O rescale sit; the paper's recipe
// in its ping-pong and its one softmax bubble.
StepGen mainloop_overlapped(TileMainloop& m) {
  const ConsumerCtx& x = m.x;
  const Fa3Kernel& k = x.k;
  const Fa3Emitter& e = x.e;
  auto& o = x.o;
  const BubbleCosts& bc = k.bubbles;
  const bool pp = x.pp();
  // Prologue: QK(N-1) alone.
  e.wait_k(o, m.st(0));
  if (k.paper_pingpong) x.paper_before_qk();
  if (pp && !x.current) e.bar_sync(o, x.own_bar(), 1);
  e.gemm_qk(o, x.c, m.st(0));
  if (pp && !x.current) e.bar_arrive(o, x.next_bar());
  m.original_barrier_o();
  e.mma_wait(o, 0);
  e.release_k(o, m.st(0));
  if (k.paper_bubbles) {
    x.paper_softmax(m.masked(m.p));
  } else {
    e.bubble(o, bc.mask + bc.softmax() + bc.convert_p + x.p_extra() + (x.current ? bc.zero_o : 0));
  }
  co_yield 0;
  // Steady state: QK(j) with PV(j+1), softmax(j) overlapping PV(j+1).
  for (std::int64_t q; m.rs.next(m.smp, m.cta, m.i, m.N, o, m.p, q);) {
    ++m.b;
    if (m.marks) m.smp->mark(m.cta, false, m.i, q);
    const bool waits = !k.first_wg_waits_only || x.c == 0;
    if (waits) e.wait_k(o, m.st(m.b));
    if (k.paper_pingpong) x.paper_before_qk();
    if (pp) e.bar_sync(o, x.own_bar(), 1);
    e.gemm_qk(o, x.c, m.st(m.b));
    if (!k.paper_bubbles && (!x.current || k.head_dim > 128))
      e.bubble(o, bc.rescale_o);  // original, or RescaleOBeforeGemm (hdim > 128)
    if (waits) e.wait_v(o, m.st(m.b - 1));
    e.gemm_pv(o, x.c, m.st(m.b - 1));
    if (pp) e.bar_arrive(o, x.next_bar());
    e.mma_wait(o, 1);
    e.release_k(o, m.st(m.b));
    if (k.paper_bubbles) {
      x.paper_softmax(m.masked(q));
    } else {
      e.bubble(o, (m.masked(q) ? bc.mask : 0) + bc.softmax());
    }
    e.mma_wait(o, 0);
    e.release_v(o, m.st(m.b - 1));
    if (!k.paper_bubbles)
      e.bubble(o, bc.convert_p + x.p_extra() + (x.current && k.head_dim <= 128 ? bc.rescale_o : 0));
    m.p = q;
    co_yield 0;
  }
  // Tail: QueryEmpty, PV(n_min).
  e.release_q(o);
  if (!k.paper_bubbles && !x.current) e.bubble(o, bc.rescale_o);
  e.wait_v(o, m.st(m.b));
  e.gemm_pv(o, x.c, m.st(m.b));
  e.mma_wait(o, 0);
  e.release_v(o, m.st(m.b));
  // O *= 1/row_sum (simfa-attn: in its epilogue bubble)
  if (!k.paper_bubbles && !k.o_from_registers) e.bubble(o, bc.rescale_o);
}

// No intra-WarpGroup overlap (current, fa3-kernel.md §3.2): the ping-pong protects [QK(N-1)],
// [PV(j) .. QK(j-1)], ..., [PV(n_min)]. The original release had no such path; with
// fa3.version=original it keeps the original's barrier_O hand-off.
StepGen mainloop_serial(TileMainloop& m) {
  const ConsumerCtx& x = m.x;
  const Fa3Kernel& k = x.k;
  const Fa3Emitter& e = x.e;
  auto& o = x.o;
  const BubbleCosts& bc = k.bubbles;
  const bool pp = x.pp();
  if (pp) e.bar_sync(o, x.own_bar(), 1);
  for (bool more = true; more;) {
    e.wait_k(o, m.st(m.b));
    e.gemm_qk(o, x.c, m.st(m.b));
    if (pp) e.bar_arrive(o, x.next_bar());
    if (m.b == 0) m.original_barrier_o();
    e.mma_wait(o, 0);
    e.release_k(o, m.st(m.b));
    if (k.paper_bubbles) {
      x.paper_softmax(m.masked(m.p));
    } else {
      e.bubble(o, (m.masked(m.p) ? bc.mask : 0) + bc.softmax() + bc.convert_p + x.p_extra() +
                      (m.b > 0 ? bc.rescale_o : 0));
    }
    e.wait_v(o, m.st(m.b));
    if (pp) e.bar_sync(o, x.own_bar(), 1);
    e.gemm_pv(o, x.c, m.st(m.b));
    e.mma_wait(o, 0);
    e.release_v(o, m.st(m.b));
    co_yield 0;
    std::int64_t q;
    more = m.rs.next(m.smp, m.cta, m.i, m.N, o, m.p, q);
    if (more) {
      ++m.b;
      m.p = q;
      if (m.marks) m.smp->mark(m.cta, false, m.i, q);
    }
  }
  if (pp) e.bar_arrive(o, x.next_bar());
  e.release_q(o);
  if (!k.paper_bubbles && !k.o_from_registers) e.bubble(o, bc.rescale_o);
}

// The paper's recipe: its events stop at the mainloop; O leaves as each WarpGroup's own TMA store.
void epilogue_paper(const ConsumerCtx& x, const Tile& t) { x.e.store_o(x.o, t, 64 * x.c); }

// simfa-attn (gpu/attn/attn_kernel.cuh): each consumer normalises, converts and stores its own rows
// (and LSE) from registers; nothing waits for the stores.
void epilogue_registers(const ConsumerCtx& x, const Tile& t) {
  x.e.bubble(x.o, x.k.register_epilogue_bubble());
  x.e.store_o_from_registers(x.o, t, x.c);
}

// FA3's epilogue (fa3-kernel.md §6): convert O, sync the consumers (smem_o aliases V stage 0),
// STSM, then the last consumer WarpGroup's last warp stores O by TMA once every consumer has
// arrived; current FA3 then signals barrier_O once the store has read shared memory.
void epilogue_fa3(const ConsumerCtx& x, const Tile& t) {
  const Fa3Emitter& e = x.e;
  auto& o = x.o;
  const std::uint32_t others = static_cast<std::uint32_t>(x.nc - 1);
  e.bubble(o, x.k.bubbles.convert_o);
  if (others) e.bar_sync(o, kBarEpilogue, others);
  e.bubble(o, x.k.bubbles.stsm_o);
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

}  // namespace

// The tile loop of a consumer WarpGroup: mma_init, then per tile the Q wait, the mainloop
// (overlapped or serial), the dynamic scheduler's hand-off and the epilogue of the kernel's kind.
StepGen consumer_program(std::shared_ptr<const Fa3Plan> plan, std::uint32_t cta, int wg,
                         std::vector<trace::Instr>* out, Fa3Sampler* smp) {
  const Fa3Kernel& k = plan->k;
  const ConsumerCtx x{k, plan->em, *out, wg, k.consumer_wgs, k.version == Version::Current};
  const Fa3Emitter& e = x.e;
  auto& o = *out;
  const bool pp = x.pp();
  const bool dynamic = claims_tiles(k.scheduler);
  void (*const epilogue)(const ConsumerCtx&, const Tile&) =
      k.paper_recipe ? epilogue_paper : k.o_from_registers ? epilogue_registers : epilogue_fa3;
  const bool zero_store = epilogue == epilogue_fa3 && x.current;

  // mma_init: the first WG gets the first turn (current: it arrives on its own barrier; the
  // original: the last WG arrives on the first WG's barrier). QueryEmpty's initial arrive is the
  // Q stage being free. Dynamic scheduler: the consumers say the tile-index slot is empty.
  if (pp && ((x.current && x.c == 0) || (!x.current && x.last()))) e.bar_arrive(o, k.pingpong_bar);
  if (dynamic) e.bar_arrive(o, kBarSchedEmpty);
  co_yield 0;

  std::uint64_t it = 0;
  std::int64_t work = 0;
  Resume rs;  // sampled simulation: where a fast-forward continues
  const Warm warmer{*plan, cta, wg, smp ? smp->warm_tiles() : 0};
  rs.warmer = &warmer;
  Tile t;
  for (std::int64_t i = 0; plan->sched.tile(cta, i, t); ++i) {
    const BlockRange r = block_range(k, t.m_block);
    const std::int64_t N = r.count();
    std::int64_t p = 0;  // position (0 = block n_max-1) of the first block to compute
    if (N > 0 && smp && !rs.enter(*smp, cta, i, o, p)) continue;
    const bool marks = smp && x.c == 0;  // consumer 0 tells the sampler where the CTA is
    if (N > 0) {
      if (marks) smp->mark(cta, true, i, p);
      e.wait_q(o);
      TileMainloop m{x, rs, smp, cta, i, N, r, p, it, work, marks};
      StepGen g = k.intra_wg_overlap ? mainloop_overlapped(m) : mainloop_serial(m);
      while (g.step()) co_yield 0;
      it += static_cast<std::uint64_t>(m.b + 1);
    }
    // Dynamic scheduler: read the next tile index (before the epilogue, as FA3 does).
    if (dynamic) {
      e.bar_sync(o, kBarSchedFull, static_cast<std::uint32_t>(x.nc));
      e.bar_arrive(o, kBarSchedEmpty);
    }
    if (N > 0) {
      epilogue(x, t);
      ++work;
    } else if (zero_store && x.last()) {
      // An empty tile (a causal mask with L > S leaves the first rows no key): current FA3 writes
      // its O as zeros from registers (fa3-kernel.md §6.1, store_zero), no barrier_O, no smem.
      // The trace stores it as the epilogue does, one TMA store of the tile: the same bytes.
      e.store_o(o, t, 0);
    }
    co_yield 0;
  }
  // Kernel end: outstanding O stores complete before the CTA exits.
  if (work > 0 && (k.paper_recipe || (!x.current && x.last())))
    o.push_back(trace::Instr::tma_wait(ids::kGroupStore, 0));
}

}  // namespace simfa::workload
