// Internal: conversion of a log's TensorMap record to the trace ISA's TensorMap.
#pragma once
#include "instr/event_log.h"
#include "trace/isa.h"

namespace simfa::translate {
// Same geometry, same id, base kept (strides[0] is the element size in both).
trace::TensorMap to_trace_map(const simfa_tensormap_desc& d);
}  // namespace simfa::translate
