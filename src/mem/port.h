// The interface between the SMs and the GPU memory system: cache-line requests with
// back-pressure. The core never includes a concrete memory component; the memory system is chosen
// by configuration (`mem.model`) through make_memory_system().
//
// Contract:
//  - try_send() is called by an SM at cycle `now`; it returns false under back-pressure and then
//    the memory system calls that SM's MemClient::on_retry() at a later cycle when it can accept
//    from that SM again (at least once after every refusal).
//  - Every accepted request gets exactly one response (reads: data returned; writes: the write
//    acknowledged), delivered through MemClient::on_response() at a cycle >= now + 1, with the
//    request record unchanged (so `tag` lets the SM find its operation).
//  - Responses are never refused: the SM reserved room for them before sending.
#pragma once
#include <cstdint>
#include <memory>

#include "sim/types.h"

namespace simfa {
class Config;
class Engine;
class Stats;
class ParamRegistry;
}  // namespace simfa

namespace simfa::mem {

enum class ReqKind : std::uint8_t {
  TmaLoad,   // TMA load into shared memory (bulk or tensor)
  TmaStore,  // TMA store from shared memory
  Load,      // ordinary global load (LDG): goes through the SM's L1
  Store,     // ordinary global store
};

inline bool is_write(ReqKind k) { return k == ReqKind::TmaStore || k == ReqKind::Store; }

struct MemReq {
  Addr line = 0;          // line-aligned byte address
  std::uint32_t tag = 0;  // requester's cookie, returned unchanged
  std::uint16_t sm = 0;   // requesting SM
  std::uint8_t sectors = 0xF;  // 32-byte sectors of the line touched (bit i = bytes [32i, 32i+32))
  ReqKind kind = ReqKind::TmaLoad;
  Cycle issued = 0;       // cycle the request left the SM
};
static_assert(sizeof(MemReq) <= 32);

class MemClient {
 public:
  virtual ~MemClient() = default;
  virtual void on_response(const MemReq& r, Cycle now) = 0;
  virtual void on_retry(Cycle now) = 0;
  // A response that will reach the client at `at` (> now), offered ahead of time so that no
  // engine message is needed for it: a client that can apply it later, before anything reads what
  // it changes (its own next tick or response, or a read of the statistics), keeps it and returns
  // true, and reports it with MemorySystem::deferred_applied() once applied at or after `at`. The
  // client must take only responses whose effect does not depend on when in cycle `at` they are
  // applied (counts, not completions). Otherwise the memory system delivers it at `at`.
  virtual bool defer_response(const MemReq& r, Cycle at, Cycle now) { return false; }
};

class MemorySystem {
 public:
  virtual ~MemorySystem() = default;
  virtual void connect(std::uint16_t sm, MemClient* client) = 0;
  virtual bool try_send(const MemReq& r, Cycle now) = 0;
  // Registers this memory system's statistics (including the Nsight Compute names it supports).
  virtual void register_stats(Stats& s) = 0;
  // Requests accepted and not yet answered (conservation checks and the end of a run).
  virtual std::uint64_t in_flight() const = 0;
  // A response a client took with MemClient::defer_response was applied.
  virtual void deferred_applied() {}
  virtual std::uint32_t line_bytes() const = 0;
  // Peak DRAM data bandwidth in bytes per core cycle (0: the model has no DRAM). Sampled
  // simulation bounds how far apart its spans let the CTAs drift with it (docs/sampling.md step 4).
  virtual double dram_peak_bytes_per_cycle() const { return 0; }
  // Sampled simulation's functional warming (docs/sampling.md): the line is placed in the cache
  // as the skipped work would have left it (sectors valid, dirty when written), without time,
  // traffic or statistics; what it evicts is dropped (its write-back is part of the extrapolated
  // statistics). Memory models without cache state ignore it.
  virtual void warm(Addr /*line*/, std::uint8_t /*sectors*/, bool /*write*/) {}
  // End of a sampled run without span replay: takes the write-backs of warmed dirty lines out of
  // the statistics (the skipped work's extrapolation counts them; they were simulated for their
  // timing only). With span replay it does nothing: the replay slices count the traffic.
  virtual void discount_warm_writebacks() {}

