// Tensor Core engine: in-order single pipe; occupancy from the dtype's FLOP rate.
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

Cycle TensorCore::cycles_for(const trace::Instr& in) const {
  double rate = p_.flops_per_cycle_16bit;
  switch (static_cast<trace::DType>(in.dtype)) {
    case trace::DType::E4M3:
    case trace::DType::E5M2: rate = p_.flops_per_cycle_fp8; break;
    case trace::DType::TF32: rate = p_.flops_per_cycle_tf32; break;
    default: break;
  }
  const auto c = static_cast<Cycle>(std::ceil(static_cast<double>(flops_for(in)) / rate));
  return std::max(c, p_.min_wgmma_cycles);
}

Cycle TensorCore::tick(Cycle now) {
  if (running_ || buf_.empty()) return kNever;
  running_ = true;
  busy.set(now, true);
  return now + buf_.front().cycles;
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
