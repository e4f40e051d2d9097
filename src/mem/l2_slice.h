// One L2 slice: request lanes (the request queue), a tag lookup pipeline that serves
// `lookups_per_cycle` requests per cycle in arrival order, a sectored tag array (allocate on fill,
// write-back, write-allocate without fetch for whole-sector writes), an MSHR pool with merging,
// and a response port of finite bandwidth with a bounded response queue.
//
// Contract: push() queues a transaction that arrives at cycle `arrive` and wakes the slice then.
// The slice stalls (serves nothing) while its response queue is full or the request at the head
// needs an MSHR and none is free (the paper's "request path stalls"); it never drops a request.
// A write-back of a dirty line that waits for room in its DRAM channel holds an entry of the pool
// until the channel takes it, and a request that allocates a line (a read miss, or a write to a
// line the slice lacks, whose victim may be dirty) needs a free entry: so the L2 cannot take
// writes faster than the DRAM writes back what they evict.
// fill() is called when the DRAM data of an MSHR entry is back; it answers every waiter.
#pragma once
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "mem/hierarchy_params.h"
#include "mem/mshr.h"
#include "mem/ring_queue.h"
#include "mem/slice_fabric.h"
#include "mem/tag_array.h"
#include "mem/txn.h"
#include "sim/engine.h"
#include "sim/stats.h"

namespace simfa::mem {

struct SliceCounters {
  std::uint64_t requests = 0;      // first lookups (lts__t_requests)
  std::uint64_t sectors = 0;       // sectors of first lookups (lts__t_sectors)
  std::uint64_t hit_sectors = 0;   // sectors served without DRAM (lts__t_sectors_lookup_hit)
  std::uint64_t read_misses = 0;   // reads that needed DRAM (new or merged)
  std::uint64_t mshr_merges = 0;   // misses merged into an existing MSHR entry
  std::uint64_t probes = 0, shadow_hits = 0, shadow_inserts = 0;
  std::uint64_t evictions = 0, writebacks = 0;
  std::uint64_t warm_writebacks = 0;  // of them, of lines warming made dirty (not registered)
  std::uint64_t dram_read_sectors = 0, dram_write_sectors = 0;  // sent to DRAM (not registered: span replay)
  std::uint64_t mshr_peak = 0;
  std::uint64_t mshr_area = 0;     // integral of MSHR occupancy over cycles
};

class L2Slice final : public Component {
 public:
  enum Lane : std::uint8_t { kLaneNear, kLaneFar, kLaneForward, kLanes };

  L2Slice(std::uint32_t id, const L2Params& p, std::uint32_t line_bytes, std::uint32_t sets,
          TxnPool& txns, SliceFabric& fabric, Engine& engine);

  void push(std::uint32_t txn, Lane lane, Cycle arrive) {  // once per line request: inline
    Txn& x = txns_[txn];
    x.next = kNoTxn;
    RingQueue<LaneEntry>& q = lanes_[lane];
    q.push({arrive, x.line, txn});
    // A lane's arrivals never decrease, so only a push into an empty lane can change its head or
    // the earliest head (ties go to the lower lane, as in refresh_first()).
    if (q.size() == 1) {
      head_arrive_[lane] = arrive;
      if (arrive < first_.arrive || (arrive == first_.arrive && lane < first_lane_)) {
        first_ = q.front();
        first_lane_ = lane;
      }
    }
    if (lane != kLaneForward) ++queued_;
    engine_.wake(this, arrive);
  }
  Cycle tick(Cycle now) override;
  // Before the cycle's ticks (Engine::want_prefetch): starts fetching the transaction and the tag
  // set of the lookup this slice will do first.
  void prefetch(Cycle now) override;
  void fill(std::uint32_t mshr, Cycle now);
  // A write-back of this slice that waited for room in its DRAM channel was taken: its entry of
  // the MSHR pool is free again.
  void writeback_accepted(Cycle now) {
    --wb_waiting_;
    entry_freed(now);
  }

