// One streaming multiprocessor at WarpGroup granularity (paper §4.2, Algorithm 1). Each cycle it
// runs: due async completions (AEQ) -> TMA and Tensor Core engines -> wake satisfied waiters ->
// the scheduler selects ready physical threads and issues in order, one instruction each, up to
// the IPC limit. A wait whose condition fails blocks its thread with the PC left on the wait
// (roll-back); the thread becomes ready in the cycle the condition becomes true and re-issues it.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/aeq.h"
#include "core/observer.h"
#include "core/params.h"
#include "core/tensor_core.h"
#include "core/tma_engine.h"
#include "core/warp_scheduler.h"
#include "mem/port.h"
#include "sim/engine.h"
#include "sim/stats.h"
#include "trace/source.h"

namespace simfa::core {

class Sm;

// What an SM needs from the GPU around it.
class SmHost {
 public:
  virtual ~SmHost() = default;
  virtual void cta_retired(std::uint16_t sm, std::uint32_t cta, Cycle now) = 0;
  // The SM on which CTA `cta` is resident, or nullptr.
  virtual Sm* sm_of(std::uint32_t cta) = 0;
  // An instruction issued or a response arrived (watchdog); a response taken ahead of time
  // reports its arrival cycle, which may lie ahead: the latest reported counts. (Not virtual: it
  // runs once per line response.)
  void progress(Cycle now) { last_progress_ = std::max(last_progress_, now); }
  virtual BoxPatterns& box_patterns() = 0;  // tensor copies' line patterns, shared by the SMs

 protected:
  Cycle last_progress_ = 0;  // the latest progress reported
};

class Sm final : public Component, public mem::MemClient, public EventTarget, private TmaClient {
 public:
  Sm(std::uint16_t id, const SmParams& p, const trace::KernelInfo& k, bool validate, Engine& engine,
     mem::MemorySystem& mem, SmHost& host, Observer* obs);

  bool can_admit(const trace::KernelInfo& k) const;
  std::uint32_t resident_ctas() const { return ctas_live_; }
  // Work under way that ends at a known time without anything issuing: a running BUBBLE, or a CTA
  // admitted to start later (gpu.cta_launch_cycles). The watchdog counts it as progress.
  bool has_timed_work(Cycle now) const;
  void admit(trace::CtaProgram prog, std::uint32_t rank, Cycle now);

  Cycle tick(Cycle now) override;
  void on_response(const mem::MemReq& r, Cycle now) override;
  void on_retry(Cycle now) override;
  bool defer_response(const mem::MemReq& r, Cycle at, Cycle now) override;
  // Applies the responses taken ahead of time that have arrived by `now` (before statistics are
  // read between ticks).
  void settle(Cycle now);
  void on_event(std::uint32_t tag, const Payload& p, Cycle now) override;

  // Cluster peers: delivered `delay` cycles after `now` through the engine.
  void remote_tx(std::uint32_t cta, std::uint16_t sid, std::uint64_t bytes, Cycle at);
  void remote_release(std::uint32_t cta, std::uint16_t sid, Cycle at);

  void register_stats(Stats& s);
  void finish(Cycle now);
  // One line per unfinished WarpGroup: where it is and what it waits for.
  void report_blocked(std::string& out) const;
  bool idle() const { return ctas_live_ == 0; }
  // Sampled simulation: every WarpGroup still running is in a fast-forward sleep and the TMA unit
  // has nothing left to send or receive.
  bool asleep(Cycle now) const;

  struct Counters {
    std::uint64_t issued = 0, issue_cycles = 0, ctas = 0, bubble_cycles = 0, late_cluster_msgs = 0;
    std::uint64_t bubble_elapsed = 0;  // thread-cycles bubbles took, with the tensor pipe's slowdown
    std::array<std::uint64_t, static_cast<int>(SpanKind::kCount)> wait_cycles{};
    std::array<std::uint64_t, static_cast<int>(trace::Op::kCount)> by_op{};
  };
  const Counters& counters() const { return c_; }
  const TensorCore& tensor() const { return tc_; }

