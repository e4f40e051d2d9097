// One HBM channel: two (or more) pseudo-channels with their banks, queues, refresh and data buses,
// sharing the channel's row and column command buses (one command each per DRAM cycle).
//
// A Component of the engine: tick(now) processes the DRAM edges that fall in core cycle `now`
// (ClockDomain) and sleeps until the earliest edge at which a command can issue, a refresh falls
// due, or a new request becomes visible. In the engine's reference mode (no skipping) it processes
// every edge and asserts that nothing issues before the edge it would have slept until.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "mem/dram/clock.h"
#include "mem/dram/command.h"
#include "mem/dram/dram.h"
#include "mem/dram/entry.h"
#include "mem/dram/mapping.h"
#include "mem/dram/params.h"
#include "mem/dram/pc_timing.h"
#include "mem/dram/refresh.h"
#include "mem/dram/scheduler.h"
#include "sim/engine.h"

namespace simfa::mem {

// Per-channel counters (plain integers on the hot path; rates are formulas at output time).
struct ChannelCounters {
  std::uint64_t reads = 0, writes = 0;                            // requests completed
  std::uint64_t read_bytes = 0, write_bytes = 0;                  // bursts moved x burst bytes
  std::uint64_t row_hits = 0, row_misses = 0, row_conflicts = 0;  // by each request's first command
  std::uint64_t acts = 0, pres = 0, refreshes = 0;
  std::uint64_t refusals = 0;      // try_enqueue refused: queue full (queue stalls)
  std::uint64_t data_busy = 0;     // DRAM cycles of data-bus transfer, summed over pseudo-channels
  std::uint64_t read_latency = 0;  // sum over reads of response cycle - accept cycle (core)
  std::uint64_t warm_writes = 0, warm_write_bytes = 0;  // of them, DramReq::warm (not registered)
};

class Channel final : public Component, public EventTarget {
 public:
  Channel(const DramParams& p, const ClockDomain& clk, const DramScheduler& sched,
          std::uint32_t index, Engine& engine, DramClient* client);

  // Schedules the first refresh deadline; call once after Engine::add(this).
  void start();
  bool try_enqueue(const DramReq& r, const DramCoord& c, std::uint64_t seq, Cycle now);
  Cycle tick(Cycle now) override;
  void on_event(std::uint32_t tag, const Payload& p, Cycle now) override;

  std::uint64_t in_flight() const { return in_flight_; }
  ChannelCounters& counters() { return n_; }
  // Sampled simulation (Dram::quiet_until): no request arrives before core cycle `t`.
  void quiet_until(Cycle t) { quiet_ = clk_.last_edge(t); }
  // Appends every issued command to `log` (tests, debugging); nullptr stops logging.
  void set_command_log(std::vector<CmdRecord>* log) { log_ = log; }

 private:
  enum Tag : std::uint32_t { kResponse, kRetry };
  struct Pc {
    Pc(const PcTiming& t, const Refresh& r, std::uint32_t banks)
        : timing(t), refresh(r), rbanks(banks), wbanks(banks) {}
    PcTiming timing;
    Refresh refresh;
    std::vector<DramEntry> rq, wq;
    BankIndex rbanks, wbanks;  // where each bank's requests sit in rq and wq (when indexed_)
    std::size_t rq_visible = 0, wq_visible = 0;
    // At least the latest arrival in rq and wq: below the current core cycle, every entry is
    // visible without looking at the queue.
    Cycle rq_newest = 0, wq_newest = 0;
    bool draining = false;  // serving the write queue
    bool refused_read = false, refused_write = false;
    // Memo of the last look at this pseudo-channel: while nothing changed it (no command, no new
    // request), nothing can happen before `ready_at`, and edges before it skip the scan.
    bool dirty = true;
    DCycle ready_at = 0;
    // The scheduler's pick for edge `ahead_at` (DramScheduler::pick_ahead), valid there while the
    // pseudo-channel stays unchanged: no command, no request that changes_pick(), the same
    // refresh reservation. Saves the second scan of the queue at the edge a command becomes ready.
    SchedPick ahead;
    DCycle ahead_at = kNeverD;
    std::uint64_t ahead_blocked = 0;
    // The banks the last scan weighed (SchedPick::hit_banks...): see changes_pick().
    std::uint64_t cover_hit = 0, cover_closed = 0, cover_conflict = 0;
  };
  struct Candidate {  // one pseudo-channel's wish for a command bus this cycle
    int pc = -1;
    int entry = -1;  // queue index; -1 for a refresh command
    Cmd cmd = Cmd::Act;
    std::uint32_t bank = 0;
    std::uint64_t age = 0;  // seq of the request; 0 for refresh (served first)
  };

  bool changes_pick(const Pc& pc, bool write, const DramCoord& c) const;
  DCycle process(DCycle at, Cycle now);  // one DRAM edge; returns the next edge that needs one
  void issue_column(Pc& pc, int pc_index, int entry, DCycle at, Cycle now);
  void issue_row(Pc& pc, int pc_index, const Candidate& c, DCycle at);
  void row_changed(Pc& pc, std::uint32_t bank);
  void log(DCycle at, int pc, Cmd c, std::uint32_t bank, std::uint32_t row) {
    if (log_) log_->push_back({at, index_, static_cast<std::uint32_t>(pc), c, bank, row});
  }

  const DramParams& p_;
  const ClockDomain& clk_;
  const DramScheduler& sched_;
  std::uint32_t index_;
  Engine& engine_;
  DramClient* client_;
  std::vector<Pc> pcs_;
  bool indexed_ = false;  // both queues hold at most BankIndex::kMaxQueue: the BankIndex is kept
  DCycle next_ = kNeverD;       // earliest edge that needs processing
  DCycle processed_ = kNeverD;  // last edge processed (kNeverD: none yet)
  std::uint64_t in_flight_ = 0;
  DCycle quiet_ = 0;  // quiet_until: no request before this edge
  ChannelCounters n_;
  std::vector<CmdRecord>* log_ = nullptr;
};

}  // namespace simfa::mem
