// Fa3LogSource: resolves the kernel of a log, deduplicates its warps into WarpGroups, checks the
// roles, translates every CTA once up front (so a bad log fails before cycle 0), then translates
// each CTA again when the simulator opens it (memory stays one CTA's trace).
#include "translate/fa3_log_source.h"

#include <algorithm>

#include <fmt/format.h>

#include "instr/warpgroups.h"
#include "sim/config.h"
#include "sim/error.h"
#include "translate/log_maps.h"
#include "translate/wg_translate.h"
#include "workload/emitter.h"
#include "workload/tile_scheduler.h"

namespace simfa::translate {

struct Fa3LogSource::Impl {
  instr::EventLog log;
  workload::Fa3Kernel k;
  std::unique_ptr<workload::Fa3Emitter> em;       // refers to k
  std::unique_ptr<workload::TileSchedule> sched;  // refers to k
  instr::DedupResult wgs;
  TranslateCtx ctx;
  std::vector<std::string> warnings;
  std::uint64_t events = 0, instructions = 0;
  bool counting = false;  // the constructor's pass counts events
};

namespace {

// Log clock ticks -> simulated SM cycles, for measured bubbles. clock64 ticks are cycles of the SM
// that ran the work: CUDA-core work takes the same number of cycles at any clock, so they count 1:1
// (the header's rate, often a probe of the idle clock, only converts them to seconds). Nanoseconds
// of %globaltimer become cycles of the simulated clock.
double cycles_per_tick(const instr::EventLog& log, double sim_clock_hz) {
  if (log.header.clock_kind == SIMFA_CLOCK_CLOCK64) return 1.0;
  const double rate = log.header.clock_rate_hz > 0 ? static_cast<double>(log.header.clock_rate_hz) : 1e9;
  return sim_clock_hz / rate;
}

}  // namespace

Fa3LogSource::Fa3LogSource(instr::EventLog log, const Config& cfg, int num_sms, TranslateOptions opt)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.log = std::move(log);
  m.warnings = m.log.warnings;
  m.k = fa3_kernel_from_log(m.log, cfg, num_sms, opt);
  m.em = std::make_unique<workload::Fa3Emitter>(m.k);
  const auto* q = m.log.tensormap(SIMFA_TMAP_Q);
  const auto* kk = m.log.tensormap(SIMFA_TMAP_K);
  const auto* v = m.log.tensormap(SIMFA_TMAP_V);
  // A simfa-attn log does not record where O and the LSE live: the trace puts them after Q, K, V.
  m.em->set_global_bases(q->base, kk->base, v->base,
                         m.k.o_from_registers ? 0 : m.log.tensormap(SIMFA_TMAP_O)->base);
  if (m.k.o_from_registers) m.em->place_outputs_after(std::max({tensor_end(*q), tensor_end(*kk), tensor_end(*v)}));
  m.sched = std::make_unique<workload::TileSchedule>(m.k);
  m.wgs = instr::dedupe_warpgroups(m.log);
  m.warnings.insert(m.warnings.end(), m.wgs.warnings.begin(), m.wgs.warnings.end());
  m.ctx.log = &m.log;
  m.ctx.k = &m.k;
  m.ctx.em = m.em.get();
  m.ctx.sched = m.sched.get();
  m.ctx.bubbles = opt.bubbles;
  if (opt.bubbles == BubbleMode::Measured)
    m.ctx.cycles_per_tick = cycles_per_tick(m.log, cfg.f("gpu.clock"));

  // Roles: WarpGroup 0 produces, the others consume; a stream cut by an overflow cannot be translated.
  bool any_softmax = false;
  for (const auto& cta : m.wgs.ctas) {
    for (const auto& s : cta.wgs) {
      const auto where = [&] {
        return fmt::format("{}: block {} WarpGroup {} (warp {})", m.log.source, cta.block, s.wg, s.representative);
      };
      if (s.truncated)
        user_error("{}: its buffer overflowed after entry {}, so later events are missing; record again with "
                   "more entries per warp",
                   where(), s.events.empty() ? 0 : s.events.size() - 1);
      if (s.wg == 0 && s.role == instr::WgRole::Consumer)
        user_error("{}: records consumer events (WAIT/GEMM), but an FA3 CTA's WarpGroup 0 is the producer", where());
      if (s.wg > 0 && s.role == instr::WgRole::Producer)
        user_error("{}: records producer events (TMA_*_ISSUE), but in an FA3 CTA only WarpGroup 0 loads", where());
      for (const auto& e : s.events) any_softmax = any_softmax || e.event == SIMFA_EV_SOFTMAX_END;
    }
  }
  if (opt.bubbles == BubbleMode::Measured && !any_softmax)
    m.warnings.push_back(m.log.source + ": --bubbles measured, but the log has no SOFTMAX_START / SOFTMAX_END "
                                        "events: every bubble comes from the model");

  // Translate everything once: errors surface now, not in the middle of a simulation.
  m.counting = true;
  for (std::uint32_t c = 0; c < m.k.grid; ++c)
    for (const auto& w : translate_cta(c)) m.instructions += w.code.size();
  m.counting = false;
}

Fa3LogSource::~Fa3LogSource() = default;

const trace::KernelInfo& Fa3LogSource::kernel() const { return impl_->em->kernel_info(); }

std::uint32_t Fa3LogSource::wgs_per_cta(std::uint32_t) const {
  return static_cast<std::uint32_t>(1 + impl_->k.consumer_wgs);
}

std::vector<TranslatedWg> Fa3LogSource::translate_cta(std::uint32_t cta) const {
  Impl& m = *impl_;
  const instr::CtaStreams& s = m.wgs.ctas.at(cta);
  std::vector<TranslatedWg> out;
  ProducerLoads loads;
  WgResult p = translate_producer(m.ctx, cta, s.wgs.at(0), loads);
  std::uint64_t events = p.events;
  out.push_back({"producer", std::move(p.code)});
  for (int c = 0; c < m.k.consumer_wgs; ++c) {
    WgResult r = translate_consumer(m.ctx, cta, c, s.wgs.at(static_cast<std::size_t>(c) + 1), loads);
    events += r.events;
    out.push_back({fmt::format("consumer{}", c), std::move(r.code)});
  }
  if (m.counting) m.events += events;
  return out;
}

trace::CtaProgram Fa3LogSource::open(std::uint32_t cta) {
  trace::CtaProgram p;
  p.id = cta;
  for (auto& w : translate_cta(cta)) {
    std::string origin = fmt::format("{} cta {} {}", impl_->log.source, cta, w.role);
    p.wgs.push_back({w.role, std::make_unique<trace::VectorStream>(std::move(w.code), std::move(origin))});
  }
  return p;
}

const workload::Fa3Kernel& Fa3LogSource::fa3() const { return impl_->k; }
const std::vector<std::string>& Fa3LogSource::warnings() const { return impl_->warnings; }
std::uint64_t Fa3LogSource::events() const { return impl_->events; }
std::uint64_t Fa3LogSource::instructions() const { return impl_->instructions; }

}  // namespace simfa::translate
