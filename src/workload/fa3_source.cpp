// Fa3Source: opens a CTA as one producer and N consumer coroutine-backed instruction streams.
#include "workload/fa3_source.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config.h"
#include "workload/gen_stream.h"

namespace simfa::workload {

Fa3Source::Fa3Source(const spec::AttentionShape& shape, const Config& cfg, int num_sms)
    : Fa3Source(resolve_fa3(shape, cfg, num_sms)) {
  sp_ = SampleParams::from_config(cfg);
  if (sp_.on) sampler_ = std::make_unique<Fa3Sampler>(*plan_, sp_);
}

void Fa3Source::log_blocks(std::ostream* os) {
  if (!sampler_) sampler_ = std::make_unique<Fa3Sampler>(*plan_, sp_);
  sampler_->log_blocks(os);
}

Fa3Source::Fa3Source(Fa3Kernel kernel) : plan_(std::make_shared<const Fa3Plan>(std::move(kernel))) {}

std::uint32_t Fa3Source::wgs_per_cta(std::uint32_t) const {
  return static_cast<std::uint32_t>(1 + plan_->k.consumer_wgs);
}

trace::CtaProgram Fa3Source::open(std::uint32_t cta) {
  trace::CtaProgram p;
  p.id = cta;
  Fa3Sampler* smp = sampler_.get();
  auto prod = std::make_unique<GenStream>(fmt::format("fa3 cta {} producer", cta), smp != nullptr);
  prod->start(producer_program(plan_, cta, prod->buffer(), smp));
  p.wgs.push_back({"producer", std::move(prod)});
  for (int c = 0; c < plan_->k.consumer_wgs; ++c) {
    auto s = std::make_unique<GenStream>(fmt::format("fa3 cta {} consumer {}", cta, c), smp != nullptr);
    s->start(consumer_program(plan_, cta, c, s->buffer(), smp));
    p.wgs.push_back({fmt::format("consumer{}", c), std::move(s)});
  }
  return p;
}

void Fa3Source::run_started(const Engine& engine, Stats& stats, trace::CopyReplay* replay) {
  if (sampler_) sampler_->attach(engine, stats, replay);
}

void Fa3Source::run_finished(Cycle end, Stats& stats) {
  if (sampler_) sampler_->finish(end, stats);
}

trace::SamplingReport Fa3Source::sampling() const {
  if (sp_.on) return sampler_->report();
  trace::SamplingReport r;
  r.note = "full detail";
  return r;
}

}  // namespace simfa::workload
