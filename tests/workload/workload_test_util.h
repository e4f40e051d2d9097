// Shared helpers of the workload tests: a configuration with the workload keys and small shapes.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "api/run.h"
#include "sim/config.h"
#include "spec/attention.h"
#include "trace/isa.h"
#include "trace/source.h"
#include "workload/params.h"

namespace simfa::workload::testing {

// The full registry: the workload reads the SM's unit throughputs (core keys) besides its own.
inline const ParamRegistry& registry() { return param_registry(); }

inline Config config(const std::vector<std::string>& sets = {}) {
  Config c(registry());
  for (const auto& s : sets) c.apply_assignment(s);
  return c;
}

inline spec::AttentionShape shape(std::int64_t L, std::int64_t S, std::int64_t hkv = 1, std::int64_t g = 1,
                                  std::int64_t d = 128, bool causal = false, std::int64_t b = 1,
                                  spec::DType t = spec::DType::FP16) {
  spec::AttentionShape s;
  s.batch = b;
  s.seqlen_q = L;
  s.seqlen_kv = S;
  s.heads_kv = hkv;
  s.group = g;
  s.head_dim = d;
  s.causal = causal;
  s.dtype = t;
  return s;
}

inline std::vector<trace::Instr> drain(trace::InstrStream& s, std::size_t chunk = 5) {
  std::vector<trace::Instr> v, buf(chunk);
  for (std::size_t n; (n = s.read(buf.data(), chunk)) > 0;) v.insert(v.end(), buf.begin(), buf.begin() + n);
  return v;
}

}  // namespace simfa::workload::testing
