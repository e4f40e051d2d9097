// The HBM DRAM behind the L2: all channels of all stacks, as seen by the L2 slices.
//
// Contract (all cycles are CORE cycles, `gpu.clock`; the DRAM runs its own command clock inside):
//  - try_enqueue(r, now) offers one line request (a read, or a write carrying its data). It returns
//    false when the queue of the pseudo-channel that `r.line` maps to is full; the DRAM then calls
//    DramClient::on_dram_retry(channel) at a later cycle, at least once after every refusal, when
//    that queue has room again, naming the channel whose queue it is (the client offers that
//    channel's pending requests again; channels that did not call have no new room). A refusal
//    changes nothing else.
//  - Every accepted request gets exactly one DramClient::on_dram_response(r, t) with the record
//    unchanged, at a cycle t >= now + 1: for a read when its data has crossed back to the L2 side,
//    for a write when its data has been written into the bank. Responses are never refused.
//  - A request accepted at core cycle `now` is visible to the DRAM scheduler from the first DRAM
//    clock edge after `now` (the clock-domain crossing), so the order in which components call
//    try_enqueue within one cycle never matters.
//  - `sectors` selects the 32-byte sectors moved (one data burst each on HBM3/HBM2e, whose burst is
//    32 bytes); 0 means the whole line. The byte counts in the stats follow it.
//  - Calls from inside the client's callbacks are allowed (a response handler may enqueue).
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

struct DramReq {
  Addr line = 0;          // line-aligned byte address (line size `mem.line_bytes`, 128 B)
  std::uint32_t tag = 0;  // client's cookie, returned unchanged
  bool write = false;
  std::uint8_t sectors = 0xF;  // 32-byte sectors moved (bit i = bytes [32i, 32i+32)); 0 = all
  // Sampled simulation: the write-back of a line that functional warming made dirty. It moves
  // like any write and is counted like one, and apart as well, so that discount_warm_writes can
  // take it out at the end when the skipped work's DRAM traffic is extrapolated from the fit
  // (sample.replay_slice_stride = 0), which already counts it; docs/sampling.md.
  bool warm = false;
};
static_assert(sizeof(DramReq) <= 32);

class DramClient {
 public:
  virtual ~DramClient() = default;
  virtual void on_dram_response(const DramReq& r, Cycle now) = 0;  // read data back / write done
  // A queue of `channel` (channel_of) that refused a request has room again.
  virtual void on_dram_retry(std::uint32_t channel, Cycle now) = 0;
};

class Dram {
 public:
  virtual ~Dram() = default;
  // See the contract above. Never blocks, never drops.
  virtual bool try_enqueue(const DramReq& r, Cycle now) = 0;
  // Registers per-channel and total statistics under gpu.dram.*, and the Nsight Compute names
  // dram__bytes_read.sum, dram__bytes_write.sum, dram__sectors_read.sum, dram__sectors_write.sum.
  virtual void register_stats(Stats& s) = 0;
  // Requests accepted and not yet answered.
  virtual std::uint64_t in_flight() const = 0;
  // Peak data bandwidth of all channels in bytes per core cycle.
  virtual double peak_bytes_per_core_cycle() const = 0;
  // Latency in core cycles of a whole-line read to a closed bank in an idle DRAM, for a request
  // accepted at a core cycle that coincides with a DRAM clock edge (e.g. cycle 0):
  //   ctrl_latency + ceil((1 + tRCD + tCL + (bursts-1)*tCCD_L + tBL) * core_clock / dram_clock)
  // (the 1 is the clock-domain crossing; the bursts of one line share a bank, hence tCCD_L).
  virtual Cycle unloaded_read_latency() const = 0;
  // Channel a line maps to (for the client's own bookkeeping of per-channel retries; optional).
  virtual std::uint32_t channel_of(Addr line) const = 0;
  virtual std::uint32_t num_channels() const = 0;
  // Sampled simulation: removes the writes flagged `warm` from the write statistics.
  virtual void discount_warm_writes() {}
  // Sampled simulation: every SM sleeps through a fast-forward span until core cycle `t`, so no
  // new request comes before it; idle channels may count their refreshes instead of simulating
  // them (docs/sampling.md, step 4).
  virtual void quiet_until(Cycle /*t*/) {}
};

// Builds the DRAM described by the `dram.*` keys (and the core clock, `gpu.clock`), registering
// its channels as components of `engine`. `client` receives all responses and retries.
std::unique_ptr<Dram> make_dram(const Config& cfg, Engine& engine, DramClient* client);
// Registers every `dram.*` configuration key.
void register_dram_params(ParamRegistry& reg);

}  // namespace simfa::mem
