// The whole GPU: a CTA dispatcher, the SMs and the memory system, run on one engine until every
// CTA has retired. Clusters are placed on aligned groups of `cluster` consecutive SMs.
#pragma once
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/observer.h"
#include "core/params.h"
#include "core/sm.h"
#include "mem/port.h"
#include "sim/engine.h"
#include "sim/stats.h"
#include "trace/source.h"

namespace simfa::core {

// Where a run stands, for progress reports (RunOptions::poll).
struct RunProgress {
  Cycle cycle = 0;
  std::uint64_t ctas_done = 0, ctas_total = 0;
};

struct GpuResult {
  Cycle cycles = 0;            // kernel duration: cycle of the last CTA's retirement
  std::uint64_t ctas = 0;
  std::uint64_t events = 0, ticks = 0;
};

class Gpu final : public Component, private SmHost {
 public:
  // The memory system must already be built on `engine` for p.num_sms SMs.
  Gpu(const GpuParams& p, trace::TraceSource& src, Engine& engine, mem::MemorySystem& mem, Observer* obs);
  ~Gpu() override;

  // Runs the kernel to its end. Throws DeadlockError (with a report of every blocked WarpGroup) when
  // the kernel cannot finish, UserError for traces the GPU cannot run or past sim.max_cycles.
  // `poll`, when set, is called every 65,536 engine steps with where the run stands (Ctrl-C in
  // Python and the CLI, progress lines); an exception it throws ends the run.
  GpuResult run(const std::function<void(const RunProgress&)>& poll = {});
  void register_stats(Stats& s);
  const std::vector<std::unique_ptr<Sm>>& sms() const { return sms_; }
  // The SM CTA `cta` runs on, or -1 when it is not resident (sampled runs' span replay).
  int cta_sm(std::uint32_t cta) const { return cta < cta_sm_.size() ? cta_sm_[cta] : -1; }
  // Sampled runs: every SM's running WarpGroups sleep through a span and its TMA unit is idle.
  bool all_asleep(Cycle now) const {
    for (const auto& s : sms_)
      if (!s->asleep(now)) return false;
    return true;
  }

  Cycle tick(Cycle now) override;  // the dispatcher

 private:
  void cta_retired(std::uint16_t sm, std::uint32_t cta, Cycle now) override;
  Sm* sm_of(std::uint32_t cta) override;
  BoxPatterns& box_patterns() override { return box_patterns_; }
  std::string blocked_report() const;

  GpuParams p_;
  trace::TraceSource& src_;
  const trace::KernelInfo& k_;
  Engine& engine_;
  mem::MemorySystem& mem_;
  BoxPatterns box_patterns_;  // the TMA units' line patterns, shared by every SM
  std::vector<std::unique_ptr<Sm>> sms_;
  std::vector<std::int32_t> cta_sm_;  // SM of each resident CTA, -1 otherwise
  std::uint32_t next_cta_ = 0;
  std::uint64_t retired_ = 0;
  Cycle end_ = 0;
  std::uint32_t rr_ = 0;  // where the dispatcher starts looking
  std::uint64_t dispatched_ = 0;
};

}  // namespace simfa::core