  // Sampled simulation's span replay (docs/sampling.md, "How it works", step 5):
  // after enable_replay(stride), every stride-th slice of each L2 partition (a "replay slice", every
  // slice with stride 1; a slice and its mirrors in the other partitions are replay slices
  // together) counts some of its sets (set_replay_set_stride): they take no functional warming;
  // instead replay() runs every line of the skipped work through them, in order, as the real
  // kernel would have: misses read DRAM, dirty victims are written back. replay_counts() scales
  // what those sets saw to the whole L2. Without cache
  // state (mem.model = fixed) nothing is replayed and the counts stay zero.
  // The run's DRAM traffic (run_*) is estimated from the replay slices alone: what they sent to
  // DRAM in detail plus what the replay counted, scaled (set sampling). The other slices' state
  // after a span is an approximation (warming), good for timing but not for counting.
  struct ReplayCounts {
    double lines = 0;           // line accesses replayed into the replay slices (not scaled)
    double scale = 0;           // all sets of all slices / the replay slices' counted sets
    double read_bytes = 0;      // of the skipped work: DRAM bytes the misses read, scaled
    double write_bytes = 0;     // of the skipped work: DRAM bytes the dirty victims wrote back, scaled
    double run_read_bytes = 0, run_write_bytes = 0, run_read_misses = 0;  // whole run, scaled
    double run_evictions = 0;  // whole run, scaled: valid lines evicted
    double run_probes = 0, run_shadow_hits = 0, run_shadow_inserts = 0;  // whole run, scaled: RemoteCopy
  };
  virtual void enable_replay(std::uint32_t /*stride*/) {}
  // Every SM sleeps through a fast-forward span until core cycle `t` (Dram::quiet_until).
  virtual void quiet_until(Cycle /*t*/) {}
  // `warm` false: the line runs through its home slice if that is a replay slice (counted);
  // true: it warms its home slice if that is not one (warm(); a span's last L2-capacity of
  // distinct copies is replayed so, after the span's copies have all been counted).
  // `sm`: the SM the copy's CTA runs on (-1: unknown), for the read's route across the L2's
  // partitions (a far read probes the near mirror and may leave a shadow copy there).
  virtual void replay(Addr /*line*/, std::uint8_t /*sectors*/, bool /*write*/, bool /*warm*/, int /*sm*/) {}
  virtual ReplayCounts replay_counts() const { return {}; }
  // Whether replay() of `line` without warming can change anything: its home is a replay slice
  // (and its set a sampled one).
  virtual bool replay_counts_line(Addr /*line*/) const { return false; }
  // replay(line, sectors, write, false, sm) of a line replay_counts_line() accepted, whose home
  // slice home_of(line) gave: a prepared copy's lines (CopyReplay::prepare) skip the slice hash
  // and the set test on every use.
  virtual std::uint32_t home_of(Addr /*line*/) const { return 0; }
  virtual void replay_counted(Addr /*line*/, std::uint32_t /*home*/, std::uint8_t /*sectors*/, bool /*write*/,
                              int /*sm*/) {}
  // Set sampling inside the replay slices, before the first replay: from now on a replay slice
  // counts only the lines whose set's class (a hash of the set index, 0..63) plus the slice's rank
  // among the replay slices of its partition is a multiple of `k` (a power of two up to 64: every
  // set index counts in 1/k of the replay slices); the lines of the other sets are warmed as in
  // the other slices, and replay_counts() scales by the sets too.
  virtual void set_replay_set_stride(std::uint32_t /*k*/) {}
  // Sets in the replay slices (0 without span replay).
  virtual double replay_sets() const { return 0; }
};

// Builds the memory system named by `mem.model` for `num_sms` SMs.
std::unique_ptr<MemorySystem> make_memory_system(const Config& cfg, Engine& engine, int num_sms);
// Registers every memory-system configuration key.
void register_mem_params(ParamRegistry& reg);

}  // namespace simfa::mem
