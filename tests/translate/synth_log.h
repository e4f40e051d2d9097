// Host-side emulation of an instrumented FA3 run: walks the synthesizer's instruction stream of
// every WarpGroup and records, with the device logger's emulator, the events the kernel's call
// sites (docs/instrumentation.md) would record for each instruction group, in the same order:
//   producer  ACQUIRE K/V/Q stage -> TMA_K/V/Q_ISSUE (stage, KV tile / m-block)
//   consumer  MB_WAIT Q -> TILE_START/HEAD/BATCH; MB_WAIT K/V -> WAIT_K/V_START; first WGMMA of a
//             group -> GEMM_QK/PV_ISSUE; WGMMA_WAIT 1 N -> WAIT_WG_N; the bubble after a QK's wait ->
//             SOFTMAX_START/END around it; the last WAIT_WG_0 of a tile -> EPILOGUE_START (source
//             recipe); TMA_STORE -> TMA_O_STORE; EPILOGUE_END before the next tile (simfa-attn:
//             EPILOGUE_START/END bracket the epilogue bubble and there is no TMA_O_STORE)
//   both      BAR_WAIT / BAR_ARRIVE -> BAR_WAIT_START / BAR_ARRIVE (optional events)
// Timestamps advance one tick per instruction and a bubble's cycles per bubble; a GEMM is never
// earlier than the producer's load of its tile (causality, as on the device).
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "instr/emulator.h"
#include "trace/isa.h"
#include "workload/fa3_source.h"

