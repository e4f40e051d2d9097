// HbmDram: the Dram of dram.h as an array of Channel components behind one address mapping.
// Tests and benchmarks build it from DramParams directly; the simulator uses make_dram().
#pragma once
#include <memory>
#include <vector>

#include "mem/dram/channel.h"
#include "mem/dram/clock.h"
#include "mem/dram/dram.h"
#include "mem/dram/mapping.h"
#include "mem/dram/params.h"
#include "mem/dram/scheduler.h"

namespace simfa::mem {

class HbmDram final : public Dram {
 public:
  HbmDram(const DramParams& p, Engine& engine, DramClient* client);
  HbmDram(const HbmDram&) = delete;  // the channels keep references to params and clock
  HbmDram& operator=(const HbmDram&) = delete;
  bool try_enqueue(const DramReq& r, Cycle now) override;
  void register_stats(Stats& s) override;
  std::uint64_t in_flight() const override;
  double peak_bytes_per_core_cycle() const override;
  Cycle unloaded_read_latency() const override;
  std::uint32_t channel_of(Addr line) const override { return coord(line).channel; }
  std::uint32_t num_channels() const override { return p_.channels; }
  void discount_warm_writes() override;
  void quiet_until(Cycle t) override {
    for (auto& c : channels_) c->quiet_until(t);
  }

  const DramParams& params() const { return p_; }
  const AddressMapping& mapping() const { return map_; }
  const ClockDomain& clock() const { return clk_; }
  Channel& channel(std::uint32_t i) { return *channels_[i]; }
  // Logs every command of every channel into `log` (tests); nullptr stops.
  void set_command_log(std::vector<CmdRecord>* log);
  // Totals over channels (tests, benchmarks).
  ChannelCounters totals() const;

 private:
  DramParams p_;
  ClockDomain clk_;
  AddressMapping map_;
  std::unique_ptr<DramScheduler> sched_;
  Engine& engine_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::uint64_t seq_ = 0;
  // The last line mapped: the L2 side asks channel_of() and then try_enqueue() for the same line,
  // so the second lookup is a compare (the mapping's divisions are 1% of a DRAM-heavy run).
  const DramCoord& coord(Addr line) const {
    if (line != last_line_) {
      last_coord_ = map_.map(line);
      last_line_ = line;
    }
    return last_coord_;
  }
  mutable Addr last_line_ = ~Addr{0};
  mutable DramCoord last_coord_;
};

}  // namespace simfa::mem
