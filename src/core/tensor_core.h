// The SM's Tensor Core engine: one pipeline executing WGMMAs in issue order from a bounded
// instruction buffer. A WGMMA occupies the pipe for ceil(2·M·N·K / flops_per_cycle) cycles
// (N/2 for m64nNk16 FP16) and completes when it leaves the pipe.
#pragma once
#include <cstdint>
#include <deque>

#include "core/params.h"
#include "sim/stats.h"
#include "trace/isa.h"

namespace simfa::core {

struct WgmmaJob {
  std::uint32_t thread = 0;        // physical thread slot
  std::uint64_t group_serial = 0;  // the thread's group record
  Cycle cycles = 0;
  std::uint64_t flops = 0;
};

class TensorCore {
 public:
  explicit TensorCore(const TensorParams& p) : p_(p) {}

  bool full() const { return buf_.size() >= p_.issue_buffer; }
  std::size_t size() const { return buf_.size(); }
  bool startable() const { return !running_ && !buf_.empty(); }
  const WgmmaJob& running() const { return buf_.front(); }
  Cycle cycles_for(const trace::Instr& in) const;
  std::uint64_t flops_for(const trace::Instr& in) const;
  void push(const WgmmaJob& j) { buf_.push_back(j); }

  // Starts the next WGMMA when the pipe is free; returns its completion cycle, or kNever.
  Cycle tick(Cycle now);
  // The running WGMMA finished at `now`: removes and returns it.
  WgmmaJob complete(Cycle now);

  BusyTime busy;
  std::uint64_t wgmmas = 0, flops = 0;

 private:
  TensorParams p_;
  std::deque<WgmmaJob> buf_;  // front is the running one when running_
  bool running_ = false;
};

}  // namespace simfa::core
