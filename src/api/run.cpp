// run_trace: builds engine, memory system and GPU from the configuration, runs, and collects the
// statistics into JSON before the components go away.
#include "api/run.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include <fmt/format.h>

#include "core/gpu.h"
#include "core/params.h"
#include "core/tma_lines.h"
#include "mem/port.h"
#include "sim/engine.h"
#include "sim/error.h"
#include "sim/stats.h"
#include "sim/variants.h"

namespace simfa {

namespace {
struct AblationSwitch {
  const char* key;
  const char* value;
};
// Table 5 of the paper: each ablation's doc is the table's wording.
constinit const Variant<AblationSwitch> kNoLrc{"no-lrc", "No LRC", {"mem.lrc.enabled", "false"}};
constinit const Variant<AblationSwitch> kSimpleHash{"simple-hash", "Oversimplified hash", {"mem.l2.hash", "last-bits"}};
constinit const Variant<AblationSwitch> kNoDedup{"no-dedup", "No line deduplication", {"tma.dedup", "false"}};
const VariantList<AblationSwitch>& ablations() {
  static const VariantList<AblationSwitch> list("--ablate", "ablation", {&kNoLrc, &kSimpleHash, &kNoDedup});
  return list;
}
}  // namespace

const std::vector<std::string>& ablation_names() {
  static const std::vector<std::string> names = ablations().names();
  return names;
}

std::string ablation_label(std::string_view name) {
  const auto& a = ablations().get(name);
  return fmt::format("{} ({})", a.doc, a.name);
}

void set_clock_mhz(Config& cfg, double mhz, std::string_view what, std::string_view origin) {
  if (!(mhz >= 1)) user_error("{} must be at least 1 (MHz), got {}", what, mhz);
  cfg.set("gpu.clock", fmt::format("{}MHz", mhz), std::string(origin));
}

ClockChoice apply_clock_model(Config& cfg) {
  ClockChoice c;
  c.requested_hz = cfg.f("gpu.clock");
  c.effective_hz = c.requested_hz;
  const double limit = cfg.f("gpu.power_limited_clock");
  switch (core::clock_models().get(cfg.s("gpu.clock_model")).make) {
    case core::ClockModel::Fixed:
      c.why = fmt::format("{:.0f} MHz: gpu.clock as given ({}; gpu.clock_model = fixed)", c.requested_hz / 1e6,
                          cfg.origin("gpu.clock"));
      break;
    case core::ClockModel::PowerLimited:
      if (limit > 0 && limit < c.requested_hz) {
        c.effective_hz = limit;
        c.why = fmt::format("{:.0f} MHz: power-limited (gpu.power_limited_clock, {}; gpu.clock {:.0f} MHz requested)",
                            limit / 1e6, cfg.origin("gpu.power_limited_clock"), c.requested_hz / 1e6);
        cfg.set("gpu.clock", fmt::format("{}Hz", limit), "gpu.clock_model = power-limited");
      } else {
        c.why = fmt::format("{:.0f} MHz: gpu.clock ({}; at or below the power limit{})", c.requested_hz / 1e6,
                            cfg.origin("gpu.clock"),
                            limit > 0 ? fmt::format(" of {:.0f} MHz", limit / 1e6) : " (none set)");
      }
      break;
  }
  return c;
}

void apply_ablation(Config& cfg, std::string_view name) {
  const auto& a = ablations().get(name);
  cfg.set(a.make.key, a.make.value, fmt::format("--ablate {}", name));
}

void require_simulatable(const Config& cfg) {
  const auto& arch = core::gpu_archs().get(cfg.s("gpu.arch"));
  if (arch.make.simulated) return;
  user_error("gpu.arch = {} ({}, {}): simfa's cycle simulator models Hopper (sm_90) SMs only; simulating this GPU "
             "would need {}. The analytic model covers it: simfa analyze, simfa plot, Python simfa.analyze",
             arch.name, cfg.s("gpu.name"), cfg.origin("gpu.arch"), arch.make.missing);
}

void refuse_workload_keys(const Config& cfg, std::string_view command, std::string_view why) {
  for (const ParamDesc& d : cfg.registry().all())
    for (std::string_view prefix : {"fa3.", "gemm.", "sample.", "model."})
      if (cfg.origin(d.key) == "--set" && std::string_view(d.key).substr(0, prefix.size()) == prefix)
        user_error("--set {}={}: {} does not read {}* keys, which configure a workload or the analytic model ({})",
                   d.key, cfg.render(d.key), command, prefix, why);
}

void set_alias(Config& cfg, std::string_view key, std::string_view value, std::string_view origin) {
  Config probe = cfg;
  probe.set(key, value, origin);
  if (cfg.origin(key) == "--set" && probe.render(key) != cfg.render(key))
    user_error("{} {} contradicts --set {}={}: they name the same key; give one", origin, value, key, cfg.render(key));
  cfg = std::move(probe);
}

Config make_config(std::string_view gpu, const std::vector<std::string>& sets,
                   const std::vector<std::string>& ablations) {
  Config cfg(param_registry());
  if (!gpu.empty()) cfg.load_gpu(gpu);
  for (const auto& s : sets) cfg.apply_assignment(s, "--set");
  for (const auto& a : ablations) apply_ablation(cfg, a);
  return cfg;
}

double RunResult::stat(const std::string& name) const {
  if (auto v = find_stat(name)) return *v;
  throw InternalError(fmt::format("no statistic '{}' in this run", name));
}

std::optional<double> RunResult::find_stat(const std::string& name) const {
  auto it = stats.find(name);
  if (it == stats.end()) return std::nullopt;
  return it->get<double>();
}

namespace {

// The GPU side of a sampled run's span replay: a skipped TMA copy becomes the lines the TMA unit
// would have requested (the same expansion as a detailed copy's) and each goes to the memory
// system's replay slices.
class MemReplay final : public trace::CopyReplay {
 public:
  MemReplay(const trace::KernelInfo& k, const core::Gpu& gpu, mem::MemorySystem& mem, std::uint32_t line_bytes,
            Engine& engine)
      : k_(k), gpu_(gpu), mem_(mem), line_bytes_(line_bytes), engine_(engine) {}
  void call_at(EventTarget* target, std::uint32_t tag, Cycle t) override { engine_.send(target, tag, Payload{}, t); }
  bool quiescent(Cycle now) const override { return mem_.in_flight() == 0 && gpu_.all_asleep(now); }
  std::uint64_t bytes(const trace::Instr& in) const override {
    const bool copy = in.op == trace::Op::TMA_TENSOR || in.op == trace::Op::TMA_BULK || in.op == trace::Op::TMA_STORE;
    return copy ? core::copy_bytes(k_, in) : 0;
  }
  double dram_peak_bytes_per_cycle() const override { return mem_.dram_peak_bytes_per_cycle(); }
  void replay(const trace::Instr& in, std::uint32_t cta, bool warm) override {
    using trace::Op;
    if (in.op != Op::TMA_TENSOR && in.op != Op::TMA_BULK && in.op != Op::TMA_STORE) return;
    const int sm = gpu_.cta_sm(cta);
    const bool write = in.op == Op::TMA_STORE;
    core::BoxPattern p;  // a tensor copy's lines, as the TMA unit reads them
    if (in.op != Op::TMA_BULK && patterns_.find(k_.tmap(in.map), in.gmem, true, line_bytes_, p)) {
      for (std::uint32_t i = 0; i < p.size; ++i)
        mem_.replay(p.base + p.lines[i].line, p.lines[i].sectors, write, warm, sm);
      return;
    }
    expand(in);
    for (const core::LineReq& l : lines_) mem_.replay(l.line, l.sectors, write, warm, sm);
  }
  std::uint32_t prepare(const trace::Instr& in) override {
    using trace::Op;
    const Key key{in.gmem, in.map, static_cast<std::uint8_t>(in.op), in.op == Op::TMA_BULK ? in.bytes() : 0u};
    const auto [it, fresh] = ids_.try_emplace(key, static_cast<std::uint32_t>(prepared_.size()));
    if (fresh) {
      Prepared p{static_cast<std::uint32_t>(kept_.size()), 0, in.op == Op::TMA_STORE};
      if (in.op == Op::TMA_TENSOR || in.op == Op::TMA_BULK || in.op == Op::TMA_STORE) {
        expand(in);
        // Only lines homed in a replay slice (and a counted set) are counted.
        for (const core::LineReq& l : lines_)
          if (mem_.replay_counts_line(l.line)) kept_.push_back({l.line, mem_.home_of(l.line), l.sectors});
      }
      p.end = static_cast<std::uint32_t>(kept_.size());
      prepared_.push_back(p);
    }
    return it->second;
  }
  void replay_prepared(std::uint32_t id, std::uint32_t cta) override {
    const Prepared& p = prepared_[id];
    const int sm = gpu_.cta_sm(cta);
    for (std::uint32_t i = p.begin; i < p.end; ++i)
      mem_.replay_counted(kept_[i].line, kept_[i].home, kept_[i].sectors, p.write, sm);
  }
  std::size_t prepared_lines() const override { return kept_.size() + prepared_.size(); }
  void quiet_until(Cycle t) override { mem_.quiet_until(t); }
  void forget() override {
    ids_.clear();
    prepared_.clear();
    kept_.clear();
  }
  void set_set_stride(std::uint32_t k) override { mem_.set_replay_set_stride(k); }
  double replay_sets() const override { return mem_.replay_sets(); }
  std::uint32_t line_bytes() const override { return line_bytes_; }
  Counts counts() const override {
    const mem::MemorySystem::ReplayCounts r = mem_.replay_counts();
    return {r.lines, r.scale, r.read_bytes, r.write_bytes, r.run_read_bytes, r.run_write_bytes, r.run_read_misses,
            r.run_evictions, r.run_probes, r.run_shadow_hits, r.run_shadow_inserts};
  }

