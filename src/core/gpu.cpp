// GPU: dispatcher (breadth-first: the least-loaded SM group first, lowest index on ties), the run
// loop with its watchdog, and the deadlock report.
#include "core/gpu.h"

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::core {

const char* span_name(SpanKind k) {
  static const char* names[] = {"bubble",        "stage",       "acquire",     "barrier", "wgmma",
                                "tma_store",     "tma_queue",   "wgmma_buffer", "load",   "tma_load",
                                "tma_store_op",  "wgmma_group", "cta"};
  static_assert(std::size(names) == static_cast<std::size_t>(SpanKind::kCount));
  return names[static_cast<int>(k)];
}

Gpu::Gpu(const GpuParams& p, trace::TraceSource& src, Engine& engine, mem::MemorySystem& mem, Observer* obs)
    : p_(p), src_(src), k_(src.kernel()), engine_(engine), mem_(mem) {
  const auto& k = k_;
  // Resources no SM could ever grant: the CTA would wait forever to be admitted.
  if (k.smem > p.sm.smem_bytes)
    throw UserError(fmt::format("kernel '{}': a CTA needs {} bytes of shared memory; an SM has {} (sm.smem)", k.name,
                                k.smem, p.sm.smem_bytes));
  const std::uint32_t wgs = (k.threads + 127) / 128;
  const std::uint32_t slots = p.sm.wg_slots();
  if (wgs > slots)
    throw UserError(fmt::format("kernel '{}': a CTA of {} WarpGroups exceeds the {} WarpGroup slots of an SM "
                                "(sm.max_warps / 4)", k.name, wgs, slots));
  if (k.smem > p.sm.max_smem_per_cta)
    throw UserError(fmt::format("kernel '{}': a CTA needs {} bytes of shared memory; this GPU allows {} per CTA "
                                "(sm.max_smem_per_cta)", k.name, k.smem, p.sm.max_smem_per_cta));
  if (k.regs > p.sm.regs)
    throw UserError(fmt::format("kernel '{}': a CTA needs {} registers; an SM has {} (sm.regs)", k.name, k.regs, p.sm.regs));
  if (k.threads > p.sm.max_warps * 32)
    throw UserError(fmt::format("kernel '{}': a CTA of {} threads exceeds {} warps per SM (sm.max_warps)", k.name,
                                k.threads, p.sm.max_warps));
  if (k.cluster > static_cast<std::uint32_t>(p.num_sms) || p.num_sms % k.cluster != 0)
    throw UserError(fmt::format("kernel '{}': clusters of {} CTAs do not tile {} SMs", k.name, k.cluster, p.num_sms));
  engine.add(this);
  for (int i = 0; i < p.num_sms; ++i) {
    sms_.push_back(std::make_unique<Sm>(static_cast<std::uint16_t>(i), p.sm, k, !src.prevalidated(), engine, mem,
                                        static_cast<SmHost&>(*this), obs));
    engine.add(sms_.back().get());
  }
  cta_sm_.assign(k.ctas, -1);
}

Gpu::~Gpu() = default;

Cycle Gpu::tick(Cycle now) {
  const std::uint32_t c = k_.cluster;
  const std::uint32_t groups = static_cast<std::uint32_t>(sms_.size()) / c;
  while (next_cta_ < k_.ctas) {
    // Least-loaded group that can take a whole cluster; ties go to the lowest index after rr_.
    int best = -1;
    std::uint32_t best_load = ~0u;
    for (std::uint32_t i = 0; i < groups; ++i) {
      const std::uint32_t g = (rr_ + i) % groups;
      bool fits = true;
      std::uint32_t load = 0;
      for (std::uint32_t r = 0; r < c && fits; ++r) {
        fits = sms_[g * c + r]->can_admit(k_);
        load = std::max(load, sms_[g * c + r]->resident_ctas());
      }
      if (fits && load < best_load) best = static_cast<int>(g), best_load = load;
    }
    if (best < 0) break;
    for (std::uint32_t r = 0; r < c; ++r) {
      const std::uint32_t cta = next_cta_ + r;
      trace::CtaProgram prog = src_.open(cta);
      cta_sm_[cta] = static_cast<std::int32_t>(best * c + r);
      sms_[best * c + r]->admit(std::move(prog), r, now + p_.cta_launch_cycles);
      ++dispatched_;
    }
    next_cta_ += c;
    rr_ = (static_cast<std::uint32_t>(best) + 1) % groups;
  }
  return kNever;
}

void Gpu::cta_retired(std::uint16_t sm, std::uint32_t cta, Cycle now) {
  cta_sm_[cta] = -1;
  ++retired_;
  end_ = now;
  progress(now);
  if (next_cta_ < k_.ctas) engine_.wake(this, now + 1);
}

Sm* Gpu::sm_of(std::uint32_t cta) {
  if (cta >= cta_sm_.size() || cta_sm_[cta] < 0) return nullptr;
  return sms_[cta_sm_[cta]].get();
}

GpuResult Gpu::run(const std::function<void(const RunProgress&)>& poll) {
  engine_.wake(this, engine_.now());
  bool stalled = false;
  std::uint32_t polls = 0;
  const bool finished = engine_.run([&] {
    if (retired_ == k_.ctas && mem_.in_flight() == 0) return true;
    if (poll && (++polls & 0xFFFF) == 0) poll(RunProgress{engine_.now(), retired_, k_.ctas});
    if (p_.max_cycles && engine_.now() > p_.max_cycles)
      throw UserError(fmt::format("the run passed sim.max_cycles = {} simulated cycles without finishing ({} of {} CTAs "
                                  "done); raise the limit or set it to 0",
                                  p_.max_cycles, retired_, k_.ctas));
    if (engine_.now() > last_progress_ + p_.watchdog_cycles) {
      // Time passing towards a known end (a long BUBBLE, a delayed CTA launch) is progress too.
      for (const auto& sm : sms_)
        if (sm->has_timed_work(engine_.now())) {
          last_progress_ = engine_.now();
          return false;
        }
      stalled = true;
      return true;
    }
    return false;
  });
  if (!finished || stalled) {
    std::string summary =
        stalled ? fmt::format("no progress for {} cycles (sim.watchdog_cycles) at cycle {}: no instruction issued, "
                              "no memory response arrived, no BUBBLE or CTA launch under way",
                              p_.watchdog_cycles, engine_.now())
                : fmt::format("deadlock at cycle {}: no WarpGroup can make progress", engine_.now());
    summary += fmt::format("; {} of {} CTAs finished", retired_, k_.ctas);
    throw DeadlockError(summary, blocked_report());
  }
  for (auto& sm : sms_) sm->finish(end_);
  GpuResult r;
  r.cycles = end_;
  r.ctas = retired_;
  r.events = engine_.events_processed();
  r.ticks = engine_.ticks_processed();
  return r;
}

std::string Gpu::blocked_report() const {
  std::string out;
  for (const auto& sm : sms_) sm->report_blocked(out);
  if (next_cta_ < k_.ctas) out += fmt::format("  {} CTAs not yet dispatched\n", k_.ctas - next_cta_);
  return out;
}

void Gpu::register_stats(Stats& s) {
  for (auto& sm : sms_) sm->register_stats(s);
  // Counts read during the run (a sampled run's windows) include the responses that have arrived.
  s.before_read([this] {
    for (auto& sm : sms_) sm->settle(engine_.now());
  });
  auto sum = [this](auto field) {
    return [this, field] {
      double v = 0;
      for (const auto& sm : sms_) v += static_cast<double>(field(*sm));
      return v;
    };
  };
  s.formula("gpu.instructions", sum([](const Sm& m) { return m.counters().issued; }), "instructions",
            "WarpGroup instructions issued on all SMs");
  s.formula("gpu.tensor.flops", sum([](const Sm& m) { return m.tensor().flops; }), "FLOP", "tensor FLOPs executed");
  s.formula("gpu.tensor.wgmmas", sum([](const Sm& m) { return m.tensor().wgmmas; }), "instructions",
            "WGMMAs executed");
  s.formula("gpu.tensor.utilization",
            [this, f = sum([](const Sm& m) { return m.tensor().busy.total(0); })] {
              return end_ ? f() / (static_cast<double>(end_) * static_cast<double>(sms_.size())) : 0.0;
            },
            "fraction", "tensor-pipe busy cycles over cycles x SMs");
}

}  // namespace simfa::core
