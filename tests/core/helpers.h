// Helpers for core tests: hand-built traces run on one SM with a fixed-latency memory.
#pragma once
#include <string>
#include <vector>

#include "api/run.h"
#include "core/observer.h"
#include "trace/io.h"
#include "trace/source.h"

namespace simfa::test {

using trace::DType;
using trace::Instr;
using trace::MmaMode;

// A kernel with one CTA per entry of `ctas`, each a list of WarpGroup instruction lists.
inline trace::MemoryTrace make_trace(const std::vector<std::vector<std::vector<Instr>>>& ctas,
                                     trace::KernelInfo info = {}) {
  trace::MemoryTrace t;
  t.info = std::move(info);
  for (std::uint32_t c = 0; c < ctas.size(); ++c) {
    trace::CtaData cta;
    cta.id = c;
    for (std::uint32_t w = 0; w < ctas[c].size(); ++w) {
      trace::WgData wg;
      wg.index = w;
      wg.code = ctas[c][w];
      cta.wgs.push_back(std::move(wg));
    }
    t.ctas.push_back(std::move(cta));
  }
  t.finalize();
  return t;
}

// One SM, memory answering 100 cycles after service starts, bandwidth high enough not to matter.
inline std::vector<std::string> small_gpu(std::vector<std::string> extra = {}) {
  std::vector<std::string> s = {"gpu.num_sms=1", "mem.model=fixed", "mem.fixed.latency=100",
                                "mem.fixed.bytes_per_cycle=1000000"};
  s.insert(s.end(), extra.begin(), extra.end());
  return s;
}

inline RunResult run(trace::MemoryTrace t, const std::vector<std::string>& sets, bool skip = true,
                     core::Observer* obs = nullptr) {
  Config cfg = make_config("h800", sets);
  RunOptions o;
  o.skip_idle = skip;
  o.observer = obs;
  return run_trace(t, cfg, o);
}

// Records every span.
struct Recorder : core::Observer {
  std::vector<core::Span> spans;
  bool wants(std::uint16_t) const override { return true; }
  void span(const core::Span& s) override { spans.push_back(s); }
  std::vector<core::Span> of(core::SpanKind k) const {
    std::vector<core::Span> v;
    for (const auto& s : spans)
      if (s.kind == k) v.push_back(s);
    return v;
  }
};

inline Instr wgmma(std::uint16_t n, std::uint16_t gid) {
  return Instr::wgmma(0, 0, 0, 64, n, 16, DType::F16, true, MmaMode::SS, false, gid);
}

}  // namespace simfa::test