 private:
  void expand(const trace::Instr& in) {
    lines_.clear();
    core::copy_lines(k_, in, line_bytes_, lines_);
  }
  struct Key {
    Addr gmem;
    std::uint16_t map;
    std::uint8_t op;
    std::uint64_t bytes;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<std::uint64_t>()(k.gmem * 0x9E3779B97F4A7C15ULL ^ (std::uint64_t{k.map} << 8 | k.op) ^ (k.bytes << 20));
    }
  };
  struct Prepared {
    std::uint32_t begin, end;  // its counted lines in kept_
    bool write;
  };

  const trace::KernelInfo& k_;
  const core::Gpu& gpu_;
  mem::MemorySystem& mem_;
  std::uint32_t line_bytes_;
  Engine& engine_;
  std::vector<core::LineReq> lines_;
  core::BoxPatterns patterns_;
  std::unordered_map<Key, std::uint32_t, KeyHash> ids_;  // prepared copies
  std::vector<Prepared> prepared_;
  struct Kept {  // a counted line of a prepared copy
    Addr line;
    std::uint32_t home;
    std::uint8_t sectors;
  };
  std::vector<Kept> kept_;
};

}  // namespace

RunResult run_trace(trace::TraceSource& src, const Config& cfg, const RunOptions& opts) {
  require_simulatable(cfg);
  const core::GpuParams gp = core::gpu_params(cfg);
  Engine engine(opts.skip_idle);
  auto mem = mem::make_memory_system(cfg, engine, gp.num_sms);
  core::Gpu gpu(gp, src, engine, *mem, opts.observer);
  Stats stats;
  gpu.register_stats(stats);
  mem->register_stats(stats);
  const auto t0 = std::chrono::steady_clock::now();
  // Span replay (docs/sampling.md): every sample.replay_slice_stride-th L2 slice counts the
  // skipped work's memory traffic.
  MemReplay replay(src.kernel(), gpu, *mem, gp.sm.tma.line_bytes, engine);
  const bool sampled = cfg.s("sample.mode") == "on" && cfg.i("sample.replay_slice_stride") > 0;
  if (sampled) mem->enable_replay(static_cast<std::uint32_t>(cfg.i("sample.replay_slice_stride")));
  src.run_started(engine, stats, sampled ? &replay : nullptr);
  const core::GpuResult g = gpu.run(opts.poll);
  src.run_finished(g.cycles, stats);
  mem->discount_warm_writebacks();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunResult r;
  r.cycles = g.cycles;
  r.clock_hz = gp.clock_hz;
  r.latency_us = static_cast<double>(g.cycles) / gp.clock_hz * 1e6;
  r.sim_wall_s = wall;
  r.sim_cycles_per_s = wall > 0 ? static_cast<double>(g.cycles) / wall : 0;
  r.ctas = g.ctas;
  r.events = g.events;
  r.ticks = g.ticks;
  r.sampling = src.sampling();
  stats.formula("gpu.cycles", [c = g.cycles] { return static_cast<double>(c); }, "cycles",
                "kernel duration in SM cycles");
  stats.formula("gpu__time_duration.sum", [ns = r.latency_us * 1e3] { return ns; }, "ns",
                "kernel duration (Nsight Compute name)");
  r.stats = stats.values_json();
  r.stat_docs = stats.docs_json();
  return r;
}

