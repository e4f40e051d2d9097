// Where the simulator gets its instructions from. A TraceSource describes a kernel and opens one
// CTA at a time, when the dispatcher places it on an SM; each WarpGroup's instructions arrive
// through an InstrStream that may be backed by a file, a vector, or a generator that synthesizes
// them on the fly (so a huge trace never has to exist in memory or on disk).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/isa.h"

namespace simfa {
class Engine;
class EventTarget;
class Stats;
}  // namespace simfa

namespace simfa::trace {

// A fast-forward span's first-read prediction (sample.first_reads, docs/sampling.md step 4): the
// measured cycles of a KV block whose K/V is read first and of one read from the L2 (over every
// detail period before the span), and the share of the span's predicted blocks that read first.
// All 0 where too few blocks of either kind were measured; the share 0 also where the two times are
// within sample.tolerance of each other or not significantly apart (every block then costs alike).
struct FirstReadSpan {
  double first_read_cycles = 0, hit_cycles = 0, planned_first_share = 0;
};

// What a fast-forward span charged (docs/sampling.md step 2 and 4), cycles per CTA: a KV block of a
// tile's interior, a tile boundary (beyond its blocks at the interior cost) and the resume overhead
// measured after earlier wake-ups, taken off every cluster's sleep.
struct SpanCost {
  double block_cycles = 0, tile_start_cycles = 0, resume_cycles = 0;
};

// What a sampled simulation did (docs/sampling.md), for the run's report.
struct SamplingReport {
  bool requested = false;       // the configuration asked for sampling (sample.mode)
  bool sampled = false;         // some work was fast-forwarded instead of simulated
  std::string note;             // one line: what was sampled, or why the run stayed in full detail
  double detail_fraction = 1;   // fraction of the kernel's KV blocks simulated in detail
  double error_estimate = 0;    // estimated relative latency error, from the check windows
  int spans = 0;                // fast-forward spans
  std::vector<double> check_errors;  // per check window: (measured - predicted) / predicted time
  // Span replay (CopyReplay): line accesses run through the replay slices, and the skipped work's
  // DRAM bytes read and written they measured, scaled to the whole L2 (0 without replay).
  double replay_lines = 0, replay_read_bytes = 0, replay_write_bytes = 0;
  std::uint32_t replay_set_stride = 1;  // the replay slices counted every this-many-th set
  // L2 sectors a KV block requested in each detail period before a span, in run order, and, when
  // they rose by more than sample.drift_warning, why the sampled L2 traffic may be off (mostly low).
  std::vector<double> l2_sectors_per_block;
  std::string warning;
  // Per span: how far (cycles) its cuts let a cluster's wake-up drift from the others' (sample.drift:
  // the DRAM burst of the tile starts), 0 where it did not.
  std::vector<double> drift_bounds;
  // Per span: the mean offset (cycles) its cuts set between the two CTAs of an SM pair, each pair's
  // offset grown as measured (sample.drift with single-CTA clusters, one CTA per SM); 0 elsewhere.
  std::vector<double> pair_offsets;
  std::vector<FirstReadSpan> first_reads;  // per span (empty with sample.first_reads=false)
  std::vector<SpanCost> span_costs;        // per span
  // Host wall time (seconds) of the sampled run's phases: the detail that searched for the steady
  // state (before the first regular span, and after a limited one), the fast-forward spans (their
  // cuts, replay and sleep, and the detail of clusters that woke early), the check periods and the
  // detailed tail. They cover the run from the sampler's start to the kernel's end: setup and the
  // report are outside them (sim_wall_s covers the whole run).
  double wall_search_s = 0, wall_spans_s = 0, wall_checks_s = 0, wall_tail_s = 0;
};

// Sampled simulation's span replay (docs/sampling.md): a source that fast-forwards hands the TMA
// copies of the skipped work, in the order the kernel would have issued them, to the GPU, which
// runs their lines through the memory system's replay slices (mem::MemorySystem::replay).
class CopyReplay {
 public:
  virtual ~CopyReplay() = default;
  // A TMA_TENSOR, TMA_BULK or TMA_STORE instruction of the skipped work; other instructions are
  // ignored. `cta`: the CTA that issues it (its SM decides the route across L2 partitions).
  // `warm` false: its lines run through the replay slices and are counted; true: the other
  // slices take them as functional warming.
  virtual void replay(const Instr& copy, std::uint32_t cta, bool warm) = 0;
  // The memory system's peak DRAM bandwidth, bytes per core cycle (0: no DRAM model).
  virtual double dram_peak_bytes_per_cycle() const { return 0; }
  // A copy that recurs (the span replay's K/V copies come once per CTA of their head and per
  // tile): prepare() expands it once and keeps the lines the replay slices count; replay_prepared()
  // then does what replay(copy, cta, false) would, without expanding or looking it up again. Ids
  // stay valid until forget(); prepared_lines() is what they hold (the caller bounds it).
  virtual std::uint32_t prepare(const Instr& copy) = 0;
  virtual void replay_prepared(std::uint32_t id, std::uint32_t cta) = 0;
  virtual std::size_t prepared_lines() const = 0;
  virtual void forget() = 0;
  // Every CTA sleeps through the span until cycle `t`: no memory request comes before it.
  virtual void quiet_until(Cycle t) = 0;
  // Bytes a copy moves (to find where a span's last L2-capacity of copies begins).
  virtual std::uint64_t bytes(const Instr& copy) const = 0;
  // What the replay slices saw (all zero when the memory model has no cache state): lines
  // replayed, the skipped work's DRAM bytes read and written scaled to the whole L2, and the whole
  // run's DRAM bytes and L2 read misses estimated from the replay slices alone.
  struct Counts {
    double lines = 0, scale = 0, read_bytes = 0, write_bytes = 0;
    double run_read_bytes = 0, run_write_bytes = 0, run_read_misses = 0, run_evictions = 0;
    double run_probes = 0, run_shadow_hits = 0, run_shadow_inserts = 0;
  };
  virtual Counts counts() const = 0;
  // Set sampling inside the replay slices (MemorySystem::set_replay_set_stride), chosen before the
  // first replay: only every k-th set counts. replay_sets(): the sets the replay slices hold.
  virtual void set_set_stride(std::uint32_t k) = 0;
  virtual double replay_sets() const = 0;
  // Bytes of an L2 line (to turn a copy's bytes into lines).
  virtual std::uint32_t line_bytes() const = 0;
  // Calls target->on_event(tag, {}, t) at cycle t (> now), before that cycle's ticks: the sampler
  // replays what it held back before a sleeping CTA wakes and issues its first request.
  virtual void call_at(EventTarget* /*target*/, std::uint32_t /*tag*/, Cycle /*t*/) {}
  // Every WarpGroup with work left sleeps and no memory request is in flight (true where unknown).
  virtual bool quiescent(Cycle /*now*/) const { return true; }
};

// One logical thread's instructions, consumed in order, once.
class InstrStream {
 public:
  virtual ~InstrStream() = default;
  // Writes up to `max` next instructions to `out`; returns how many (0 only at the end).
  virtual std::size_t read(Instr* out, std::size_t max) = 0;
  // Where the index-th instruction of this stream came from ("a.sft:120"), for reports.
  virtual std::string where(std::uint64_t index) const;
};

struct WgProgram {
  std::string role;  // "producer", "consumer", ... (informational: reports and timelines)
  std::unique_ptr<InstrStream> stream;
};

struct CtaProgram {
  std::uint32_t id = 0;
  std::vector<WgProgram> wgs;
};

class TraceSource {
 public:
  virtual ~TraceSource() = default;
  virtual const KernelInfo& kernel() const = 0;
  // WarpGroups of CTA `cta`, known before it is opened (admission needs the count).
  virtual std::uint32_t wgs_per_cta(std::uint32_t cta) const = 0;
  // Opens CTA `cta` (0 <= cta < kernel().ctas). Called once per CTA, in dispatch order.
  virtual CtaProgram open(std::uint32_t cta) = 0;
  // True when instructions from this source were already validated (files: by the reader).
  // Otherwise the core validates each instruction as it fetches it.
  virtual bool prevalidated() const { return false; }
  // Sampled simulation (docs/sampling.md): a source that fast-forwards sees the simulated clock
  // and the statistics while the kernel runs, replays the memory traffic of what it skipped
  // through `replay` (null when the run cannot replay), adds its extrapolated counts when it has
  // ended, and says what it did. Sources that simulate everything ignore these.
  virtual void run_started(const Engine&, Stats&, CopyReplay* /*replay*/) {}
  virtual void run_finished(Cycle /*end*/, Stats&) {}
  virtual SamplingReport sampling() const { return {}; }
};

// An instruction stream over a vector, optionally with source locations.
class VectorStream final : public InstrStream {
 public:
  explicit VectorStream(std::vector<Instr> code, std::string origin = "",
                        std::vector<std::uint32_t> lines = {})
      : code_(std::move(code)), origin_(std::move(origin)), lines_(std::move(lines)) {}
  std::size_t read(Instr* out, std::size_t max) override;
  std::string where(std::uint64_t index) const override;

 private:
  std::vector<Instr> code_;
  std::size_t pos_ = 0;
  std::string origin_;
  std::vector<std::uint32_t> lines_;
};

// A whole trace held in memory: what the file reader produces and what tests build by hand.
struct WgData {
  std::uint32_t index = 0;
  std::string role;
  std::vector<Instr> code;
  std::vector<std::uint32_t> lines;  // source line of each instruction (empty when built in code)
  std::string file;
};

struct CtaData {
  std::uint32_t id = 0;
  std::vector<WgData> wgs;
};

class MemoryTrace final : public TraceSource {
 public:
  KernelInfo info;
  std::vector<CtaData> ctas;  // sorted by id, ids 0..n-1 after finalize()
  bool validated = false;
  std::string kernel_where;  // "file:line" of the KERNEL line, named by whole-trace errors (may be empty)

  const KernelInfo& kernel() const override { return info; }
  std::uint32_t wgs_per_cta(std::uint32_t cta) const override;
  CtaProgram open(std::uint32_t cta) override;
  bool prevalidated() const override { return validated; }

  // Sorts CTAs, fills defaults (ctas, threads), checks ids and every instruction; throws
  // UserError with file:line on the first problem. Sets `validated`.
  void finalize();
};

}  // namespace simfa::trace