 private:
  struct Group {
    std::uint16_t gid = 0;
    bool committed = false;
    std::uint32_t outstanding = 0;  // WGMMAs / store copies not complete
    std::uint32_t unsent = 0;       // store copies whose smem has not been fully read
    Cycle first_start = kNever;
  };
  struct GroupList {
    std::deque<Group> g;
    std::uint64_t base = 0;  // serial of g.front()
    Group& at(std::uint64_t serial) { return g[serial - base]; }
    std::uint64_t open(std::uint16_t gid);  // serial of the open group gid (created if absent)
    void commit(std::uint16_t gid);
    std::uint32_t pending(std::uint16_t max_gid, bool unsent_only) const;
    void trim();
    void clear() { base += g.size(), g.clear(); }
  };
  enum class St : std::uint8_t { Ready, Blocked, Done };
  struct Thread {
    // What the scheduler and the wake-up scan read every tick comes first (one host cache line).
    bool active = false;
    St st = St::Ready;
    SpanKind wait = SpanKind::kCount;
    bool post_wait = false;  // blocked after issuing (LDG): continue without re-issue
    std::uint32_t cta_slot = 0;
    Cycle ready_at = 0;
    std::uint64_t age = 0;
    Cycle wait_since = 0;
    std::uint32_t pos = 0, len = 0;
    std::vector<trace::Instr> buf;
    std::uint8_t wg = 0;
    bool bar_registered = false, bar_released = false, ldg_done = false;
    std::uint64_t pc = 0;
    std::string role;
    std::unique_ptr<trace::InstrStream> stream;
    GroupList mma, store;
    // Phases of each stage this thread has consumed: MB_WAITs passed and RELEASE_STAGEs issued. A
    // consumer that releases a phase without waiting on it (FA3's second consumer WG) has consumed it.
    std::vector<std::uint64_t> stage_waits, stage_releases;
    std::uint64_t consumed(std::uint16_t sid) const { return std::max(stage_waits[sid], stage_releases[sid]); }
    // WGMMA issue: the previous instruction was a WGMMA (the next one costs the short interval);
    // fractional issue cycles owed; WGMMAs issued and not retired; over the limit: wait for a slot.
    bool prev_wgmma = false, slot_wait = false;
    double issue_carry = 0;
    std::uint32_t wgmma_slots = 0;
    // A BUBBLE in progress: work left in full-speed cycles as of bubble_since, at bubble_rate
    // work-cycles per cycle since then; fixed: a measured duration, never slowed.
    bool in_bubble = false, bubble_fixed = false;
    Cycle sleep_until = 0;  // end of its latest fast-forward sleep (kBubbleSleep)
    double bubble_left = 0, bubble_rate = 1.0;
    Cycle bubble_since = 0, bubble_start = 0;
  };
  struct Stage {
    std::uint64_t acquires = 0, releases = 0, fills = 0, armed_tx = 0, recv_tx = 0;
    bool armed = false;
  };
  struct Barrier {
    std::uint32_t count = 0, need = 0;
    std::uint64_t waiters = 0;  // thread-slot bitmask
  };
  struct Cta {
    bool active = false;
    std::uint32_t id = 0, rank = 0;
    std::uint32_t live_threads = 0;
    std::uint64_t outstanding = 0;  // async operations not complete
    Cycle finish_at = 0;  // when its last thread's last instruction (e.g. a bubble) is over
    std::vector<Stage> stages;
    Cycle start = 0;
    std::vector<std::uint32_t> threads;
    std::array<Barrier, trace::kNamedBarriers> bars{};
  };

