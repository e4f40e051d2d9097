// Event-by-event translation of one WarpGroup (paper §5.2). Each Table 4 event calls the
// synthesizer's emitter for its FA3 operation; the kernel's instructions without an event are
// inserted where workload/programs.cpp places them:
//   producer  TMA_K/V_ISSUE -> ACQUIRE_STAGE + TMA_TENSOR(s) (address from the tile index and the
//             TensorMap); TMA_Q_ISSUE -> ACQUIRE + TMA of Q, then barrier_O's sync (2nd tile on);
//             tile end -> the dynamic scheduler's barriers; kernel end -> barrier_O.
//   consumer  first mainloop event of a tile -> MB_WAIT Q; WAIT_K/V_START -> MB_WAIT;
//             GEMM_QK/PV_ISSUE -> WGMMAs + WGMMA_COMMIT with the ping-pong barriers around them;
//             WAIT_WG_N -> WGMMA_WAIT 1 N, RELEASE_STAGE of the GEMM it completed, then the bubble
//             of what follows (softmax after a QK); a PV without a QK in its iteration -> the
//             tail (RELEASE Q); tile end / EPILOGUE_* / TMA_O_STORE -> the epilogue and O store
//             (simfa-attn: one epilogue bubble, then this consumer's O rows and LSE).
// A bubble waits until the next event, so SOFTMAX_START/END (and simfa-attn's EPILOGUE_START/END)
// can replace it by the measured time.
#include "translate/wg_translate.h"