  // RemoteCopy: installs (or completes) a shadow copy of `line`; returns false when it already
  // held those sectors.
  void insert_shadow(std::uint64_t line, std::uint8_t sectors, Cycle now);
  void drop_shadow(std::uint64_t line);
  // Functional warming (MemorySystem::warm): line index `line` as its home slice holds it.
  // `flag`: remember a line made dirty, so that its write-back is discounted at the end (the
  // extrapolated scheme; span replay counts traffic from the replay slices and needs no flag).
  void warm(std::uint64_t line, std::uint8_t sectors, bool write, bool flag = true);
  // Takes the write-backs of warmed lines out of the statistics (end of a sampled run).
  void discount_warm_writebacks();
  // Sampled simulation's span replay (MemorySystem::replay): line index `line` accessed as the
  // skipped work would have, functionally, counting what it costs. Sectors are 32 bytes.
  struct Replayed {
    std::uint64_t lines = 0, read_sectors = 0, written_sectors = 0;
    std::uint64_t read_misses = 0, evictions = 0, writebacks = 0;
    std::uint64_t probes = 0, shadow_hits = 0, shadow_inserts = 0;  // as this slice a mirror
  };
  void replay(std::uint64_t line, std::uint8_t sectors, bool write);
  // A far read's probe of this mirror slice: true (and the copy touched) when it holds the sectors;
  // `count`: the line is counted (a replay slice's sampled set).
  bool probe_copy(std::uint64_t line, std::uint8_t sectors, bool count);
  // A shadow copy left by a far read (insert_shadow without time); `count`: this is a replay
  // slice, its victims count.
  void replay_shadow(std::uint64_t line, std::uint8_t sectors, bool count);
  const Replayed& replayed() const { return replayed_; }
  // Span replay's set sampling: a replay slice also counts its detailed DRAM traffic and read
  // misses per class of sets (set_class_of), so that a long run's replay may count
  // only the sets of every k-th class (k divides kSetClasses) and still scale what the replay
  // slices did in detail over the same sets.
  static constexpr std::uint32_t kSetClasses = 64;
  struct ClassCounts {
    std::uint64_t read_sectors = 0, write_sectors = 0, read_misses = 0, evictions = 0;
    std::uint64_t probes = 0, shadow_hits = 0, shadow_inserts = 0;
  };
  void count_set_classes() { classes_.assign(kSetClasses, {}); }
  // A set's class: a multiplicative hash of its index, so that the sampled sets do not align with
  // the power-of-two strides of tensor layouts (classes by index mod 64 did: 3.6% fewer DRAM reads
  // at 64K tokens with every 8th class).
  static std::uint32_t set_class_of(std::uint32_t set) { return (set * 0x9E3779B1u) >> 26; }
  const std::vector<ClassCounts>& set_classes() const { return classes_; }
  const TagArray& tags() const { return tags_; }

  // Requests counted against the crossbar credits: queued in lanes near/far, not yet looked up.
  std::uint32_t queued() const { return queued_; }
  // An SM waits for this slice's credits: the next lookup from a lane near/far tells the fabric.
  void note_credit_waiter() { credit_waiter_ = true; }
  bool idle() const;
  const SliceCounters& counters() const { return c_; }
  void register_stats(Stats& s, const std::string& prefix);
  // Cycles spent stalled, up to `now`.
  Cycle mshr_stall_cycles(Cycle now) const { return mshr_stall_.total(now); }
  Cycle resp_stall_cycles(Cycle now) const { return resp_stall_.total(now); }
  std::uint64_t mshr_area(Cycle now) const {
    return c_.mshr_area + std::uint64_t{mshr_.used()} * (now - mshr_since_);
  }

 private:
  bool would_block(std::uint32_t t) const;
  void lookup(std::uint32_t t, Cycle now);
  void serve(std::uint32_t t, Cycle ready, Cycle now, bool from_dram);
  void evict(const TagArray::Victim& v, Cycle now);
  void account_mshr(Cycle now);  // call before the occupancy changes
  int pick(Cycle now) const;

  std::uint32_t id_;
  const L2Params& p_;
  std::uint32_t line_bytes_;
  Replayed replayed_;
  std::vector<ClassCounts> classes_;  // empty unless this is a replay slice (count_set_classes)
  ClassCounts* set_class(std::uint64_t line) {
    return classes_.empty() ? nullptr : &classes_[set_class_of(tags_.set_index(line))];
  }
  std::unordered_set<std::uint64_t> warm_dirty_;  // lines warm() made dirty (sampled simulation)
  std::uint8_t all_sectors_;
  TxnPool& txns_;
  SliceFabric& fabric_;
  Engine& engine_;
  TagArray tags_;
  MshrTable mshr_;
  // A lane holds its transactions in arrival order, each with what choosing the next lookup and
  // prefetching for it need.
  struct LaneEntry {
    Cycle arrive;
    std::uint64_t line;
    std::uint32_t txn;
  };
  RingQueue<LaneEntry> lanes_[kLanes];
  // The earliest lane head (ties: the lowest lane) and its lane (kLanes: all lanes empty): the
  // next lookup once it has arrived.
  LaneEntry first_{kNever, 0, kNoTxn};
  std::uint8_t first_lane_ = kLanes;
  // Each lane's head arrival (kNever: empty), beside each other so that refresh_first() compares
  // three numbers instead of reading three queues.
  Cycle head_arrive_[kLanes] = {kNever, kNever, kNever};
  void refresh_first();
  std::uint32_t queued_ = 0;
  bool credit_waiter_ = false;
  double resp_free_ = 0;
  RingQueue<Cycle> departs_;
  bool blocked_ = false;
  // Write-backs waiting for room in their DRAM channel, each holding an entry of the MSHR pool.
  std::uint32_t wb_waiting_ = 0;
  bool pool_full() const { return mshr_.used() + wb_waiting_ >= mshr_.capacity(); }
  // An entry of the pool freed (a fill, a write-back taken): a slice stalled on it goes on.
  void entry_freed(Cycle now) {
    if (blocked_) {
      blocked_ = false;
      engine_.wake(this, now);
    }
  }
  BusyTime mshr_stall_, resp_stall_;
  Cycle mshr_since_ = 0;
  SliceCounters c_;
};

}  // namespace simfa::mem