  // Issue machinery.
  bool eligible(const Thread& t, Cycle now) const { return t.active && t.st == St::Ready && t.ready_at <= now; }
  int select(Cycle now, std::uint64_t picked);
  class Candidates;  // what select() shows the warp scheduler (sm.cpp)
  void tick_engines(Cycle now);
  void issue(std::uint32_t slot, Cycle now);
  bool fetch(Thread& t);  // ensures buf[pos] is valid; false at end of stream
  void advance(std::uint32_t slot, Cycle now, Cycle ready_at);
  void block(std::uint32_t slot, SpanKind why, Cycle now);
  bool satisfied(const Thread& t) const;
  void recheck(Cycle now);
  void thread_done(std::uint32_t slot, Cycle now);
  void maybe_retire(std::uint32_t cta_slot, Cycle now);

  // Synchronization state.
  void deliver_tx(Cta& c, std::uint16_t sid, std::uint64_t bytes);
  void check_fill(Stage& s);
  void arrive(Cta& c, std::uint16_t bid);
  std::uint32_t arrivals_needed(const Stage& s) const { return static_cast<std::uint32_t>(s.acquires) * k_.stage_arrivals; }
  Cta* find_cta(std::uint32_t id);
  void span(SpanKind k, const Thread& t, std::uint16_t id, Cycle start, Cycle end);

  // WGMMA retirement and the CUDA-core slowdown while the tensor pipe runs.
  void wgmma_left_pipe(Cycle now);
  void wgmma_visible(std::uint32_t idx, Cycle now);
  void apply_deferred(const AeqEvent& e);  // a WgmmaVisible or WgmmaSlotFree event
  double bubble_rate(const Thread& t, std::size_t running) const;  // work-cycles per cycle now
  void rerate_bubbles(Cycle now);  // the tensor pipe or the set of running bubbles changed
  void set_bubble_end(Thread& t, Cycle end);
  void close_bubble(std::uint32_t slot);

  // TmaClient.
  void tma_all_sent(TmaOp& op, Cycle now) override;
  void tma_complete(TmaOp& op, Cycle now) override;

  std::uint16_t id_;
  SmParams p_;
  std::unique_ptr<WarpScheduler> sched_;
  const trace::KernelInfo& k_;
  bool validate_;
  Engine& engine_;
  mem::MemorySystem& mem_;
  SmHost& host_;
  Observer* obs_;
  Aeq aeq_;
  TensorCore tc_;
  TmaEngine tma_;
  std::vector<Thread> threads_;
  std::vector<Cta> ctas_;
  // Slots in use, ascending (the hot loops visit only these).
  std::vector<std::uint32_t> live_threads_, live_ctas_;
  std::uint32_t ctas_live_ = 0;
  std::uint32_t draining_ = 0;  // active CTAs with no live thread (retirement candidates)
  std::uint64_t smem_used_ = 0, regs_used_ = 0, warps_used_ = 0;
  int last_ = -1;
  Cycle min_ready_ = kNever;  // lower bound of ready_at over Ready threads (exact after a tick)
  // Earliest end of a running bubble or ready_at of a Ready thread, as of the last full tick
  // (lowered by admit()); 0 until the first tick. See tick().
  Cycle idle_next_ = 0;
  // Earliest deferrable AEQ event (aeq.h) that something can observe at its time, as of the last
  // full tick (see tick()).
  Cycle lazy_wake_ = kNever;
  std::uint64_t next_age_ = 0;
  bool dirty_ = false;
  bool port_blocked_ = false;
  std::deque<mem::MemReq> ldg_pending_;
  // WGMMAs that left the pipe and are not yet visible to wait_group (AEQ WgmmaVisible indexes).
  struct Retiring {
    std::uint32_t thread;
    std::uint64_t serial;
  };
  std::vector<Retiring> retiring_;
  std::vector<std::uint32_t> retiring_free_;
  std::vector<std::uint32_t> bubble_threads_;  // slots whose BUBBLE is still running
  Cycle sleep_until_ = 0;            // end of the latest sampled-simulation sleep (trace::kBubbleSleep)
  std::vector<LineReq> warm_lines_;  // scratch of functional warming (trace::kTmaWarm)
  Counters c_;
};

}  // namespace simfa::core
