// Internal: a log's TensorMap records as the translator uses them.
#pragma once
#include <cstdint>

#include "instr/event_log.h"
#include "trace/isa.h"

namespace simfa::translate {
// Same geometry, same id, base kept (strides[0] is the element size in both).
trace::TensorMap to_trace_map(const simfa_tensormap_desc& d);
// The record with dimensions 1.. listed in ascending stride order and the box clipped to the
// tensor. A TensorMap addresses the same bytes whatever order its dimensions come in (CUDA takes
// any: simfa-attn encodes BSHD as [D, S, H, B]), but the trace lists them innermost first (the TMA
// engine locates a box from its address that way) and the kernel resolution reads FA3's
// [D, H, S, B]. A box longer than its dimension fetches only the tensor (TMA zero-fills the rest).
simfa_tensormap_desc normalized(const simfa_tensormap_desc& d);
// One past the tensor's last byte.
std::uint64_t tensor_end(const simfa_tensormap_desc& d);
}  // namespace simfa::translate
