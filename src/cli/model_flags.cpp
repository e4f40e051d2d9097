// Workload/model flags, --sweep expansion (ranges, geometric ranges, lists; cartesian product)
// and evaluation of each point with the analytic model.
#include "cli/model_flags.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "api/run.h"
#include "model/fields.h"
#include "model/inputs.h"
#include "sim/error.h"
#include "sim/units.h"

namespace simfa::cli {
namespace {

// The shape keys a --sweep may vary (integers; K and M suffixes).
constexpr const char* kShapeSweepKeys[] = {"batch", "seqlen", "seqlen_q", "seqlen_kv", "heads_kv", "group",
                                           "head_dim"};

// The model's flags, each an exact alias of a configuration key. `sweep` is the flag's old --sweep
// name (also the Python keyword); `suffix` turns the flag's value into the key's ("MiB": the
// flag's unit), `auto_value` what its "auto" is.
struct ModelAlias {
  const char* flag;
  std::string ModelFlags::*field;
  const char* key;
  const char* sweep;
  const char* suffix;
  const char* auto_value;
  const char* doc;
  const char* type;
};
const ModelAlias kModelAliases[] = {
    {"--kernel", &ModelFlags::kernel, "fa3.kernel", nullptr, "", nullptr,
     "alias of --set fa3.kernel=NAME: fa3, simfa-attn or cutile (paper §6: 64x32)", "NAME"},
    {"--tile-m", &ModelFlags::tile_m, "fa3.tile_m", "tile_m", "", nullptr,
     "alias of --set fa3.tile_m=N: T_M, query rows per CTA (0: the kernel's)", "N"},
    {"--tile-n", &ModelFlags::tile_n, "fa3.tile_n", "tile_n", "", nullptr,
     "alias of --set fa3.tile_n=N: T_N, KV rows per block (0: the kernel's)", "N"},
    {"--occupancy", &ModelFlags::occupancy, "model.occupancy", "occupancy", "", nullptr,
     "alias of --set model.occupancy=N: O_limit, resident CTAs per SM (0: the kernel's, 1)", "N"},
    {"--num-sms", &ModelFlags::num_sms, "gpu.num_sms", "num_sms", "", nullptr,
     "alias of --set gpu.num_sms=N: N_SM", "N"},
    {"--l2-effective-mib", &ModelFlags::l2_effective_mib, "model.l2_effective", "l2_effective_mib", "MiB", nullptr,
     "alias of --set model.l2_effective=XMiB: L2 capacity of the ideal-cache condition (0: L2 / partitions)", "X"},
    {"--splits", &ModelFlags::splits, "fa3.splits", "splits", "", "0",
     "alias of --set fa3.splits=N: split-KV pieces, auto (0: FA3's heuristic) or N (1: none)", "auto|N"},
    {"--pack-gqa", &ModelFlags::pack_gqa, "fa3.pack_gqa", nullptr, "", nullptr,
     "alias of --set fa3.pack_gqa=X: PackGQA auto (FA3's heuristic), on or off", "auto|on|off"},
};

// What a swept configuration key changes in a point. Keys of the kernel configuration and the two
// GPU keys with a model option go to the point's options; any other GPU key rebuilds its GpuSpec.
enum class Target { Shape, TileM, TileN, Occupancy, NumSms, Splits, L2Effective, Gpu };

struct Sweep {
  std::string key;  // canonical: a shape key or a configuration key
  Target target;
  std::vector<double> values;
};

double parse_shape_value(std::string_view key, std::string_view text, std::string_view where) {
  auto v = parse_count_text(text);
  if (!v) user_error("{}{} ({}): '{}' is not an integer", where, key, spec::flag_of(key), text);
  return *v;
}

Target target_of(std::string_view key) {
  constexpr std::pair<std::string_view, Target> kTargets[] = {
      {"fa3.tile_m", Target::TileM},         {"fa3.tile_n", Target::TileN},   {"model.occupancy", Target::Occupancy},
      {"gpu.num_sms", Target::NumSms},       {"fa3.splits", Target::Splits},  {"model.l2_effective", Target::L2Effective}};
  for (const auto& [k, t] : kTargets)
    if (k == key) return t;
  return Target::Gpu;
}

// The sweepable keys, for messages.
std::string sweepable(const Config& cfg) {
  std::string list;
  for (const char* k : kShapeSweepKeys) list += fmt::format("{}{}", list.empty() ? "" : ", ", k);
  for (std::string_view k : model::config_keys_read()) {
    const ParamType t = cfg.registry().find(k)->type;
    if (t != ParamType::String && t != ParamType::Enum && t != ParamType::Bool) list += fmt::format(", {}", k);
  }
  return list;
}

// "key=a:b:step", "key=a:b:*factor" or "key=v1,v2,..." -> the key and its values. A configuration
// key's values are read as --set reads them (units: model.l2_effective=16MiB:64MiB:8MiB); an old
// alias (tile_m, l2_effective_mib in MiB) names its key.
Sweep parse_sweep(std::string_view spec, const Config& cfg) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0)
    user_error("--sweep: expected key=start:stop:step or key=v1,v2,..., got '{}'", spec);
  const std::string given(spec.substr(0, eq));
  std::string key = given;
  if (key.find('.') == std::string::npos)  // a shape key or an old alias may be spelt as its flag: seqlen-kv
    for (char& c : key)
      if (c == '-') c = '_';
  Sweep sw;
  const char* suffix = "";
  bool shape = false;
  for (const char* k : kShapeSweepKeys) shape = shape || key == k;
  if (!shape) {
    for (const auto& a : kModelAliases)
      if (a.sweep && key == a.sweep) key = a.key, suffix = a.suffix;
    const auto read = model::config_keys_read();
    const ParamDesc* d = cfg.registry().find(key);
    if (!d || std::find(read.begin(), read.end(), key) == read.end())
      user_error("--sweep: {} '{}' (sweepable: {})",
                 d ? "the analytic model does not read" : "unknown key", given, sweepable(cfg));
    if (d->type == ParamType::String || d->type == ParamType::Enum || d->type == ParamType::Bool)
      user_error("--sweep {}: only numeric keys can be swept ({} takes names); run once per value", key, key);
  }
  sw.key = key;
  sw.target = shape ? Target::Shape : target_of(key);
  const std::string where = "--sweep " + key + ": ";
  // A value as the key reads it: a count for a shape key, the key's own parsing for a configuration key.
  auto value = [&](std::string_view text) {
    if (shape) return parse_shape_value(key, text, where);
    Config probe = cfg;
    probe.set(key, std::string(text) + suffix, "--sweep");
    return probe.f(key);
  };
  const std::string_view body = spec.substr(eq + 1);
  std::vector<double>& values = sw.values;
  if (body.find(':') != std::string_view::npos) {
    const bool integral = shape || cfg.registry().find(key)->type == ParamType::Int;
    const units::Range r = units::parse_range(
        body, [&](std::string_view t) { return std::optional<double>(value(t)); }, integral);
    if (!r.error.empty()) user_error("--sweep {}: {}", key, r.error);
    values = r.values;
  } else {
    std::size_t pos = 0;
    while (pos <= body.size()) {
      const auto c = body.find(',', pos);
      values.push_back(value(body.substr(pos, c == std::string_view::npos ? c : c - pos)));
      if (c == std::string_view::npos) break;
      pos = c + 1;
    }
  }
  return sw;
}

}  // namespace

