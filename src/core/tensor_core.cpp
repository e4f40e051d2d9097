// Tensor Core engine: in-order single pipe; occupancy from the dtype's FLOP rate, the RS extra and
// the SM's slowdown, with the fractional cycles carried from one WGMMA to the next.
#include "core/tensor_core.h"

#include <algorithm>
#include <cmath>

#include "sim/error.h"

namespace simfa::core {

std::uint64_t TensorCore::flops_for(const trace::Instr& in) const {
  // A sparse WGMMA has K = 2 x dense K but does the dense amount of multiply-adds.
  const std::uint64_t k = (in.flags & 2) ? in.k / 2 : in.k;
  return 2ULL * in.m * in.n * k;
}

double TensorCore::cycles_for(const trace::Instr& in) const {
  double rate = p_.flops_per_cycle_16bit;
  switch (static_cast<trace::DType>(in.dtype)) {
    case trace::DType::E4M3:
    case trace::DType::E5M2: rate = p_.flops_per_cycle_fp8; break;
    case trace::DType::TF32: rate = p_.flops_per_cycle_tf32; break;
    default: break;
  }
  const double pipe = static_cast<double>(flops_for(in)) / rate;
  const bool rs = in.mode == static_cast<std::uint8_t>(trace::MmaMode::RS);
  return std::max(pipe, static_cast<double>(p_.min_wgmma_cycles)) + (rs ? p_.rs_extra_cycles : 0.0);
}

Cycle TensorCore::tick(Cycle now, double slowdown) {
  if (running_ || buf_.empty()) return kNever;
  running_ = true;
  busy.set(now, true);
  const double want = buf_.front().cycles * slowdown + carry_;
  const double whole = std::max(1.0, std::floor(want));
  carry_ = want - whole;
  return now + static_cast<Cycle>(whole);
}

WgmmaJob TensorCore::complete(Cycle now) {
  SIMFA_ASSERT(running_ && !buf_.empty(), "tensor core", "completion without a running WGMMA at cycle {}", now);
  WgmmaJob j = buf_.front();
  buf_.pop_front();
  running_ = false;
  busy.set(now, false);
  ++wgmmas;
  flops += j.flops;
  return j;
}

}  // namespace simfa::core
