// Sampled simulation of the FA3 kernel (docs/sampling.md).
//
// FA3's mainloop repeats one step, a KV block, thousands of times per CTA. The sampler watches the
// whole GPU in detail in windows of a few blocks per CTA, fits how long a block and a tile start
// take and what each adds to every statistic, and then fast-forwards every CTA over the same span
// of simulated time: each WarpGroup of the CTA skips the same KV blocks (and whole tiles) and
// sleeps for their predicted duration, so stage indices, barrier phases, cluster partners and the
// dynamic scheduler's hand-shakes stay consistent, and the memory system keeps the state the
// detailed windows left in it. After each span the GPU runs in detail again for check windows
// whose measured time, against the fitted prediction, gives the run's error estimate and refines
// the fit. The last blocks of every CTA (the kernel's tail and its imbalance) always run in detail.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/engine.h"
#include "sim/types.h"
#include "trace/source.h"

namespace simfa {
class Config;
class Engine;
class Stats;
}  // namespace simfa

namespace simfa::workload {

struct Fa3Plan;
struct Tile;

// The sample.* keys (their registry defaults; from_config sets every field).
struct SampleParams {
  bool on = false;
  int window_blocks = 8;    // a window ends when the running CTAs completed this many blocks each
  int warmup_windows = 2;   // windows dropped at the start and after every fast-forward span
  int min_windows = 4;      // steady-state windows before the first span
  int checks = 2;           // detail check points between spans
  int check_windows = 2;    // windows per check
  int tail_blocks = 128;    // blocks at the end of every CTA that always run in detail
  int min_skip_blocks = 16; // a span shorter than this (per CTA) is not worth taking
  double tolerance = 0.01;
  bool drift = true;          // spans follow each cluster's measured pace, within the tile-start burst
  bool first_reads = true;    // spans predict each cluster's blocks by who reads a K/V block first
  bool replay_after_drain = true;   // the span replay waits for the pre-sleep traffic to reach the L2
  double drift_warning = 0.05;  // rise of L2 sectors per block over the detail periods that is reported
  double lock_window = 0;       // mem.lrc.window when the coalescer is on: offsets below it re-lock
  int sms = 0;                  // gpu.num_sms: CTA i runs on SM i when the grid fits (SM pairs share a coalescer)
  double line_bytes = 128;    // mem.line_bytes
  double replay_lines = 2e7;  // span replay: counted lines above which fewer sets count
  std::uint32_t replay_set_stride = 8;  // span replay: the fewest set classes per counted one
  double l2_bytes = 0;      // mem.l2.size: how much of the skipped work functional warming replays
  static SampleParams from_config(const Config& cfg);
};

// The windows [lo, hi) of a detail period's windows [from, to) that its per-block counter rates come
// from (docs/sampling.md step 7). A tile boundary's traffic (the next Q, the finished O) reaches the
// L2 for a few thousand cycles after the boundary's marks, so part of it lands in the window after
// the one holding them. Inside a period that evens out; at its edges it does not. Left out: the
// leading windows that follow a window with tile starts (`tiles_before[w] > 0`, whether that window
// was kept or dropped) and the trailing windows with tile starts (`tiles[w] > 0`); all of
// [from, to) when that leaves none.
std::pair<std::size_t, std::size_t> rate_windows(const std::vector<double>& tiles,
                                                 const std::vector<double>& tiles_before, std::size_t from,
                                                 std::size_t to);

// A fast-forward: sleep `sleep` cycles, then continue at position `pos` of the CTA's tile `tile`.
struct Cut {
  bool cut = false;
  std::uint64_t sleep = 0;
  std::int64_t tile = 0, pos = 0;
};

class Fa3Sampler final : public EventTarget {
 public:
  Fa3Sampler(const Fa3Plan& plan, SampleParams p);

