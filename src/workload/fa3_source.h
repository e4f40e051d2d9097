// Fa3Source: a TraceSource that synthesizes the FA3 forward kernel for an attention shape. Each
// CTA's producer and consumer WarpGroups are generated lazily, one pipeline step at a time, while
// the simulator pulls them; nothing proportional to the sequence length is held in memory.
#pragma once
#include <cstdint>
#include <memory>

#include "spec/attention.h"
#include "trace/source.h"
#include "workload/programs.h"
#include "workload/sampler.h"

namespace simfa {
class Config;
}

namespace simfa::workload {

class Fa3Source final : public trace::TraceSource {
 public:
  // Resolves the kernel from the fa3.* / sm.* keys of `cfg` for a GPU with `num_sms` SMs.
  Fa3Source(const spec::AttentionShape& shape, const Config& cfg, int num_sms);
  explicit Fa3Source(Fa3Kernel kernel);

  const trace::KernelInfo& kernel() const override { return plan_->em.kernel_info(); }
  std::uint32_t wgs_per_cta(std::uint32_t cta) const override;
  trace::CtaProgram open(std::uint32_t cta) override;
  bool prevalidated() const override { return false; }
  void run_started(const Engine& engine, Stats& stats, trace::CopyReplay* replay) override;
  void run_finished(Cycle end, Stats& stats) override;
  trace::SamplingReport sampling() const override;

  // The block log (simfa run --block-log): every block consumer 0 starts in detail, a CSV line to
  // `os`, which must outlive the run. Call before the run. With sampling off a sampler is made
  // that only logs (the same results: it cuts nothing).
  void log_blocks(std::ostream* os);

  const Fa3Kernel& fa3() const { return plan_->k; }
  const Fa3Plan& plan() const { return *plan_; }

 private:
  std::shared_ptr<const Fa3Plan> plan_;
  SampleParams sp_;
  std::unique_ptr<Fa3Sampler> sampler_;  // sample.mode = on, or a block log
};

}  // namespace simfa::workload
