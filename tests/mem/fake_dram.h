// Test double for the HBM model: every request is answered `latency` cycles after it was accepted;
// each of `channels` channels (line index mod channels) holds at most `queue` requests in flight
// and refuses beyond that, calling on_dram_retry(channel) the cycle after a slot of a channel that
// refused frees.
#pragma once
#include <bit>
#include <vector>

#include "mem/dram/dram.h"
#include "sim/engine.h"
#include "sim/stats.h"

namespace simfa::mem::test {

class FakeDram final : public Dram, public EventTarget {
 public:
  FakeDram(Engine& e, DramClient* c, Cycle latency, std::uint32_t channels = 8,
           std::uint32_t queue = 1u << 30)
      : e_(e), c_(c), latency_(latency), queue_(queue), used_(channels, 0), refused_(channels, 0) {}

  bool try_enqueue(const DramReq& r, Cycle now) override {
    const std::uint32_t ch = channel_of(r.line);
    std::uint32_t& u = used_[ch];
    if (u >= queue_) {
      ++refusals;
      refused_[ch] = 1;
      return false;
    }
    ++u;
    ++in_flight_;
    const std::uint64_t bytes = 32ull * (r.sectors ? std::popcount(unsigned{r.sectors}) : 4);
    (r.write ? write_bytes : read_bytes) += bytes;
    (r.write ? writes : reads) += 1;
    e_.send(this, 0, Payload::of(r), now + latency_);
    return true;
  }
  void on_event(std::uint32_t tag, const Payload& p, Cycle now) override {
    if (tag == 1) {
      c_->on_dram_retry(p.as<std::uint32_t>(), now);
      return;
    }
    const DramReq r = p.as<DramReq>();
    const std::uint32_t ch = channel_of(r.line);
    --used_[ch];
    --in_flight_;
    if (refused_[ch]) {
      refused_[ch] = 0;
      e_.send(this, 1, Payload::of(ch), now + 1);
    }
    c_->on_dram_response(r, now);
  }
  void register_stats(Stats& s) override {
    s.counter("dram__bytes_read.sum", &read_bytes, "bytes", "bytes read");
    s.counter("dram__bytes_write.sum", &write_bytes, "bytes", "bytes written");
  }
  std::uint64_t in_flight() const override { return in_flight_; }
  double peak_bytes_per_core_cycle() const override { return 1e9; }
  Cycle unloaded_read_latency() const override { return latency_; }
  std::uint32_t channel_of(Addr line) const override {
    return static_cast<std::uint32_t>((line / 128) % used_.size());
  }
  std::uint32_t num_channels() const override { return static_cast<std::uint32_t>(used_.size()); }

  std::uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0, refusals = 0;

 private:
  Engine& e_;
  DramClient* c_;
  Cycle latency_;
  std::uint32_t queue_;
  std::vector<std::uint32_t> used_;
  std::uint64_t in_flight_ = 0;
  std::vector<std::uint8_t> refused_;  // per channel: refused since its last freed slot
};

}  // namespace simfa::mem::test