void add_model_flags(CLI::App* app, ModelFlags& f) {
  add_workload_flags(app, f.w, /*ablate=*/false, /*workloads=*/false);
  for (const auto& a : kModelAliases) app->add_option(a.flag, f.*(a.field), a.doc)->type_name(a.type);
  app->add_option("--sweep", f.sweeps,
                  "vary a shape or configuration key: seqlen=16K:64K:8K, seqlen=1K:64K:*2, group=1,4,8 or "
                  "fa3.tile_m=64,128 (repeatable; cartesian product)")
      ->type_name("KEY=SPEC");
}

ModelRun evaluate_model(const ModelFlags& f, std::string_view default_sweep) {
  ModelRun run;
  // The configuration: the GPU, --set, --clock-mhz, then the model flags as the keys they alias.
  Config cfg = make_config(f.w.gpu);
  if (f.w.clock_mhz != 0) set_clock_mhz(cfg, f.w.clock_mhz, "--clock-mhz", "--clock-mhz");
  for (const auto& a : kModelAliases) {
    const std::string& v = f.*(a.field);
    if (v.empty()) continue;
    set_alias(cfg, a.key, a.auto_value && v == "auto" ? std::string(a.auto_value) : v + a.suffix, a.flag);
  }
  model::require_read_keys(cfg, "simfa analyze");
  run.gpu = model::GpuSpec::from_config(cfg);

  // The workload flags: what they state (model::PointInputs), the rest from the model's rules.
  std::map<std::string, double, std::less<>> base;
  const model::PointInputs stated = point_inputs(f.w);
  for (const auto& [key, v] : {std::pair{"batch", stated.batch}, {"seqlen", stated.seqlen}, {"seqlen_q", stated.seqlen_q},
                               {"seqlen_kv", stated.seqlen_kv}, {"heads_kv", stated.heads_kv}, {"group", stated.group},
                               {"head_dim", stated.head_dim}})
    if (v) base[key] = *v;

  model::PointContext ctx;
  ctx.dtype = spec::parse_dtype(f.w.dtype, "--dtype");
  ctx.base = model::options_from_config(cfg);
  ctx.preset = f.w.model.empty() || f.w.model == "none" ? nullptr : &spec::find_model(f.w.model);
  run.model = ctx.preset ? ctx.preset->name : "";
  run.warnings = model::model_warnings(run.gpu, ctx.base);
  for (const auto& w : run.warnings) std::cerr << "simfa: warning: " << w << "\n";

  std::vector<Sweep> sweeps;
  for (const auto& s : f.sweeps) sweeps.push_back(parse_sweep(s, cfg));
  const bool has_seqlen = base.count("seqlen") || base.count("seqlen_q") || base.count("seqlen_kv");
  bool swept_seqlen = false;
  for (const auto& sw : sweeps) swept_seqlen |= sw.key.rfind("seqlen", 0) == 0;
  if (!has_seqlen && !swept_seqlen) {
    if (sweeps.empty() && !default_sweep.empty())
      sweeps.push_back(parse_sweep(default_sweep, cfg));
    else
      base["seqlen"] = 6144;  // simfa run's default
  }
  double total = 1;
  bool gpu_swept = false;
  for (const auto& sw : sweeps) {
    for (const auto& other : sweeps)
      if (&other != &sw && other.key == sw.key) user_error("--sweep: key '{}' is swept twice", sw.key);
    run.swept_keys.push_back(sw.key);
    total *= double(sw.values.size());
    gpu_swept |= sw.target == Target::Gpu;
  }
  if (total > 1e7) user_error("--sweep: {:.0f} points exceed the limit of 10 million", total);

  std::vector<std::size_t> idx(sweeps.size(), 0);
  run.points.reserve(std::size_t(total));
  for (std::size_t n = 0; n < std::size_t(total); ++n) {
    auto vals = base;
    ModelPoint p;
    std::optional<Config> point_cfg;
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
      const double v = sweeps[i].values[idx[i]];
      p.swept.push_back(v);
      if (sweeps[i].target == Target::Shape) vals[sweeps[i].key] = v;
      if (sweeps[i].target == Target::Gpu) {
        if (!point_cfg) point_cfg = cfg;
        point_cfg->set(sweeps[i].key, fmt::format("{:.17g}", v), "--sweep");
      }
    }
    model::PointInputs in;
    auto put = [&](const char* key, std::optional<double>& dst) {
      if (auto it = vals.find(key); it != vals.end()) dst = it->second;
    };
    put("batch", in.batch);
    put("seqlen", in.seqlen);
    put("seqlen_q", in.seqlen_q);
    put("seqlen_kv", in.seqlen_kv);
    put("heads_kv", in.heads_kv);
    put("group", in.group);
    put("head_dim", in.head_dim);
    in.causal = f.w.causal;
    model::resolve_point(in, ctx, p.shape, p.opt);
    // Swept configuration keys: 0 means what it means for the key (the kernel's, the GPU's).
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
      const auto v = std::int64_t(std::llround(p.swept[i]));
      switch (sweeps[i].target) {
        case Target::TileM: p.opt.tile_m = v; break;
        case Target::TileN: p.opt.tile_n = v; break;
        case Target::Occupancy: p.opt.occupancy = v; break;
        case Target::NumSms: p.opt.num_sms = v; break;
        case Target::Splits: p.opt.num_splits = v; break;
        case Target::L2Effective: p.opt.l2_effective_bytes = p.swept[i]; break;
        case Target::Shape:
        case Target::Gpu: break;
      }
    }
    if (gpu_swept) p.gpu = model::GpuSpec::from_config(*point_cfg);
    p.result = model::analyze(p.shape, p.gpu ? *p.gpu : run.gpu, p.opt);
    run.points.push_back(std::move(p));
    for (std::size_t i = sweeps.size(); i-- > 0;) {  // odometer, last sweep fastest
      if (++idx[i] < sweeps[i].values.size()) break;
      idx[i] = 0;
    }
  }
  return run;
}

nlohmann::ordered_json point_json(const ModelPoint& p) { return model::point_json(p.shape, p.opt, p.result); }

std::string describe_run(const ModelRun& run) {
  if (run.points.empty()) return "";
  const auto& p = run.points.front();
  const auto& s = p.shape;
  std::string d = run.model.empty() ? "" : run.model + ": ";
  d += fmt::format("B {}, H_KV {}, G {}, D {}, {}{}", s.batch, s.heads_kv, s.group, s.head_dim,
                   spec::dtype_name(s.dtype), s.causal ? ", causal" : "");
  d += fmt::format(" | {}: {} SMs, L2_eff {:.3g} MiB, DRAM {:.3g} TB/s", run.gpu.name,
                   p.result.num_sms, p.result.l2_effective_bytes / 1048576.0,
                   run.gpu.dram_bytes_per_s / 1e12);
  d += fmt::format(" | {} {}x{}, O_limit {}", model::kernel_name(p.opt.kernel), p.result.tile_m,
                   p.result.tile_n, p.result.occupancy);
  return d;
}

}  // namespace simfa::cli