namespace simfa::translate::testing {

struct Rec {
  std::uint64_t ts = 0;
  std::uint16_t event = 0, stage = 0, payload = 0;
};
// [cta][wg] -> events of that WarpGroup.
using EventLists = std::vector<std::vector<std::vector<Rec>>>;

inline std::vector<trace::Instr> drain(trace::InstrStream& s) {
  std::vector<trace::Instr> v, buf(64);
  for (std::size_t n; (n = s.read(buf.data(), buf.size())) > 0;) v.insert(v.end(), buf.begin(), buf.begin() + n);
  return v;
}

struct SynthRun {
  std::vector<std::vector<std::vector<trace::Instr>>> code;  // [cta][wg]
  EventLists events;
};

// `tick_scale`: log ticks per simulated cycle of a bubble (1 = clock64 at the simulated clock).
inline SynthRun synthesize_and_log(workload::Fa3Source& src, double tick_scale = 1.0) {
  using trace::Op;
  const workload::Fa3Kernel& k = src.fa3();
  const workload::Fa3Emitter& em = src.plan().em;
  const auto& sched = src.plan().sched;
  const auto stages = static_cast<std::uint16_t>(k.stages);
  SynthRun run;
  const std::uint32_t ctas = src.kernel().ctas;
  run.code.resize(ctas);
  run.events.resize(ctas);
  for (std::uint32_t cta = 0; cta < ctas; ++cta) {
    trace::CtaProgram p = src.open(cta);
    for (auto& w : p.wgs) run.code[cta].push_back(drain(*w.stream));
    run.events[cta].resize(p.wgs.size());
    std::vector<workload::Tile> tiles;
    workload::Tile t;
    for (std::int64_t i = 0; sched.tile(cta, i, t); ++i) tiles.push_back(t);
    std::vector<std::uint64_t> k_ts, v_ts;  // producer's load timestamps, for causality

    for (std::size_t wg = 0; wg < p.wgs.size(); ++wg) {
      const auto& code = run.code[cta][wg];
      auto& out = run.events[cta][wg];
      std::uint64_t ts = 1000;
      auto rec = [&](std::uint16_t ev, std::uint16_t st, std::int64_t pl) {
        out.push_back({ts, ev, st, static_cast<std::uint16_t>(pl)});
      };
      std::size_t ti = 0;
      workload::Tile cur;
      workload::BlockRange r;
      std::int64_t nk = 0, nv = 0, nqk = 0, npv = 0;
      bool have = false, q = false, epi_open = false;
      auto next_tile = [&] {
        cur = tiles.at(ti++);
        r = workload::block_range(k, cur.m_block);
        nk = nv = nqk = npv = 0;
        q = false;
        have = true;
        rec(SIMFA_EV_TILE_START, 0, cur.index & 0xFFFF);
        rec(SIMFA_EV_TILE_HEAD, 0, cur.head);
        rec(SIMFA_EV_TILE_BATCH, 0, cur.batch);
      };
      struct G {
        bool qk;
        std::uint16_t s;
        std::int64_t n;
      };
      std::deque<G> inflight;
      bool softmax_next = false, in_group = false;
      G last_done{};
      std::size_t kref = 0, vref = 0;
      for (const trace::Instr& in : code) {
        std::uint64_t adv = 1;
        if (in.op == Op::BAR_WAIT) rec(SIMFA_EV_BAR_WAIT_START, 0, in.id);
        if (in.op == Op::BAR_ARRIVE) rec(SIMFA_EV_BAR_ARRIVE, 0, in.id);
        if (wg == 0) {
          if (in.op == Op::ACQUIRE_STAGE) {
            if (!have || (q && nk == r.count() && nv == r.count())) next_tile();
            if (in.id == em.q_stage()) {
              rec(SIMFA_EV_TMA_Q_ISSUE, 0, cur.m_block), q = true;
            } else if (in.id < stages) {
              rec(SIMFA_EV_TMA_K_ISSUE, in.id, r.n_max - 1 - nk++);
              k_ts.push_back(ts);
            } else {
              rec(SIMFA_EV_TMA_V_ISSUE, static_cast<std::uint16_t>(in.id - stages), r.n_max - 1 - nv++);
              v_ts.push_back(ts);
            }
          }
        } else {
          switch (in.op) {
            case Op::MB_WAIT:
              if (in.id == em.q_stage()) {
                if (epi_open) rec(SIMFA_EV_EPILOGUE_END, 0, cur.m_block), epi_open = false;
                next_tile();
              } else if (in.id < stages) {
                rec(SIMFA_EV_WAIT_K_START, in.id, r.n_max - 1 - nqk);
              } else {
                rec(SIMFA_EV_WAIT_V_START, static_cast<std::uint16_t>(in.id - stages), r.n_max - 1 - npv);
              }
              break;
            case Op::WGMMA:
              if (!in_group) {
                in_group = true;
                const bool qk = in.id == workload::ids::kGroupQK;
                const auto& lay = em.layout();
                const std::uint64_t base = qk ? lay.smem_k : lay.smem_v;
                const auto s = static_cast<std::uint16_t>((in.gmem - base) / lay.k_stage_bytes);
                const std::int64_t n = r.n_max - 1 - (qk ? nqk++ : npv++);
                const auto& lts = qk ? k_ts : v_ts;
                std::size_t& ref = qk ? kref : vref;
                if (ref < lts.size()) ts = std::max(ts, lts[ref] + 1);
                ++ref;
                rec(qk ? SIMFA_EV_GEMM_QK_ISSUE : SIMFA_EV_GEMM_PV_ISSUE, s, n);
                inflight.push_back({qk, s, n});
              }
              break;
            case Op::WGMMA_COMMIT:
              in_group = false;
              break;
            case Op::WGMMA_WAIT: {
              last_done = inflight.front();
              inflight.pop_front();
              rec(in.max_pending() == 1 ? SIMFA_EV_WAIT_WG_1 : SIMFA_EV_WAIT_WG_0, last_done.s, last_done.n);
              softmax_next = last_done.qk;
              if (!last_done.qk && inflight.empty() && npv == r.count() && !k.paper_recipe) {
                // simfa-attn logs EPILOGUE_START right before its epilogue bubble (below).
                if (!k.o_from_registers) rec(SIMFA_EV_EPILOGUE_START, 0, cur.m_block);
                epi_open = true;
              }
              break;
            }
            case Op::BUBBLE:
              if (epi_open && k.o_from_registers) {  // simfa-attn: the bracketed epilogue bubble
                rec(SIMFA_EV_EPILOGUE_START, 0, cur.m_block);
                ts += static_cast<std::uint64_t>(in.cycles() * tick_scale + 0.5);
                rec(SIMFA_EV_EPILOGUE_END, 0, cur.m_block);
                epi_open = false;
                adv = 0;
              } else if (softmax_next) {
                rec(SIMFA_EV_SOFTMAX_START, last_done.s, last_done.n);
                ts += static_cast<std::uint64_t>(in.cycles() * tick_scale + 0.5);
                rec(SIMFA_EV_SOFTMAX_END, last_done.s, last_done.n);
                softmax_next = false;
                adv = 0;
              } else {
                adv = in.cycles();
              }
              break;
            case Op::TMA_STORE:
              if (!in_group && !k.o_from_registers) rec(SIMFA_EV_TMA_O_STORE, 0, cur.m_block);
              in_group = true;
              break;
            case Op::TMA_COMMIT:
              in_group = false;
              break;
            default:
              break;
          }
        }
        ts += adv;
      }
      if (epi_open) rec(SIMFA_EV_EPILOGUE_END, 0, cur.m_block);
    }
  }
  return run;
}

// The TensorMap records a kernel's host code would log for the trace's maps. FA3: every map as the
// trace has it. simfa-attn (`attn_kernel=true`): Q, K and V only, encoded as gpu/attn/attn_host.cuh
// does (BSHD as dims [D, S, H, B], box [64, rows, 1, 1]); O and LSE have none.
inline std::vector<simfa_tensormap_desc> log_maps(const trace::KernelInfo& info, bool attn_kernel = false) {
  std::vector<simfa_tensormap_desc> out;
  for (std::uint16_t id = 0; id < info.tmaps.size(); ++id) {
    if (!info.has_tmap(id) || (attn_kernel && id > 2)) continue;
    const trace::TensorMap& m = info.tmap(id);
    simfa_tensormap_desc d{};
    d.id = m.id;
    d.rank = m.rank;
    d.base = m.base.value_or(0);
    for (int i = 0; i < m.rank; ++i) {
      const int from = attn_kernel && (i == 1 || i == 2) ? 3 - i : i;  // swap the head and seqlen dims
      d.dims[i] = m.dims[from], d.strides_bytes[i] = m.strides[from], d.box[i] = m.box[from];
    }
    d.elem_bytes = m.esz;
    out.push_back(d);
  }
  return out;
}

// Writes the events with the logger emulator: the producer records from its elected warp 0, each
// consumer from all four warps.
inline instr::LoggerEmulator emulate_with_maps(const std::vector<simfa_tensormap_desc>& maps, const EventLists& ev,
                                               std::uint32_t clock_kind = SIMFA_CLOCK_CLOCK64,
                                               std::uint64_t clock_hz = 1830000000ull, std::uint32_t capacity = 4096) {
  const auto wgs = static_cast<std::uint32_t>(ev.empty() ? 3 : ev[0].size());
  instr::LoggerEmulator em({static_cast<std::uint32_t>(ev.size()), 1, 1}, {128 * wgs, 1, 1}, capacity, clock_kind);
  em.set_clock_rate_hz(clock_hz);
  for (const auto& d : maps) em.add_tensormap(d);
  for (std::size_t c = 0; c < ev.size(); ++c)
    for (std::size_t w = 0; w < ev[c].size(); ++w)
      for (const Rec& r : ev[c][w]) {
        if (w == 0) em.record(c, 0, r.ts, r.event, r.stage, r.payload);
        else em.record_warpgroup(c, static_cast<std::uint32_t>(w), r.ts, r.event, r.stage, r.payload);
      }
  return em;
}

inline instr::LoggerEmulator emulate(const trace::KernelInfo& info, const EventLists& ev,
                                     std::uint32_t clock_kind = SIMFA_CLOCK_CLOCK64,
                                     std::uint64_t clock_hz = 1830000000ull, std::uint32_t capacity = 4096) {
  return emulate_with_maps(log_maps(info), ev, clock_kind, clock_hz, capacity);
}
// The log the kernel `src` synthesizes would write (its own TensorMap records).
inline instr::LoggerEmulator emulate(const workload::Fa3Source& src, const EventLists& ev,
                                     std::uint32_t clock_kind = SIMFA_CLOCK_CLOCK64,
                                     std::uint64_t clock_hz = 1830000000ull, std::uint32_t capacity = 4096) {
  return emulate_with_maps(log_maps(src.kernel(), src.fa3().o_from_registers), ev, clock_kind, clock_hz, capacity);
}

}  // namespace simfa::translate::testing
