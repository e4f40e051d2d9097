// A fixed-latency, fixed-bandwidth memory: every line is served in order at `mem.fixed.bytes_per_cycle`
// and answered `mem.fixed.latency` cycles after its service starts. Used to test the core alone
// and as the simplest memory for what-if studies.
#pragma once
#include <vector>

#include "mem/port.h"
#include "sim/engine.h"

namespace simfa::mem {

struct FixedMemoryParams {
  Cycle latency = 300;
  double bytes_per_cycle = 1024;
  std::uint32_t queue = 256;  // requests waiting for service before back-pressure
  std::uint32_t line_bytes = 128;
};

class FixedMemory final : public MemorySystem, public EventTarget {
 public:
  FixedMemory(const FixedMemoryParams& p, Engine& engine, int num_sms);
  void connect(std::uint16_t sm, MemClient* client) override;
  bool try_send(const MemReq& r, Cycle now) override;
  void register_stats(Stats& s) override;
  std::uint64_t in_flight() const override { return in_flight_; }
  std::uint32_t line_bytes() const override { return p_.line_bytes; }
  void on_event(std::uint32_t tag, const Payload& p, Cycle now) override;

 private:
  enum Tag : std::uint32_t { kResponse, kRetry };
  FixedMemoryParams p_;
  Engine& engine_;
  std::vector<MemClient*> clients_;
  double next_free_ = 0;  // cycle (fractional) at which the server can start the next line
  double service_ = 0;    // cycles per line
  std::vector<bool> refused_;
  std::uint64_t in_flight_ = 0;
  std::uint64_t reads_ = 0, writes_ = 0, read_bytes_ = 0, write_bytes_ = 0, refusals_ = 0;
};

}  // namespace simfa::mem