  // `replay` (may be null) runs the memory traffic of each span's skipped work.
  void attach(const Engine& engine, Stats& stats, trace::CopyReplay* replay = nullptr);
  // Every WarpGroup of CTA `cta` asks before it runs position `pos` (0 = before the prologue) of its
  // tile `tile`; all WarpGroups of a cluster get the same answer whenever they ask.
  Cut at(std::uint32_t cta, std::int64_t tile, std::int64_t pos);
  // Consumer 0 of CTA `cta` starts a KV block, position `pos` of its tile `tile` (`tile_start`: the
  // first block it computes of that tile).
  void mark(std::uint32_t cta, bool tile_start, std::int64_t tile, std::int64_t pos);
  // The block log (simfa run --block-log, docs/sampling.md): a CSV line per mark, the blocks
  // simulated in detail, to `os` (nullptr: none). Works with sampling off too (a sampler that only
  // logs: the same results, docs/sampling.md).
  void log_blocks(std::ostream* os);
  // The kernel ended at `end`: adds the extrapolated counts of the skipped work to `stats`.
  void finish(Cycle end, Stats& stats);
  // At a sleeping cluster's wake-up (CopyReplay::call_at): the held blocks predicted before it.
  void on_event(std::uint32_t tag, const Payload& p, Cycle now) override;
  trace::SamplingReport report() const;
  // Functional warming replays the O stores and Q loads of this many skipped tiles per CTA: enough
  // for the whole GPU's to fill the L2 once. 0 with span replay, which warms the L2 itself.
  std::uint64_t warm_tiles() const { return replay_ ? 0 : warm_tiles_; }

 private:
  struct Window {
    double cta_cycles = 0, blocks = 0, tiles = 0;
    double tiles_before = 0;  // tile starts in the window closed just before it, kept or dropped
    double kinds[2] = {0, 0};  // its measured blocks by ReadKind (sample.first_reads)
    // Block marks measured in the window (track_block): interior blocks (count, cycles) and tile
    // boundaries (count, cycles, blocks they cover).
    double int_n = 0, int_cycles = 0, bnd_n = 0, bnd_cycles = 0, bnd_blocks = 0;
    std::vector<double> delta;  // counter deltas
  };
  struct Fit {
    double a = 0, b = 0;  // per block, per tile start
  };
  struct Cluster {
    std::pair<std::int64_t, std::int64_t> frontier{-1, 0};  // latest (tile, pos) decided
    std::map<std::pair<std::int64_t, std::int64_t>, Cut> cuts;
    int span = -1;  // last span this cluster was cut in
  };

  Cycle now() const;
  void account(Cycle now);  // integrates running CTAs over time
  void open_window(Cycle now);
  void close_window(Cycle now);
  void refit();
  bool costs_from_marks();  // time_ from the block marks' costs; false: they timed too little
  // Fit over windows [from, to).
  Fit fit(const std::vector<double>& y, std::size_t from = 0, std::size_t to = static_cast<std::size_t>(-1)) const;
  void maybe_start_span(Cycle now);
  bool steady();
  double predicted_left(std::uint32_t leader) const;  // predicted cycles to the tail guard
  Cut make_cut(std::uint32_t leader, std::int64_t tile, std::int64_t pos, Cycle now);
  // Span replay: every cut cluster's skipped copies, block by block across the clusters.
  void replay_span();
  // The K and V copies of one block, prepared for the replay (kv_copies): [begin, end) of kv_*.
  struct KvCopies {
    static constexpr std::uint32_t kUnset = ~std::uint32_t{0};
    std::uint32_t begin = 0, end = kUnset;
  };
  struct HeadKey {  // the copies of every KV block of one head, batch and cluster rank
    std::int64_t batch, head;
    std::uint32_t rank;
    bool operator==(const HeadKey&) const = default;
  };
  struct HeadKeyHash {
    std::size_t operator()(const HeadKey& k) const {
      std::uint64_t h = static_cast<std::uint64_t>(k.batch) * 0x9E3779B97F4A7C15ULL;
      h = (h ^ static_cast<std::uint64_t>(k.head)) * 0xBF58476D1CE4E5B9ULL;
      return static_cast<std::size_t>(h ^ (h >> 31) ^ k.rank);
    }
  };
  const KvCopies& kv_copies(std::uint32_t cta, std::int64_t ti, const Tile& t, std::int64_t n, std::uint32_t rank);
  struct SpanCut;
  std::int64_t block_index(std::uint32_t leader, std::int64_t tile, std::int64_t pos) const;
  std::pair<std::int64_t, std::int64_t> block_at(std::uint32_t leader, std::int64_t g) const;
  bool block_copies(const SpanCut& c, std::int64_t ti, std::int64_t tp, std::uint32_t cta,
                    std::vector<trace::Instr>& q, const KvCopies*& kv, std::vector<trace::Instr>& o);
  // Before the first replay: the set stride that keeps the run's counted lines within budget.
  void choose_set_stride();
  // The DRAM, L2-miss, eviction, write-back and shadow-copy counters of the skipped work from the
  // replay instead of the fit.
  void apply_replay(std::vector<double>& extra) const;