#include <cmath>
#include <deque>
#include <optional>

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::translate {

namespace {

using instr::Entry;
using trace::Instr;
using workload::BlockRange;
using workload::Tile;
namespace ids = workload::ids;

std::string event_text(const Entry& e) {
  const char* n = simfa_evlog_event_name(e.event);
  return fmt::format("{} stage {} payload {}", n ? n : "event", e.stage, e.payload);
}

// Tile bookkeeping and error reporting shared by the producer and consumer translators.
class WgBase {
 public:
  WgBase(const TranslateCtx& x, std::uint32_t cta, const instr::WgStream& s, std::string role)
      : x_(x), k_(*x.k), e_(*x.em), cta_(cta), s_(s), role_(std::move(role)) {}

 protected:
  [[noreturn]] void fail(const std::string& what) const {
    const std::string at =
        idx_ < s_.events.size()
            ? fmt::format("entry {} ({})", idx_, event_text(s_.events[idx_]))
            : (s_.events.empty() ? std::string("end of an empty stream")
                                 : fmt::format("end of the stream after entry {}", s_.events.size() - 1));
    throw UserError(fmt::format("{}: block {} warp {} {}, WarpGroup {} ({}): {}", x_.log->source, cta_,
                                s_.representative, at, s_.wg, role_, what));
  }
  const Entry& ev() const { return s_.events[idx_]; }

  void check_stage() const {
    if (ev().stage >= k_.stages)
      fail(fmt::format("stage {} is outside the kernel's {} K/V stages (fa3.stages)", ev().stage, k_.stages));
  }

  // TILE_START: the tile with this index (low 16 bits of the scheduler's linear index).
  void begin_tile() {
    const std::int64_t total = k_.total_tiles();
    std::int64_t idx = ev().payload;
    if (total > 0x10000) {
      Tile next;
      if (!x_.sched->tile(cta_, tiles_, next) || (next.index & 0xFFFF) != idx)
        fail(fmt::format("the kernel has {} tiles, so a 16-bit tile index is ambiguous, and {} is not the low "
                         "half of this CTA's next scheduled tile",
                         total, idx));
      idx = next.index;
    } else if (idx >= total) {
      fail(fmt::format("tile index {} is beyond the kernel's {} tiles", idx, total));
    }
    t_ = x_.sched->map(idx);
    r_ = workload::block_range(k_, t_.m_block);
    in_tile_ = true;
    ++tiles_;
  }
  void set_head_or_batch(bool head) {
    if (!in_tile_ || tile_started_work_)
      fail("TILE_HEAD / TILE_BATCH must follow TILE_START, before the tile's first load or GEMM");
    const std::int64_t v = ev().payload;
    if (head) {
      if (v >= k_.sched_heads) fail(fmt::format("head {} is beyond the kernel's {} heads", v, k_.sched_heads));
      t_.head = v;
    } else {
      if (v >= k_.shape.batch) fail(fmt::format("batch {} is beyond the kernel's batch of {}", v, k_.shape.batch));
      t_.batch = v;
    }
  }
  void need_tile() const {
    if (!in_tile_) fail("event before the first TILE_START: the translator needs the tile index");
  }
  // The KV tile this event must name: blocks are visited from n_max-1 down to n_min.
  void check_block(std::int64_t count_so_far, const char* what) const {
    const std::int64_t want = r_.n_max - 1 - count_so_far;
    if (count_so_far >= r_.count())
      fail(fmt::format("one {} too many: m-block {} visits {} KV tiles ({}..{})", what, t_.m_block, r_.count(),
                       r_.n_min, r_.n_max - 1));
    if (ev().payload != want) {
      std::string hint;
      if (count_so_far == 0 && ev().payload < want && !k_.shape.causal)
        hint = " (a causal kernel? translate with --causal)";
      fail(fmt::format("{} names KV tile {}, expected {}: m-block {} visits KV tiles {} down to {}{}", what,
                       ev().payload, want, t_.m_block, r_.n_max - 1, r_.n_min, hint));
    }
  }

  const TranslateCtx& x_;
  const workload::Fa3Kernel& k_;
  const workload::Fa3Emitter& e_;
  std::uint32_t cta_;
  const instr::WgStream& s_;
  std::string role_;
  std::size_t idx_ = 0;
  WgResult res_;
  // Current tile.
  bool in_tile_ = false, tile_started_work_ = false;
  Tile t_;
  BlockRange r_;
  std::int64_t tiles_ = 0;  // TILE_STARTs seen
  std::int64_t work_ = 0;   // tiles with a mainloop finished
};

// ------------------------------------------------------------------------------------------------
class ProducerTr final : WgBase {
 public:
  ProducerTr(const TranslateCtx& x, std::uint32_t cta, const instr::WgStream& s, ProducerLoads& loads)
      : WgBase(x, cta, s, "producer"), loads_(loads) {}

  WgResult run() {
    auto& o = res_.code;
    const std::uint32_t rank = cta_ % static_cast<std::uint32_t>(k_.cluster);
    for (idx_ = 0; idx_ < s_.events.size(); ++idx_) {
      const Entry& en = ev();
      switch (en.event) {
        case SIMFA_EV_TILE_START:
          end_tile();
          begin_tile();
          q_ = false, nk_ = 0, nv_ = 0, tile_started_work_ = false;
          break;
        case SIMFA_EV_TILE_HEAD:
        case SIMFA_EV_TILE_BATCH:
          set_head_or_batch(en.event == SIMFA_EV_TILE_HEAD);
          break;
        case SIMFA_EV_TMA_Q_ISSUE:
          need_tile();
          if (q_) fail("a second TMA_Q_ISSUE in one tile");
          if (en.payload != t_.m_block)
            fail(fmt::format("TMA_Q_ISSUE names m-block {}, but tile {} is m-block {}", en.payload, t_.index,
                             t_.m_block));
          q_ = tile_started_work_ = true;
          e_.load_q(o, t_);
          if (k_.uses_barrier_o() && work_ > 0) e_.bar_sync(o, ids::kBarO, 1);
          break;
        case SIMFA_EV_TMA_K_ISSUE:
        case SIMFA_EV_TMA_V_ISSUE: {
          need_tile();
          check_stage();
          const bool v = en.event == SIMFA_EV_TMA_V_ISSUE;
          check_block(v ? nv_ : nk_, v ? "TMA_V_ISSUE" : "TMA_K_ISSUE");
          tile_started_work_ = true;
          (v ? nv_ : nk_)++;
          if (v) {
            e_.load_v(o, en.stage, t_, en.payload, rank);
            loads_.v.push_back({en.stage, en.payload, en.timestamp});
          } else {
            e_.load_k(o, en.stage, t_, en.payload, rank);
            loads_.k.push_back({en.stage, en.payload, en.timestamp});
          }
          break;
        }
        case SIMFA_EV_TMA_O_STORE:
          fail("TMA_O_STORE in the producer WarpGroup: this FA3 kernel stores O from a consumer WarpGroup");
        default:
          continue;  // bookkeeping, optional and user events carry no producer instruction
      }
      ++res_.events;
    }
    end_tile();
    if (k_.uses_barrier_o() && k_.version == workload::Version::Current && work_ > 0)
      e_.bar_sync(o, ids::kBarO, 1);
    return std::move(res_);
  }

 private:
  void end_tile() {
    if (!in_tile_) return;
    if (tile_started_work_) {
      if (!q_) fail(fmt::format("tile {} loads K/V but has no TMA_Q_ISSUE", t_.index));
      if (nk_ != r_.count() || nv_ != r_.count())
        fail(fmt::format("tile {} (m-block {}) loads {} K and {} V tiles; the m-block visits {}", t_.index,
                         t_.m_block, nk_, nv_, r_.count()));
      ++work_;
    } else if (r_.count() > 0) {
      fail(fmt::format("tile {} (m-block {}) has no loads; the m-block visits {} KV tiles", t_.index, t_.m_block,
                       r_.count()));
    }
    if (workload::claims_tiles(k_.scheduler)) {
      e_.bar_sync(res_.code, ids::kBarSchedEmpty, static_cast<std::uint32_t>(k_.consumer_wgs));
      e_.bar_arrive(res_.code, ids::kBarSchedFull);
    }
    in_tile_ = false;
  }

  ProducerLoads& loads_;
  bool q_ = false;
  std::int64_t nk_ = 0, nv_ = 0;
};

// ------------------------------------------------------------------------------------------------
class ConsumerTr final : WgBase {
 public:
  ConsumerTr(const TranslateCtx& x, std::uint32_t cta, int c, const instr::WgStream& s, const ProducerLoads& loads)
      : WgBase(x, cta, s, fmt::format("consumer {}", c)), loads_(loads), c_(c), nc_(x.k->consumer_wgs) {
    cur_ = k_.version == workload::Version::Current;
    overlap_ = k_.intra_wg_overlap;
    pp_ = k_.pingpong && !k_.paper_pingpong;
    dynamic_ = workload::claims_tiles(k_.scheduler);
    last_ = c_ == nc_ - 1;
    stores_ = k_.paper_recipe || k_.o_from_registers || last_;
    p_extra_ = k_.pv_rs ? 0 : k_.bubbles.stsm_p;
  }

  WgResult run() {
    auto& o = res_.code;
    // mma_init: who may go first in the ping-pong; the scheduler's "tile slot empty" arrival.
    if (pp_ && ((cur_ && c_ == 0) || (!cur_ && last_))) e_.bar_arrive(o, k_.pingpong_bar);
    if (dynamic_) e_.bar_arrive(o, ids::kBarSchedEmpty);
    for (idx_ = 0; idx_ < s_.events.size(); ++idx_) {
      const Entry& en = ev();
      switch (en.event) {
        case SIMFA_EV_SOFTMAX_START:
          if (pend_ && pend_->bracket == Bracket::Softmax) pend_->start = en.timestamp;
          continue;
        case SIMFA_EV_SOFTMAX_END:
          measure(Bracket::Softmax);
          continue;
        case SIMFA_EV_TILE_START:
          flush();
          end_tile();
          begin_tile();
          reset_tile();
          break;
        case SIMFA_EV_TILE_HEAD:
        case SIMFA_EV_TILE_BATCH:
          set_head_or_batch(en.event == SIMFA_EV_TILE_HEAD);
          break;
        case SIMFA_EV_WAIT_K_START:
        case SIMFA_EV_WAIT_V_START:
          flush();
          on_wait_kv(en.event == SIMFA_EV_WAIT_V_START);
          break;
        case SIMFA_EV_GEMM_QK_ISSUE:
          flush();
          on_qk();
          break;
        case SIMFA_EV_GEMM_PV_ISSUE:
          flush();
          on_pv();
          break;
        case SIMFA_EV_WAIT_WG_1:
        case SIMFA_EV_WAIT_WG_0:
          flush();
          on_wait_wg(en.event == SIMFA_EV_WAIT_WG_1 ? 1 : 0);
          break;
        case SIMFA_EV_EPILOGUE_START:
        case SIMFA_EV_TMA_O_STORE:
        case SIMFA_EV_EPILOGUE_END:
          if (en.event == SIMFA_EV_EPILOGUE_END) measure(Bracket::Epilogue);
          flush();
          on_epilogue(en.event);
          break;
        default:
          continue;  // BAR_ARRIVE / BAR_WAIT_START (the ping-pong comes from the kernel), user events
      }
      ++res_.events;
    }
    flush();
    end_tile();
    // Every consumer computes on every K/V tile its CTA loads.
    if (kref_ != loads_.k.size() || vref_ != loads_.v.size())
      fail(fmt::format("the consumer ran {} QK and {} PV GEMMs, but its CTA's producer loaded {} K and {} V tiles",
                       kref_, vref_, loads_.k.size(), loads_.v.size()));
    if (work_ > 0 && (k_.paper_recipe || (!cur_ && last_))) o.push_back(Instr::tma_wait(ids::kGroupStore, 0));
    return std::move(res_);
  }

 private:
  struct Gemm {
    bool qk = false;
    std::uint16_t stage = 0, n = 0;
  };
  // Events that bracket a bubble: its measured length can replace the model's (--bubbles measured).
  enum class Bracket : std::uint8_t { None, Softmax /* SOFTMAX_START/END */, Epilogue /* EPILOGUE_START/END */ };
  struct Pending {  // a bubble (and the paper ping-pong's barrier before it) not emitted yet
    std::vector<Instr> pre;
    std::uint32_t cycles = 0;
    Bracket bracket = Bracket::None;
    std::optional<std::uint64_t> start;
    bool measured = false;  // cycles is a logged duration: emitted as BUBBLE fixed=1
  };

  std::uint16_t own_bar() const { return static_cast<std::uint16_t>(k_.pingpong_bar + c_); }
  std::uint16_t next_bar() const { return static_cast<std::uint16_t>(k_.pingpong_bar + (c_ + 1) % nc_); }

  // The event closing bracket `b`: the pending bubble it closes takes the measured gap.
  void measure(Bracket b) {
    if (!pend_ || pend_->bracket != b || !pend_->start || x_.bubbles != BubbleMode::Measured) return;
    const std::uint64_t ticks = ev().timestamp >= *pend_->start ? ev().timestamp - *pend_->start : 0;
    const double cycles = std::round(double(ticks) * x_.cycles_per_tick);
    // A BUBBLE holds 32 bits of cycles (2.3 s at 1.83 GHz): a longer gap is a broken timestamp, not a
    // softmax, and wrapping it modulo 2^32 would simulate something else.
    if (cycles > 0xFFFFFFFFu)
      fail(fmt::format("a measured bubble of {} ticks ({:.0f} cycles) exceeds the {} cycles a BUBBLE holds "
                       "(--bubbles measured)",
                       ticks, cycles, 0xFFFFFFFFu));
    pend_->cycles = static_cast<std::uint32_t>(cycles);
    pend_->measured = true;
    ++res_.measured_bubbles;
  }

  void flush() {
    if (!pend_) return;
    auto& o = res_.code;
    o.insert(o.end(), pend_->pre.begin(), pend_->pre.end());
    // A logged duration already holds the slowdowns the core would add (docs/architecture.md).
    if (pend_->measured && pend_->cycles) o.push_back(trace::Instr::bubble(pend_->cycles, /*fixed=*/true));
    else e_.bubble(o, pend_->cycles);
    pend_.reset();
  }

  void reset_tile() {
    tile_started_work_ = false;
    closed_ = dyn_done_ = head_done_ = store_done_ = tail_ = iter_qk_ = false;
    nqk_ = npv_ = 0;
    inflight_.clear();
    softmaxed_.clear();
    waited_k_.reset();
    waited_v_.reset();
  }

  // The first mainloop event of a tile: Q must have arrived (non-overlapped: the ping-pong turn).
  void begin_mainloop() {
    need_tile();
    if (closed_) fail("mainloop event after the tile's epilogue began (EPILOGUE_START / TMA_O_STORE)");
    if (tile_started_work_) return;
    if (r_.count() == 0) fail(fmt::format("tile {} (m-block {}) visits no KV tile", t_.index, t_.m_block));
    tile_started_work_ = true;
    e_.wait_q(res_.code);
    if (!overlap_ && pp_) e_.bar_sync(res_.code, own_bar(), 1);
  }

  void on_wait_kv(bool v) {
    begin_mainloop();
    check_stage();
    auto& w = v ? waited_v_ : waited_k_;
    if (w) fail(fmt::format("a second {} before the GEMM that reads the first", v ? "WAIT_V_START" : "WAIT_K_START"));
    if (v) maybe_tail();
    w = Load{ev().stage, ev().payload, ev().timestamp};
    if (v) e_.wait_v(res_.code, ev().stage);
    else e_.wait_k(res_.code, ev().stage);
  }

  // The producer must have loaded this tile into this stage, as its load number `ref`.
  void check_load(const std::vector<Load>& loads, std::size_t& ref, const char* gemm, const char* load) {
    if (ref >= loads.size())
      fail(fmt::format("{} reads KV tile {} from stage {} before its load: the producer issued only {} {}", gemm,
                       ev().payload, ev().stage, loads.size(), load));
    const Load& l = loads[ref];
    if (l.stage != ev().stage || l.n != ev().payload)
      fail(fmt::format("{} reads KV tile {} from stage {}, but the producer's {} #{} put KV tile {} in stage {}",
                       gemm, ev().payload, ev().stage, load, ref, l.n, l.stage));
    if (ev().timestamp < l.ts)
      fail(fmt::format("{} of KV tile {} at tick {} precedes its {} at tick {}: a GEMM cannot read a tile "
                       "before the load was issued",
                       gemm, ev().payload, ev().timestamp, load, l.ts));
    ++ref;
  }
  // A GEMM reads what its WAIT_*_START waited for; where the kernel waits, the wait must be there.
  void check_waited(std::optional<Load>& w, bool must, const char* gemm, const char* wait) {
    if (w) {
      if (w->stage != ev().stage || w->n != ev().payload)
        fail(fmt::format("{} reads KV tile {} from stage {}, but the {} before it was for KV tile {} in stage {}",
                         gemm, ev().payload, ev().stage, wait, w->n, w->stage));
    } else if (must) {
      fail(fmt::format("{} of KV tile {} without a {} before it: the GEMM would read the stage before its load "
                       "completed",
                       gemm, ev().payload, wait));
    }
    w.reset();
  }

  void on_qk() {
    begin_mainloop();
    check_stage();
    for (const Gemm& g : inflight_)
      if (g.qk)
        fail(fmt::format("GEMM_QK_ISSUE while the QK GEMM of KV tile {} is still in flight (no WAIT_WG between)",
                         g.n));
    check_block(nqk_, "GEMM_QK_ISSUE");
    check_load(loads_.k, kref_, "GEMM_QK_ISSUE", "TMA_K_ISSUE");
    const bool prologue = nqk_ == 0;
    check_waited(waited_k_, !overlap_ || prologue || !k_.first_wg_waits_only || c_ == 0, "GEMM_QK_ISSUE",
                 "WAIT_K_START");
    auto& o = res_.code;
    const std::uint16_t s = ev().stage;
    if (overlap_) {
      if (k_.paper_pingpong) paper_before_qk();
      if (pp_ && (!prologue || !cur_)) e_.bar_sync(o, own_bar(), 1);
    }
    e_.gemm_qk(o, c_, s);
    // Original: the previous tile's O store is waited for (smem read) after the tile's first QK
    // GEMM, then barrier_O, which the producer waits on before its first V load.
    auto original_barrier_o = [&] {
      if (prologue && !cur_ && !k_.paper_recipe && last_ && work_ > 0) {
        o.push_back(Instr::tma_wait(ids::kGroupStore, 0, /*read_only=*/true));
        e_.bar_arrive(o, ids::kBarO);
      }
    };
    if (overlap_) {
      if (prologue) {
        if (pp_ && !cur_) e_.bar_arrive(o, next_bar());
        original_barrier_o();
      } else if (!k_.paper_bubbles && (!cur_ || k_.head_dim > 128)) {
        e_.bubble(o, k_.bubbles.rescale_o);
      }
    } else {
      if (pp_) e_.bar_arrive(o, next_bar());
      original_barrier_o();
    }
    inflight_.push_back({true, s, ev().payload});
    ++nqk_;
    iter_qk_ = true;
  }

  // Overlapped mainloop: a PV without a QK in its iteration is the tail PV(n_min), after QueryEmpty.
  void maybe_tail() {
    if (!overlap_ || iter_qk_ || tail_ || nqk_ == 0) return;
    tail_ = true;
    e_.release_q(res_.code);
    if (!k_.paper_bubbles && !cur_) e_.bubble(res_.code, k_.bubbles.rescale_o);
  }

  void on_pv() {
    begin_mainloop();
    check_stage();
    const bool tail = overlap_ && !iter_qk_;
    if (tail) maybe_tail();
    if (softmaxed_.empty())
      fail(fmt::format("GEMM_PV_ISSUE of KV tile {} before the QK GEMM of that tile completed (no GEMM_QK_ISSUE "
                       "and WAIT_WG for it)",
                       ev().payload));
    if (softmaxed_.front().n != ev().payload)
      fail(fmt::format("GEMM_PV_ISSUE of KV tile {}, but the next tile whose softmax is done is KV tile {}",
                       ev().payload, softmaxed_.front().n));
    check_load(loads_.v, vref_, "GEMM_PV_ISSUE", "TMA_V_ISSUE");
    check_waited(waited_v_, !overlap_ || tail || !k_.first_wg_waits_only || c_ == 0, "GEMM_PV_ISSUE",
                 "WAIT_V_START");
    auto& o = res_.code;
    if (!overlap_ && pp_) e_.bar_sync(o, own_bar(), 1);
    e_.gemm_pv(o, c_, ev().stage);
    if (overlap_ && !tail && pp_) e_.bar_arrive(o, next_bar());
    softmaxed_.pop_front();
    inflight_.push_back({false, ev().stage, ev().payload});
    ++npv_;
  }

  void on_wait_wg(std::uint32_t n) {
    begin_mainloop();
    if (inflight_.size() <= n)
      fail(fmt::format("WAIT_WG_{} with {} GEMM(s) in flight: nothing to wait for", n, inflight_.size()));
    if (inflight_.size() - n > 1)
      fail(fmt::format("WAIT_WG_{} completes the QK and the PV GEMM at once; FA3 waits for the QK GEMM first "
                       "(WAIT_WG_1)",
                       n));
    const Gemm g = inflight_.front();
    inflight_.pop_front();
    auto& o = res_.code;
    e_.mma_wait(o, n);
    const workload::BubbleCosts& bc = k_.bubbles;
    if (g.qk) {
      e_.release_k(o, g.stage);
      softmaxed_.push_back(g);
      const bool masked = workload::block_masked(k_, r_, g.n);
      Pending p;
      p.bracket = Bracket::Softmax;
      if (k_.paper_bubbles) {
        if (k_.paper_pingpong) paper_before_softmax(p.pre);
        p.cycles = (masked && k_.shape.causal ? bc.mask : 0) + bc.paper_total();
      } else if (!overlap_) {
        p.cycles = (masked ? bc.mask : 0) + bc.softmax() + bc.convert_p + p_extra_ +
                   (g.n != r_.n_max - 1 ? bc.rescale_o : 0);
      } else if (g.n == r_.n_max - 1) {  // prologue: mask + softmax + convert P (+ zero O)
        p.cycles = bc.mask + bc.softmax() + bc.convert_p + p_extra_ + (cur_ ? bc.zero_o : 0);
      } else {
        p.cycles = (masked ? bc.mask : 0) + bc.softmax();
      }
      pend_ = std::move(p);
    } else {
      e_.release_v(o, g.stage);
      if (overlap_ && !k_.paper_bubbles) {
        if (iter_qk_)  // steady state: convert P (+ rescale O)
          e_.bubble(o, bc.convert_p + p_extra_ + (cur_ && k_.head_dim <= 128 ? bc.rescale_o : 0));
        else if (!k_.o_from_registers)  // tail: O *= 1/row_sum (simfa-attn: in the epilogue)
          e_.bubble(o, bc.rescale_o);
      }
    }
    if (n == 0) iter_qk_ = false;
  }

  void on_epilogue(std::uint16_t event) {
    need_tile();
    if (!tile_started_work_)
      fail("epilogue event in a tile without mainloop events (no GEMM_QK_ISSUE / GEMM_PV_ISSUE)");
    if (ev().payload != t_.m_block)
      fail(fmt::format("names m-block {}, but tile {} is m-block {}", ev().payload, t_.index, t_.m_block));
    close_mainloop();
    dynamic_barriers();
    epilogue_head();
    if (event == SIMFA_EV_TMA_O_STORE) {
      if (k_.o_from_registers)
        fail("TMA_O_STORE: the simfa-attn kernel stores O from registers with ordinary stores, not by TMA "
             "(an FA3 log? translate with --kernel fa3)");
      if (!stores_)
        fail(fmt::format("TMA_O_STORE in consumer {}: in this kernel consumer {} stores O", c_, nc_ - 1));
      if (store_done_) fail("a second TMA_O_STORE in one tile");
      store();
    } else if (event == SIMFA_EV_EPILOGUE_END) {
      store();
    }
  }

  void close_mainloop() {
    if (closed_) return;
    closed_ = true;
    if (!inflight_.empty())
      fail(fmt::format("the tile ends with the {} GEMM of KV tile {} in flight (no WAIT_WG_0 after it)",
                       inflight_.front().qk ? "QK" : "PV", inflight_.front().n));
    if (!softmaxed_.empty())
      fail(fmt::format("the tile ends before the PV GEMM of KV tile {}", softmaxed_.front().n));
    if (waited_k_ || waited_v_) fail("the tile ends with a WAIT_K/V_START that no GEMM followed");
    if (nqk_ != r_.count())
      fail(fmt::format("the tile ends after {} QK GEMMs; m-block {} visits {} KV tiles", nqk_, t_.m_block,
                       r_.count()));
    auto& o = res_.code;
    if (!overlap_) {
      if (pp_) e_.bar_arrive(o, next_bar());
      e_.release_q(o);
      if (!k_.paper_bubbles && !k_.o_from_registers) e_.bubble(o, k_.bubbles.rescale_o);
    } else if (!tail_) {
      fail("the tile ends without its tail PV GEMM");
    }
  }

  void dynamic_barriers() {
    if (dyn_done_) return;
    dyn_done_ = true;
    if (!dynamic_) return;
    e_.bar_sync(res_.code, ids::kBarSchedFull, static_cast<std::uint32_t>(nc_));
    e_.bar_arrive(res_.code, ids::kBarSchedEmpty);
  }

  // Epilogue up to the O store: convert O, sync the consumers, STSM, epilogue barrier. simfa-attn:
  // one bubble (normalise, convert, store issue), which EPILOGUE_START/END bracket.
  void epilogue_head() {
    if (head_done_) return;
    head_done_ = true;
    if (k_.paper_recipe) return;
    if (k_.o_from_registers) {
      Pending p;
      p.cycles = k_.register_epilogue_bubble();
      p.bracket = Bracket::Epilogue;
      if (idx_ < s_.events.size() && ev().event == SIMFA_EV_EPILOGUE_START) p.start = ev().timestamp;
      pend_ = std::move(p);
      return;
    }
    auto& o = res_.code;
    const auto others = static_cast<std::uint32_t>(nc_ - 1);
    e_.bubble(o, k_.bubbles.convert_o);
    if (others) e_.bar_sync(o, ids::kBarEpilogue, others);
    e_.bubble(o, k_.bubbles.stsm_o);
    if (!last_) e_.bar_arrive(o, ids::kBarEpilogue);
    else if (others) e_.bar_sync(o, ids::kBarEpilogue, others);
  }

  void store() {
    if (store_done_ || !stores_) return;
    store_done_ = true;
    auto& o = res_.code;
    if (k_.o_from_registers) {
      flush();  // the epilogue bubble
      e_.store_o_from_registers(o, t_, c_);
      return;
    }
    if (k_.paper_recipe) {
      e_.store_o(o, t_, 64 * c_);
      return;
    }
    e_.store_o(o, t_, 0);
    if (cur_) {
      o.push_back(Instr::tma_wait(ids::kGroupStore, 0, /*read_only=*/true));
      e_.bar_arrive(o, ids::kBarO);
    }
  }

  void end_tile() {
    if (!in_tile_) return;
    if (tile_started_work_) {
      close_mainloop();
      dynamic_barriers();
      epilogue_head();
      store();
      ++work_;
    } else {
      if (r_.count() > 0)
        fail(fmt::format("tile {} (m-block {}) has no mainloop events; the m-block visits {} KV tiles", t_.index,
                         t_.m_block, r_.count()));
      dynamic_barriers();
    }
    in_tile_ = false;
  }

  // Paper §5.2 ping-pong: consumer 0 arrives on barrier A before each QK and waits on B before each
  // softmax; consumer 1 the opposite.
  void paper_before_qk() {
    if (c_ == 0) e_.bar_arrive(res_.code, k_.pingpong_bar);
    else e_.bar_sync(res_.code, k_.pingpong_bar, 1);
  }
  void paper_before_softmax(std::vector<Instr>& o) const {
    if (c_ == 0) e_.bar_sync(o, static_cast<std::uint16_t>(k_.pingpong_bar + 1), 1);
    else e_.bar_arrive(o, static_cast<std::uint16_t>(k_.pingpong_bar + 1));
  }

  const ProducerLoads& loads_;
  int c_, nc_;
  bool cur_ = true, overlap_ = true, pp_ = false, dynamic_ = false, last_ = false, stores_ = false;
  std::uint32_t p_extra_ = 0;
  std::size_t kref_ = 0, vref_ = 0;
  // Tile state.
  bool closed_ = false, dyn_done_ = false, head_done_ = false, store_done_ = false;
  bool tail_ = false, iter_qk_ = false;
  std::int64_t nqk_ = 0, npv_ = 0;
  std::deque<Gemm> inflight_;   // committed, not yet waited for (oldest first)
  std::deque<Gemm> softmaxed_;  // QK done, PV not yet issued
  std::optional<Load> waited_k_, waited_v_;
  std::optional<Pending> pend_;
};

}  // namespace

WgResult translate_producer(const TranslateCtx& x, std::uint32_t cta, const instr::WgStream& s,
                            ProducerLoads& loads) {
  return ProducerTr(x, cta, s, loads).run();
}

WgResult translate_consumer(const TranslateCtx& x, std::uint32_t cta, int c, const instr::WgStream& s,
                            const ProducerLoads& loads) {
  return ConsumerTr(x, cta, c, s, loads).run();
}

}  // namespace simfa::translate
