// Fa3Source: opens a CTA as one producer and N consumer coroutine-backed instruction streams.
#include "workload/fa3_source.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/config.h"

namespace simfa::workload {

namespace {

// An InstrStream over a StepGen: refills its buffer one step at a time.
class GenStream final : public trace::InstrStream {
 public:
  // one_step: read() returns at most the rest of one step, so that the next step is generated
  // when the WarpGroup has issued the previous one (the sampler's clock readings; sampled runs).
  GenStream(std::string name, bool one_step = false) : name_(std::move(name)), one_step_(one_step) {}
  void start(StepGen g) { gen_ = std::move(g); }
  std::vector<trace::Instr>* buffer() { return &buf_; }

  std::size_t read(trace::Instr* out, std::size_t max) override {
    std::size_t n = 0;
    while (n < max) {
      if (pos_ == buf_.size()) {
        if (one_step_ && n > 0) break;
        buf_.clear();
        pos_ = 0;
        while (buf_.empty() && !gen_.done()) gen_.step();
        if (buf_.empty()) break;
      }
      const std::size_t take = std::min(max - n, buf_.size() - pos_);
      std::copy_n(buf_.begin() + static_cast<std::ptrdiff_t>(pos_), take, out + n);
      pos_ += take;
      n += take;
    }
    return n;
  }
  std::string where(std::uint64_t index) const override {
    return fmt::format("{} instruction {}", name_, index);
  }

 private:
  std::string name_;
  bool one_step_ = false;
  std::vector<trace::Instr> buf_;
  std::size_t pos_ = 0;
  StepGen gen_;  // declared last: destroyed first, while the buffer it points to still exists
};

}  // namespace

Fa3Source::Fa3Source(const spec::AttentionShape& shape, const Config& cfg, int num_sms)
    : Fa3Source(resolve_fa3(shape, cfg, num_sms)) {
  const SampleParams sp = SampleParams::from_config(cfg);
  if (sp.on) sampler_ = std::make_unique<Fa3Sampler>(*plan_, sp);
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
  if (sampler_) return sampler_->report();
  trace::SamplingReport r;
  r.note = "full detail";
  return r;
}

}  // namespace simfa::workload