  const Fa3Plan& plan_;
  SampleParams p_;
  const Engine* engine_ = nullptr;
  Stats* stats_ = nullptr;
  trace::CopyReplay* replay_ = nullptr;
  // The cuts of the current span, for its replay: cluster leader, from (tile, pos), to (tile, pos).
  struct SpanCut {
    std::uint32_t leader = 0;
    std::int64_t tile = 0, pos = 0, end_tile = 0, end_pos = 0;
    Cycle from = 0, wake = 0;  // when it was cut, and when its sleep ends
  };
  std::vector<SpanCut> span_cuts_;
  // Skipped blocks the replay holds back until the detailed run reaches their predicted time
  // (replay_span): while some cluster is awake in a span, the blocks the sleeping ones skip after
  // that point go through the L2 interleaved in time with its detailed traffic, not before it.
  struct HeldBlock {
    double at;           // predicted start of the block
    std::uint32_t cut;   // index into held_cuts_
    std::int64_t ti, tp;
  };
  std::vector<SpanCut> held_cuts_;
  Cycle first_wake() const;  // the earliest wake-up of the current span's cuts (kNever: none)
  // on_event's tags: a sleeping cluster's wake-up (held blocks), the span replay's drain poll.
  static constexpr std::uint32_t kWakeTag = 0, kDrainTag = 1;
  static constexpr Cycle kDrainPoll = 64;  // cycles between drain polls (method parameter: no effect)
  std::vector<HeldBlock> held_;  // ordered by `at`
  std::size_t held_next_ = 0;
  std::vector<trace::Instr> block_q_, block_o_;  // replay_block's copies (kept for their capacity)
  void replay_block(const SpanCut& c, std::int64_t ti, std::int64_t tp);
  void replay_held(Cycle upto);
  std::uint32_t span_asked_ = 0, span_active_ = 0;  // clusters that asked / had work at span start
  bool replayed_ = false;                           // some span was replayed
  std::uint32_t set_stride_ = 1;                    // span replay: every k-th set class counts
  // Prepared K/V copies (kv_copies), kept across spans; about 64 MiB of host memory at most.
  static constexpr std::size_t kMaxPreparedLines = std::size_t{1} << 22;
  std::unordered_map<HeadKey, std::vector<KvCopies>, HeadKeyHash> kv_;  // by KV block
  struct KvCursor {  // per CTA: its latest tile's entry of kv_
    std::int64_t ti = -1;
    std::uint64_t gen = 0;
    std::vector<KvCopies>* v = nullptr;
  };
  std::vector<KvCursor> kv_cursor_;
  std::uint64_t kv_gen_ = 1;  // kv_ was cleared this many times, plus one
  std::vector<trace::Instr> kv_instrs_;
  std::vector<std::uint32_t> kv_ids_;
  std::uint32_t ctas_ = 0, cluster_ = 1;
  std::uint64_t warm_tiles_ = 1;
  // Per CTA: blocks of each of its tiles and the suffix sums (blocks from tile i on).
  std::vector<std::vector<std::int32_t>> n_;
  std::vector<std::vector<std::int64_t>> suffix_;
  std::vector<std::int64_t> left_;  // blocks not yet started or skipped, per CTA
  std::uint32_t running_ = 0;
  std::vector<Cluster> clusters_;

  // Windows.
  bool open_ = false;
  Cycle win_start_ = 0, last_t_ = 0;
  double win_cta_cycles_ = 0, win_blocks_ = 0, win_tiles_ = 0;
  double last_win_tiles_ = 0;  // tile starts of the window closed last
  std::vector<std::uint64_t> win_counters_;
  int discard_ = 0;
  std::vector<Window> windows_;  // valid steady-state windows
  std::size_t recent_from_ = 0;  // first window of the latest detail period
  Fit time_;
  std::vector<Fit> counters_;

