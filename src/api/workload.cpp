// The workload registry, shape arguments, and the report every workload's run is given.
#include "api/workload.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "api/fa3_workload.h"
#include "api/gemm_workload.h"
#include "sim/error.h"
#include "sim/files.h"

namespace simfa {

namespace {

constinit const Variant<WorkloadKind> kFa3{
    "fa3", "FlashAttention-3's forward kernel on an attention shape (docs/fa3-workload.md)",
    {kFa3Keys, std::size(kFa3Keys), &make_fa3_workload, "fa3."}};
constinit const Variant<WorkloadKind> kGemm{
    "gemm", "a persistent warp-specialized GEMM, CUTLASS 3's Hopper schedules in spirit (docs/workloads.md)",
    {kGemmKeys, std::size(kGemmKeys), &make_gemm_workload, "gemm."}};

const WorkloadKey* find_key(std::string_view key) {
  for (const auto* v : workload_kinds().all())
    for (std::size_t i = 0; i < v->make.num_keys; ++i)
      if (v->make.keys[i].key == key) return &v->make.keys[i];
  return nullptr;
}

}  // namespace

const VariantList<WorkloadKind>& workload_kinds() {
  static const VariantList<WorkloadKind> list("--workload", "workload", {&kFa3, &kGemm});
  return list;
}

void WorkloadArgs::set(std::string key, std::string value) {
  for (auto& [k, v] : values_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  values_.emplace_back(std::move(key), std::move(value));
}

const std::string* WorkloadArgs::find(std::string_view key) const {
  for (const auto& [k, v] : values_)
    if (k == key) return &v;
  return nullptr;
}

std::string WorkloadArgs::label(std::string_view key) const {
  const WorkloadKey* k = find_key(key);
  const std::string flag = k ? std::string(k->flag) : fmt::format("--{}", key);
  switch (style_) {
    case KeyStyle::Flag: return flag;
    case KeyStyle::Keyword: return fmt::format("{} ({})", key, flag);
    case KeyStyle::Column: return fmt::format("column '{}'", key);
  }
  throw InternalError("WorkloadArgs::label: unknown style");
}

std::optional<std::int64_t> WorkloadArgs::integer(std::string_view key) const {
  const std::string* t = find(key);
  if (!t) return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
  if (ec == std::errc() && p == t->data() + t->size()) return v;
  // Python passes whole numbers as floats ("256.0").
  const auto d = real(key);
  if (*d == std::floor(*d) && std::abs(*d) < 9e15) return static_cast<std::int64_t>(*d);
  user_error("{}: expected an integer, got {}", label(key), *t);
}

std::optional<double> WorkloadArgs::real(std::string_view key) const {
  const std::string* t = find(key);
  if (!t) return std::nullopt;
  double v = 0;
  auto [p, ec] = std::from_chars(t->data(), t->data() + t->size(), v);
  if (t->empty() || ec != std::errc() || p != t->data() + t->size() || !std::isfinite(v))
    user_error("{}: expected a number, got {}", label(key), quote(*t));
  return v;
}

std::optional<bool> WorkloadArgs::boolean(std::string_view key) const {
  const std::string* t = find(key);
  if (!t) return std::nullopt;
  std::string s = *t;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "1" || s == "true" || s == "yes") return true;
  if (s == "0" || s == "false" || s == "no") return false;
  user_error("{}: expected 0/1 (or true/false, yes/no), got {}", label(key), quote(*t));
}

std::unique_ptr<Workload> make_workload(std::string_view name, const WorkloadArgs& args, const Config& cfg) {
  require_simulatable(cfg);
  const WorkloadKind& kind = workload_kinds().get(name).make;
  std::string keys;
  for (std::size_t i = 0; i < kind.num_keys; ++i) keys += fmt::format("{}{}", i ? ", " : "", args.label(kind.keys[i].key));
  for (const auto& [key, value] : args.all()) {
    bool known = false;
    for (std::size_t i = 0; i < kind.num_keys; ++i) known = known || kind.keys[i].key == key;
    if (!known) user_error("{} does not apply to the {} workload (its keys: {})", args.label(key), name, keys);
  }
  for (const auto* other : workload_kinds().all()) {
    if (other->name == name || other->make.config_prefix.empty()) continue;
    for (const ParamDesc& d : cfg.registry().all())
      if (std::string_view(d.key).substr(0, other->make.config_prefix.size()) == other->make.config_prefix &&
          cfg.origin(d.key) != "default")
        user_error("{} = {} ({}) configures the {} workload, not {}: drop it, or run that workload", d.key,
                   cfg.render(d.key), cfg.origin(d.key), other->name, name);
  }
  return kind.make(args, cfg);
}

std::vector<PipeUse> Workload::cuda_pipes(const RunResult&, const Config&) const { return {}; }
std::string Workload::cuda_pipes_line(const std::vector<PipeUse>&) const { return {}; }
std::vector<std::string> Workload::warnings() const { return {}; }

std::unique_ptr<OutputFile> start_block_log(Workload& w, const std::string& path, std::string_view what) {
  check_output_path(path, what);
  auto log = std::make_unique<OutputFile>(path);
  if (!w.log_blocks(&log->stream()))
    throw UserError(fmt::format("{}: the {} workload has no KV blocks to log (the FA3 workload has)", what, w.kind()));
  return log;
}

WorkloadFigures workload_figures(const Workload& w, const RunResult& r, const Config& cfg,
                                 const std::string& gpu_name) {
  WorkloadFigures f;
  const int sms = static_cast<int>(cfg.i("gpu.num_sms"));
  const double secs = r.latency_us * 1e-6;
  f.tflops = secs > 0 ? w.nominal_flops() / secs / 1e12 : 0;
  f.peak_tflops = w.tensor_flops_per_cycle(cfg) * sms * r.clock_hz / 1e12;
  f.pipes = w.cuda_pipes(r, cfg);
  f.analytic = w.analytic(cfg, gpu_name);
  return f;
}

std::string workload_report(const Workload& w, const RunResult& r, const Config& cfg, const std::string& clock_why,
                            const WorkloadFigures& f) {
  const AnalyticFigures& an = f.analytic;
  std::string out;
  out += fmt::format("workload          {}\n", w.shape_line());
  out += fmt::format("kernel            {}\n", w.kernel_line());
  out += fmt::format("clock             {}\n", clock_why);
  if (an.ok)
    out += fmt::format("latency           {:.2f} us   ({}: {:.2f} us, {}-bound)\n", r.latency_us, an.name,
                       an.latency_us, an.bound);
  else
    out += fmt::format("latency           {:.2f} us\n", r.latency_us);
  out += fmt::format("throughput        {:.1f} TFLOPS ({:.1f}% of the {:.0f} TFLOPS peak)\n", f.tflops,
                     f.peak_tflops > 0 ? 100.0 * f.tflops / f.peak_tflops : 0.0, f.peak_tflops);
  // The L2 and DRAM statistics exist only where the memory model has an L2 and DRAM.
  const auto l2 = r.find_stat("lts__t_bytes.sum");
  const auto rd = r.find_stat("dram__bytes_read.sum"), wr = r.find_stat("dram__bytes_write.sum");
  const std::string not_modelled = fmt::format("not modelled (mem.model = {})", cfg.s("mem.model"));
  const std::string l2_text = l2 ? fmt::format("{:.4g}", *l2) : not_modelled;
  const std::string dram_text = rd && wr ? fmt::format("{:.4g} / {:.4g} bytes", *rd, *wr) : not_modelled;
  if (an.ok) {
    out += fmt::format("L2 bytes          {}   ({})\n", l2_text, an.l2_note);
    out += fmt::format("DRAM read/write   {}   ({}{})\n", dram_text,
                       rd && wr ? fmt::format("sum {:.4g}; ", *rd + *wr) : "", an.dram_note);
  } else {
    out += fmt::format("L2 bytes          {}\n", l2_text);
    out += fmt::format("DRAM read/write   {}\n", dram_text);
    out += fmt::format("analytic model    not available for this configuration: {}\n", an.error);
  }
  out += fmt::format("tensor core util  {:.1f}%\n", 100.0 * r.stat("gpu.tensor.utilization"));
  out += w.cuda_pipes_line(f.pipes);
  return out;
}

nlohmann::ordered_json workload_result_json(const Workload& w, const RunResult& r, const Config& cfg,
                                            const WorkloadFigures& f) {
  nlohmann::ordered_json j = result_json(r, cfg);
  j["tflops"] = f.tflops;
  j["peak_fraction"] = f.peak_tflops > 0 ? f.tflops / f.peak_tflops : 0.0;
  // Only a memory model with an L2 and DRAM has these (not mem.model = fixed): absent, never 0.
  if (auto v = r.find_stat("lts__t_bytes.sum")) j["l2_bytes"] = *v;
  if (auto v = r.find_stat("dram__bytes_read.sum")) j["dram_read_bytes"] = *v;
  if (auto v = r.find_stat("dram__bytes_write.sum")) j["dram_write_bytes"] = *v;
  nlohmann::ordered_json pipes = {{"tensor", r.stat("gpu.tensor.utilization")}};
  for (const PipeUse& p : f.pipes) pipes[p.name] = p.utilization;
  j["pipe_utilization"] = pipes;
  j["workload"] = w.shape_json();
  j["warnings"] = w.warnings();
  if (f.analytic.ok)
    j["analytic"] = f.analytic.json;
  else
    j["analytic"] = {{"error", f.analytic.error}};
  return j;
}

RunResult run_workload(Workload& w, const Config& cfg, const RunOptions& ro) { return run_trace(w.source(), cfg, ro); }

}  // namespace simfa
