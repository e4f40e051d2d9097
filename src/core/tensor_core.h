// The SM's Tensor Core engine: one pipeline executing WGMMAs in issue order from a bounded
// instruction buffer. A WGMMA occupies the pipe for 2·M·N·K / flops_per_cycle cycles (N/2 for
// m64nNk16 FP16), plus rs_extra_cycles when A comes from registers (RS), times a slowdown the SM
// passes in (RS WGMMAs next to CUDA-core work); fractions carry over to the next WGMMA, so long
// runs keep the measured average. The pipe frees when the WGMMA leaves it; the SM makes the
// result visible to wait_group a tail later (docs/architecture.md, "WGMMA timing").
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
  double cycles = 0;               // pipe occupancy before any slowdown
  std::uint64_t flops = 0;
  bool rs = false;                 // A from registers
};

class TensorCore {
 public:
  explicit TensorCore(const TensorParams& p) : p_(p) {}

  bool full() const { return buf_.size() >= p_.issue_buffer; }
  std::size_t size() const { return buf_.size(); }
  bool startable() const { return !running_ && !buf_.empty(); }
  bool running() const { return running_; }
  const WgmmaJob& front() const { return buf_.front(); }  // the running or next WGMMA
  double cycles_for(const trace::Instr& in) const;
  std::uint64_t flops_for(const trace::Instr& in) const;
  void push(const WgmmaJob& j) { buf_.push_back(j); }

  // Starts the next WGMMA when the pipe is free, its occupancy multiplied by `slowdown`; returns
  // the cycle it leaves the pipe, or kNever.
  Cycle tick(Cycle now, double slowdown = 1.0);
  // The running WGMMA left the pipe at `now`: removes and returns it.
  WgmmaJob complete(Cycle now);

  BusyTime busy;
  std::uint64_t wgmmas = 0, flops = 0;

 private:
  TensorParams p_;
  std::deque<WgmmaJob> buf_;  // front is the running one when running_
  bool running_ = false;
  double carry_ = 0;  // fraction of a cycle owed to the next WGMMA
};

}  // namespace simfa::core