  // Spans.
  enum class Phase { Detail, Span, Check, Done } phase_ = Phase::Detail;
  bool first_ = true;     // the first regular span is still to come
  bool limited_ = false;  // the current span stays inside every cluster's current tile
  bool limited_done_ = false;  // a limited span was taken
  // Method choices of the sampler, not model constants (docs/sampling.md step 3). Blocks a limited
  // span leaves before the earliest tile end: the window dropped after every wake (the pipelines
  // refill) and one more, so that every CTA is running in detail when its tile ends.
  std::int64_t limit_guard() const { return 2 * static_cast<std::int64_t>(p_.window_blocks); }
  // A limited span is taken when it skips at least this many blocks per CTA: it adds a span's fixed
  // costs (a replay, a refill, another wait for the tile starts) to a run that would take the first
  // tile in detail anyway, so it must skip a few times the least a regular span skips
  // (sample.min_skip_blocks). Checked on the 16-CTA test grids and at 64K tokens.
  std::int64_t limit_min() const { return 4 * static_cast<std::int64_t>(p_.min_skip_blocks); }
  int span_id_ = -1;
  Cycle span_start_ = 0, span_end_ = 0;
  Cycle awake_from_ = 0;  // every CTA cut so far is awake again
  int checks_left_ = 0;
  int check_seen_ = 0;
  double check_meas_ = 0, check_pred_ = 0;
  std::vector<double> check_errors_;
  // Per span: the skipped blocks and tile starts (over all CTAs) and the windows of the detail
  // period before it, [from, to); the period after a span is the one before the next.
  struct SpanWork {
    double blocks = 0, tiles = 0;
    std::size_t from = 0, to = 0;
  };
  std::vector<SpanWork> span_work_;
  // L2 sectors a KV block requests (net of tile starts), over each detail period before a span
  // (finish): their rise tells the CTAs drift apart (docs/sampling.md "Limits").
  std::vector<double> l2_per_block_;
  // Drift (sample.drift, docs/sampling.md step 4). Each CTA's block marks in the current detail
  // period; each cluster's wake-up shift so far (cycles, within the span's bound of the uniform
  // span); the bound of the current span and of every span.
  struct Pace {
    Cycle first = 0, last = 0;
    double blocks = 0, tiles = 0;  // marks after the first, and the tile starts among them
    // This CTA's lags behind its SM-pair partner (make_cut): their sum, count, and the sum of the
    // times they were taken at; and the K/V blocks it marked last (kv_key, and when), where the
    // partner looks up its own marks of the same blocks.
    double lag = 0, lags = 0, lag_times = 0;
    struct KvMark {
      std::int64_t key = -1;
      Cycle t = 0;
    };
    // Method choice: 8 blocks hold every lag measured on the accuracy and holdout sets (at most
    // about 4 blocks: h800 D128 12K causal original, whose pairs read a K/V block 4 blocks apart).
    std::array<KvMark, 8> kv{};
    std::uint32_t kv_next = 0;
    bool seen = false;
    double measured() const { return static_cast<double>(last - first); }
    double predicted(const Fit& f) const { return f.a * blocks + f.b * tiles; }
  };
  std::vector<Pace> pace_;
  std::vector<double> shift_;       // each cluster's (its SM pair's) shift within the burst bound
  std::vector<double> pair_shift_;  // and its part of the offset within its SM pair (make_cut)
  double pace_ref_ = 0;  // measured over predicted time, over every CTA of the period
  double drift_bound_ = 0;
  std::vector<double> drift_bounds_;
  std::vector<double> pair_offsets_;  // per span: mean |offset| set within SM pairs (make_cut)
  double pair_sum_ = 0, pair_n_ = 0;  // of the current span
  double dram_peak_ = 0;                  // bytes per core cycle
  std::vector<std::size_t> dram_reads_;   // counter indices of the channels' read bytes
  void reset_pace();
  // The cluster's measured time over the fit's prediction in the latest period, relative to
  // pace_ref_; 0 when the period saw too little of it.
  double cluster_pace(std::uint32_t leader) const;
  // The CTA sharing cta's SM pair (its request coalescer) when clusters are single CTAs and the
  // grid runs one CTA per SM, else -1 (a cluster of two or more already spans the pair).
  std::int64_t pair_partner(std::uint32_t cta) const;
  // At a span start: pace_ref_ and drift_bound_.
  void plan_drift();
  double skipped_blocks() const;  // over all spans and CTAs
  // Blocks of the whole kernel, and CTA-cycles slept, over all CTAs.
  double total_blocks_ = 0, skipped_cycles_ = 0;
  // First reads (sample.first_reads, docs/sampling.md step 4). When each K/V block (batch, KV head,
  // KV block) was first read: in detail (the block marks of each cluster's first CTA) or as a span's
  // prediction; kNever: not yet.
  std::vector<Cycle> first_read_;
  std::int64_t kv_heads_ = 0, kv_blocks_ = 0;
  // The K/V block that position `pos` of tile `tile` of CTA `cta` computes: an index of first_read_
  // (-1: none).
  std::int64_t kv_key(std::uint32_t cta, std::int64_t tile, std::int64_t pos) const;
  // When each was last read (its lines stay in the L2 for residency_ cycles after it).
  std::vector<Cycle> last_read_;
  // Whether a block starting at `t` reads its K/V first (kFirst: no one read it within the L2's
  // residency, or the first read is less than in_flight_ cycles earlier, so its lines are still on
  // their way from DRAM) or from the L2 (kHit); records the read.
  enum ReadKind : int { kFirst = 0, kHit = 1 };
  ReadKind read_kind(std::int64_t key, Cycle t);
  double dram_read_latency() const;  // the DRAM's mean read latency so far (0: none)
  double in_flight_ = 0;
  // The L2's residency (cycles; 0: unknown, no line leaves), from the lines it evicted in detail.
  double residency_ = 0, evicted_lines_ = 0, evict_cycles_ = 0;
  std::vector<std::size_t> l2_evictions_;  // counter indices of the slices' evictions
  // The resume overhead (docs/sampling.md step 4): after a wake-up the detail pays a little more
  // than the real kernel at that point (the pipelines refill); measured per cut cluster from its
  // first CTA's consumer-0 marks around the cut and taken off later spans' sleeps.
  struct Resume {
    bool pending = false, have_before = false;
    std::int64_t tile = 0, pos = 0;  // the resumed position
    Cycle sleep = 0, before = 0;     // the sleep; the mark of the block before the cut
  };
  std::vector<Resume> resume_;  // per cluster
  // Per CTA: its consumer 0's latest block mark, for the block costs measured from the marks
  // (track_block), the resume overhead (measure_resume) and the first reads' block times (mark),
  // which read it before track_block records the next.
  struct Track {
    Cycle t = 0;
    std::int64_t tile = -1, pos = -1;
    bool detail = false;
    // First reads, on a cluster's first CTA: the latest block's kind (-1: none), and whether its
    // time counts (neither one of its tile's first two blocks nor the one resumed after a wake-up).
    int kind = -1;
    bool counts = false;
    int bnd = -1;          // the tile-boundary sample in progress: the new tile's position ending it
    Cycle bnd_from = 0;    // its start (the mark of the previous tile's last block)
    double bnd_blocks = 0;
  };
  std::vector<Track> track_;
  double win_int_n_ = 0, win_int_cycles_ = 0, win_bnd_n_ = 0, win_bnd_cycles_ = 0, win_bnd_blocks_ = 0;
  void track_block(std::uint32_t cta, std::int64_t tile, std::int64_t pos, Cycle t, bool detail);
  double resume_sum_ = 0, resume_n_ = 0;
  double span_resume_ = 0;  // the mean over every measurement so far, at the span's start
  void measure_resume(std::uint32_t cta, std::int64_t tile, std::int64_t pos, Cycle t);
  std::vector<trace::SpanCost> span_costs_;
  // Measured block time by kind (cycles from one mark to the next) over every detail period.
  double kind_cycles_[2] = {}, kind_squares_[2] = {}, kind_blocks_[2] = {};
  double win_kinds_[2] = {};  // measured blocks of each kind in the open window
  // A span's prediction for each cluster, made when the first cluster asks (plan_first_reads): from
  // (tile, pos) on, `skipped` blocks with `starts` tile starts in `cycles`, to (ti, tp) (the walk's
  // position while it plans).
  struct FirstReadPlan {
    bool valid = false;
    std::int64_t tile = 0, pos = 0, skipped = 0, starts = 0, ti = 0, tp = 0;
    double cycles = 0;
  };
  std::vector<FirstReadPlan> fr_plan_;
  int fr_plan_span_ = -1;
  void plan_first_reads(std::uint32_t asker, std::int64_t tile, std::int64_t pos, Cycle now);
  // Per span: the measured block times by kind and the planned share of first reads (0: no plan).
  std::vector<trace::FirstReadSpan> fr_spans_;
  // Blocks a cut from (tile, pos) may skip: all but the tail (and inside the tile, when limited).
  std::int64_t max_skip(std::uint32_t leader, std::int64_t tile, std::int64_t pos) const;
  std::string why_detail_ = "the kernel ended before the sampler saw a steady state";
  // Host wall time of the run's phases from attach() to finish(), reported as
  // SamplingReport::wall_*_s (which says what each phase covers); a phase ends at the phase_ change
  // that begins the next (a span at the first block mark after its end).
  enum WallPhase { kWallSearch, kWallSpans, kWallChecks, kWallTail, kWallPhases };
  double wall_[kWallPhases] = {};
  WallPhase wall_at_ = kWallSearch;
  std::chrono::steady_clock::time_point wall_mark_{};
  void wall_to(WallPhase next);  // ends the current phase now; `next` begins
  Cycle end_ = 0;
  std::ostream* log_ = nullptr;
};

}  // namespace simfa::workload
