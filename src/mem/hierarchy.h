// The Hopper memory hierarchy behind the SMs (mem.model = hierarchy):
//   SM --(L1, ordinary loads only)--> L2 Request Coalescer (per SM pair) --> crossbar
//      --> L2 slice (home by slice hash; far-homed reads probe the near mirror slice first,
//          RemoteCopy proxy) --> MSHR --> HBM (dram/dram.h)
// and back. Implements the MemorySystem port contract (port.h): back-pressure with retries, one
// response per accepted request, never a drop.
// Back-pressure: an SM is refused when its injection queue is full or when the first slice of the
// request has no credit left (its request queue plus the crossbar buffer toward it); it is told to
// retry when the queue drains or a credit frees. Requests merged by the coalescer or served by the
// L1 need neither.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "mem/coalescer.h"
#include "mem/crossbar.h"
#include "mem/dram/dram.h"
#include "mem/fast_div.h"
#include "mem/hierarchy_params.h"
#include "mem/l1_cache.h"
#include "mem/l2_slice.h"
#include "mem/latencies.h"
#include "mem/port.h"
#include "mem/remote_copy.h"
#include "mem/slice_fabric.h"
#include "mem/slice_hash.h"
#include "mem/txn.h"
#include "sim/engine.h"

namespace simfa::mem {

class Hierarchy final : public MemorySystem,
                        public EventTarget,
                        public DramClient,
                        private SliceFabric {
 public:
  using DramFactory = std::function<std::unique_ptr<Dram>(DramClient*)>;
  Hierarchy(const HierarchyParams& p, Engine& engine, int num_sms, const DramFactory& make_dram);
  ~Hierarchy() override;

  void connect(std::uint16_t sm, MemClient* client) override;
  bool try_send(const MemReq& r, Cycle now) override;
  void register_stats(Stats& s) override;
  std::uint64_t in_flight() const override { return in_flight_; }
  void deferred_applied() override {
    --in_flight_;
    ++responses_;
  }
  void warm(Addr line, std::uint8_t sectors, bool write) override;
  void discount_warm_writebacks() override;
  void enable_replay(std::uint32_t stride) override;
  void quiet_until(Cycle t) override { dram_->quiet_until(t); }
  void replay(Addr line, std::uint8_t sectors, bool write, bool warm, int sm) override;
  ReplayCounts replay_counts() const override;
  std::uint32_t home_of(Addr line) const override { return home_slice(line); }
  void replay_counted(Addr line, std::uint32_t home, std::uint8_t sectors, bool write, int sm) override {
    if (replay_stride_) replay_at(home, line / p_.line_bytes, sectors, write, true, sm);
  }
  bool replay_counts_line(Addr line) const override {
    const std::uint32_t h = home_slice(line);
    return replays(h) && sampled_set(h, slices_[0]->tags().set_index(line / p_.line_bytes));
  }
  void set_replay_set_stride(std::uint32_t k) override;
  double replay_sets() const override;
  double dram_peak_bytes_per_cycle() const override { return dram_->peak_bytes_per_core_cycle(); }
  std::uint32_t line_bytes() const override { return p_.line_bytes; }

  void on_event(std::uint32_t tag, const Payload& p, Cycle now) override;
  void on_dram_response(const DramReq& r, Cycle now) override;
  void on_dram_retry(std::uint32_t channel, Cycle now) override;

  // Inspection (tests, benchmarks).
  std::uint32_t home_slice(Addr line_addr) const {
    return hash_->slice(line_addr / p_.line_bytes);
  }
  const L2Slice& slice(std::uint32_t i) const { return *slices_[i]; }
  std::uint32_t num_slices() const { return static_cast<std::uint32_t>(slices_.size()); }
  const Crossbar& crossbar() const { return xbar_; }
  const LinkLatencies& latencies() const { return lat_; }
  const Dram& dram() const { return *dram_; }
  const HierarchyParams& params() const { return p_; }
  std::uint64_t lrc_merges() const { return lrc_.merges(); }
  std::uint64_t refusals() const { return refusals_credit_ + refusals_port_; }
  // Dirty data the L2 holds now, in bytes: written by the SMs and not yet written back. With span
  // replay (a sampled run), the replay slices' sampled sets scaled to the whole L2, as the replayed
  // DRAM bytes are (replay_counts); at the end of a run, the kernel's writes that never reached DRAM.
  double dirty_bytes() const;
  // Sum of a slice counter over all slices.
  std::uint64_t total(std::uint64_t SliceCounters::*field) const;

 private:
  enum Tag : std::uint32_t { kL1Hit, kArrive, kDeliver, kFill, kRetry };
  struct Arrival {  // kArrive's payload
    MemReq req;
    std::uint32_t txn;
  };

  // SliceFabric
  void respond(std::uint32_t txn, std::uint32_t slice, Cycle depart, bool from_dram,
               Cycle now) override;
  void forward(std::uint32_t txn, std::uint32_t slice, Cycle now) override;
  void credit_freed(std::uint32_t slice, Cycle now) override;
  void invalidate_shadows(std::uint64_t line, std::uint32_t home) override;
  bool dram_send(const DramReq& r, Cycle now) override;

  void deliver(const MemReq& r, Cycle now);
  void finish(const MemReq& r, Cycle now);
  void schedule_retry(std::uint16_t sm, Cycle t);
  std::uint8_t norm_sectors(std::uint8_t s) const { return s ? (s & all_sectors_) : all_sectors_; }

  HierarchyParams p_;
  Engine& engine_;
  std::uint8_t all_sectors_;
  FastDiv line_div_;  // by the line size
  std::unique_ptr<SliceHash> hash_;
  Crossbar xbar_;
  Coalescer lrc_;
  std::unique_ptr<L1Cache> l1_;
  RemoteCopy rc_;
  TxnPool txns_;
  std::vector<std::unique_ptr<L2Slice>> slices_;
  std::unique_ptr<Dram> dram_;
  LinkLatencies lat_;
  std::uint32_t credits_;
  std::vector<MemClient*> clients_;
  std::vector<std::vector<std::uint16_t>> credit_waiters_;  // per slice: SMs refused for credit
  std::vector<std::uint8_t> waiting_on_credit_;              // per SM: in some credit_waiters_
  std::vector<std::uint8_t> retry_pending_;                  // per SM: a kRetry is scheduled
  // Requests refused by a full DRAM channel wait here, per channel, in order.
  std::vector<RingQueue<DramReq>> dram_wait_;
  std::uint64_t dram_refusals_ = 0;
  std::uint64_t in_flight_ = 0, accepted_ = 0, responses_ = 0;
  std::uint64_t refusals_credit_ = 0, refusals_port_ = 0;
  std::uint64_t lrc_reads_ = 0, writebacks_done_ = 0;
  // replay() once the home slice and whether the line counts are known.
  void replay_at(std::uint32_t h, std::uint64_t idx, std::uint8_t sectors, bool write, bool counted, int sm);
  std::uint32_t replay_stride_ = 0;  // 0: no span replay; else every stride-th slice replays
  std::vector<std::uint8_t> replay_slice_;  // per slice: a replay slice (enable_replay)
  std::vector<std::uint32_t> replay_rank_;  // per slice: its rank among its partition's replay slices
  bool replays(std::uint32_t slice) const { return replay_stride_ && replay_slice_[slice]; }
  double replay_scale() const;  // all slices and sets over the replay slices' sampled sets
  // Set sampling inside the replay slices: a replay slice counts the sets whose class
  // (L2Slice::set_class_of) plus the slice's rank among the replay slices of its partition is a
  // multiple of this count (a power of two). The rank turns the classes from slice to slice, so
  // that every class is counted somewhere and no set index stands for the whole L2; a slice and
  // its mirror (same offset) count the same sets. docs/sampling.md step 5.
  std::uint32_t replay_set_stride_ = 1;
  bool sampled_set(std::uint32_t slice, std::uint32_t set) const {
    return ((L2Slice::set_class_of(set) + replay_rank_[slice]) & (replay_set_stride_ - 1)) == 0;
  }
};

}  // namespace simfa::mem