namespace {
nlohmann::ordered_json first_reads_json(const std::vector<trace::FirstReadSpan>& spans) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const trace::FirstReadSpan& s : spans)
    a.push_back({{"first_read_cycles", s.first_read_cycles},
                 {"hit_cycles", s.hit_cycles},
                 {"planned_first_share", s.planned_first_share}});
  return a;
}
nlohmann::ordered_json span_costs_json(const std::vector<trace::SpanCost>& spans) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const trace::SpanCost& s : spans)
    a.push_back({{"block_cycles", s.block_cycles},
                 {"tile_start_cycles", s.tile_start_cycles},
                 {"resume_cycles", s.resume_cycles}});
  return a;
}
}  // namespace

nlohmann::ordered_json result_json(const RunResult& r, const Config& cfg) {
  nlohmann::ordered_json j;
  j["cycles"] = r.cycles;
  j["latency_us"] = r.latency_us;
  j["clock_hz"] = r.clock_hz;
  j["ctas"] = r.ctas;
  j["sim_wall_s"] = r.sim_wall_s;
  j["sim_cycles_per_s"] = r.sim_cycles_per_s;
  j["sim_events"] = r.events;
  j["sim_ticks"] = r.ticks;
  j["sampling"] = {{"requested", r.sampling.requested},
                   {"sampled", r.sampling.sampled},
                   {"note", r.sampling.note},
                   {"detail_fraction", r.sampling.detail_fraction},
                   {"error_estimate", r.sampling.error_estimate},
                   {"spans", r.sampling.spans},
                   {"check_errors", r.sampling.check_errors},
                   {"l2_sectors_per_block", r.sampling.l2_sectors_per_block},
                   {"drift_bounds", r.sampling.drift_bounds},
                   {"pair_offsets", r.sampling.pair_offsets},
                   {"first_reads", first_reads_json(r.sampling.first_reads)},
                   {"span_costs", span_costs_json(r.sampling.span_costs)},
                   {"warning", r.sampling.warning},
                   {"phase_wall_s", {{"steady_state_search", r.sampling.wall_search_s},
                                     {"spans", r.sampling.wall_spans_s},
                                     {"checks", r.sampling.wall_checks_s},
                                     {"tail", r.sampling.wall_tail_s}}},
                   {"replay", {{"lines", r.sampling.replay_lines},
                               {"set_stride", r.sampling.replay_set_stride},
                               {"dram_read_bytes", r.sampling.replay_read_bytes},
                               {"dram_write_bytes", r.sampling.replay_write_bytes}}}};
  j["config"] = cfg.to_json();
  j["stats"] = r.stats;
  j["stat_docs"] = r.stat_docs;
  return j;
}

}  // namespace simfa
