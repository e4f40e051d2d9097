// Workload/model flags, --sweep expansion (ranges, geometric ranges, lists; cartesian product)
// and evaluation of each point with the analytic model.
#include "cli/model_flags.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "api/run.h"
#include "model/fields.h"
#include "model/inputs.h"
#include "sim/error.h"

namespace simfa::cli {
namespace {

// Keys a --sweep may vary, with whether they take fractional values.
struct SweepKey {
  const char* key;
  bool real;
};
constexpr SweepKey kSweepKeys[] = {
    {"batch", false},    {"seqlen", false},  {"seqlen_q", false}, {"seqlen_kv", false},
    {"heads_kv", false}, {"group", false},   {"head_dim", false}, {"tile_m", false},
    {"tile_n", false},   {"occupancy", false}, {"num_sms", false}, {"splits", false},
    {"l2_effective_mib", true},
};

std::string snake(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c == '-') c = '_';
  return r;
}

double parse_value(std::string_view key, std::string_view text, bool real, std::string_view where) {
  auto v = real ? parse_real_text(text) : parse_count_text(text);
  if (!v)
    user_error("{}{} ({}): '{}' is not {}", where, key, spec::flag_of(key), text,
               real ? "a number" : "an integer");
  return *v;
}

const SweepKey* find_sweep_key(std::string_view key) {
  for (const auto& k : kSweepKeys)
    if (key == k.key) return &k;
  return nullptr;
}

// "key=a:b:step", "key=a:b:*factor" or "key=v1,v2,..." -> (key, values).
std::pair<std::string, std::vector<double>> parse_sweep(std::string_view spec) {
  const auto eq = spec.find('=');
  if (eq == std::string_view::npos || eq == 0)
    user_error("--sweep: expected key=start:stop:step or key=v1,v2,..., got '{}'", spec);
  const std::string key = snake(spec.substr(0, eq));
  const SweepKey* k = find_sweep_key(key);
  if (!k) {
    std::string list;
    for (const auto& s : kSweepKeys) list += (list.empty() ? "" : ", ") + std::string(s.key);
    user_error("--sweep: unknown key '{}' (sweepable: {})", key, list);
  }
  const std::string_view body = spec.substr(eq + 1);
  const std::string where = "--sweep " + key + ": ";
  std::vector<double> values;
  if (body.find(':') != std::string_view::npos) {
    std::vector<std::string_view> parts;
    std::size_t pos = 0;
    while (true) {
      const auto c = body.find(':', pos);
      parts.push_back(body.substr(pos, c == std::string_view::npos ? c : c - pos));
      if (c == std::string_view::npos) break;
      pos = c + 1;
    }
    if (parts.size() != 3)
      user_error("--sweep {}: a range is start:stop:step (or start:stop:*factor), got '{}'", key,
                 body);
    const double a = parse_value(key, parts[0], k->real, where);
    const double b = parse_value(key, parts[1], k->real, where);
    if (b < a) user_error("--sweep {}: stop {} is below start {}", key, parts[1], parts[0]);
    if (!parts[2].empty() && parts[2][0] == '*') {
      const auto f = parse_real_text(parts[2].substr(1));
      if (!f || *f <= 1.0)
        user_error("--sweep {}: the factor after '*' must be a number above 1, got '{}'", key,
                   parts[2].substr(1));
      if (a <= 0) user_error("--sweep {}: a geometric range needs a positive start", key);
      for (double v = a; v <= b * (1 + 1e-12); v *= *f) {
        values.push_back(k->real ? v : std::round(v));
        if (values.size() > 10'000'000) break;
      }
    } else {
      const double step = parse_value(key, parts[2], k->real, where);
      if (step <= 0) user_error("--sweep {}: the step must be positive, got '{}'", key, parts[2]);
      const double n = std::floor((b - a) / step + 1e-9);
      if (n > 1e7) user_error("--sweep {}: more than 10 million points", key);
      for (double i = 0; i <= n; ++i) values.push_back(a + i * step);
    }
  } else {
    std::size_t pos = 0;
    while (pos <= body.size()) {
      const auto c = body.find(',', pos);
      const auto item = body.substr(pos, c == std::string_view::npos ? c : c - pos);
      values.push_back(parse_value(key, item, k->real, where));
      if (c == std::string_view::npos) break;
      pos = c + 1;
    }
  }
  return {key, values};
}

}  // namespace

void add_model_flags(CLI::App* app, ModelFlags& f) {
  auto opt = [&](const char* name, std::string& dst, const char* doc, const char* type = "N") {
    app->add_option(name, dst, doc)->type_name(type);
  };
  add_workload_flags(app, f.w, /*ablate=*/false, /*workloads=*/false);
  opt("--kernel", f.kernel, "tile configuration: fa3 (FA3's table) or cutile (paper §6: 64x32)",
      "NAME");
  opt("--tile-m", f.tile_m, "T_M, query rows per CTA (default: the kernel's)");
  opt("--tile-n", f.tile_n, "T_N, KV rows per block (default: the kernel's)");
  opt("--occupancy", f.occupancy, "O_limit, resident CTAs per SM (default: the kernel's, FA3 1)");
  opt("--num-sms", f.num_sms, "N_SM (default: the GPU's)");
  opt("--l2-effective-mib", f.l2_effective_mib,
      "L2 capacity of the ideal-cache condition in MiB (default: L2 / partitions)", "X");
  opt("--splits", f.splits, "split-KV pieces: auto (FA3's heuristic) or N (1: none)", "auto|N");
  opt("--pack-gqa", f.pack_gqa, "PackGQA: auto (FA3's heuristic), on or off", "auto|on|off");
  app->add_option("--sweep", f.sweeps,
                  "vary a key: seqlen=16K:64K:8K, seqlen=1K:64K:*2 or group=1,4,8 (repeatable; "
                  "cartesian product)")
      ->type_name("KEY=SPEC");
}

ModelRun evaluate_model(const ModelFlags& f, std::string_view default_sweep) {
  ModelRun run;
  // Base values from the flags.
  std::map<std::string, double, std::less<>> base;
  auto take = [&](const char* key, const std::string& text) {
    if (!text.empty()) base[key] = parse_value(key, text, find_sweep_key(key)->real, "");
  };
  // The workload flags: what they state (model::PointInputs), the rest from the model's rules.
  const model::PointInputs stated = point_inputs(f.w);
  for (const auto& [key, v] : {std::pair{"batch", stated.batch}, {"seqlen", stated.seqlen}, {"seqlen_q", stated.seqlen_q},
                               {"seqlen_kv", stated.seqlen_kv}, {"heads_kv", stated.heads_kv}, {"group", stated.group},
                               {"head_dim", stated.head_dim}})
    if (v) base[key] = *v;
  take("tile_m", f.tile_m);
  take("tile_n", f.tile_n);
  take("occupancy", f.occupancy);
  take("num_sms", f.num_sms);
  take("l2_effective_mib", f.l2_effective_mib);
  if (f.splits != "auto") take("splits", f.splits);

  model::PointContext ctx;
  ctx.dtype = spec::parse_dtype(f.w.dtype, "--dtype");
  ctx.kernel = model::parse_kernel(f.kernel, "--kernel");
  ctx.pack_gqa = model::parse_pack_gqa(f.pack_gqa, "--pack-gqa");
  ctx.preset = f.w.model.empty() || f.w.model == "none" ? nullptr : &spec::find_model(f.w.model);
  run.model = ctx.preset ? ctx.preset->name : "";

  std::vector<std::pair<std::string, std::vector<double>>> sweeps;
  for (const auto& s : f.sweeps) sweeps.push_back(parse_sweep(s));
  const bool has_seqlen = base.count("seqlen") || base.count("seqlen_q") || base.count("seqlen_kv");
  bool swept_seqlen = false;
  for (const auto& sw : sweeps) swept_seqlen |= sw.first.rfind("seqlen", 0) == 0;
  if (!has_seqlen && !swept_seqlen) {
    if (sweeps.empty() && !default_sweep.empty())
      sweeps.push_back(parse_sweep(default_sweep));
    else
      base["seqlen"] = 6144;  // simfa run's default
  }
  double total = 1;
  for (const auto& [k, v] : sweeps) {
    for (const auto& [k2, v2] : sweeps)
      if (&k2 != &k && k2 == k) user_error("--sweep: key '{}' is swept twice", k);
    run.swept_keys.push_back(k);
    total *= double(v.size());
  }
  if (total > 1e7) user_error("--sweep: {:.0f} points exceed the limit of 10 million", total);

  Config cfg = make_config(f.w.gpu);
  if (f.w.clock_mhz != 0) set_clock_mhz(cfg, f.w.clock_mhz, "--clock-mhz", "--clock-mhz");
  run.gpu = model::GpuSpec::from_config(cfg);

  std::vector<std::size_t> idx(sweeps.size(), 0);
  run.points.reserve(std::size_t(total));
  for (std::size_t n = 0; n < std::size_t(total); ++n) {
    auto vals = base;
    ModelPoint p;
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
      const double v = sweeps[i].second[idx[i]];
      vals[sweeps[i].first] = v;
      p.swept.push_back(v);
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
    put("tile_m", in.tile_m);
    put("tile_n", in.tile_n);
    put("occupancy", in.occupancy);
    put("num_sms", in.num_sms);
    put("splits", in.splits);
    put("l2_effective_mib", in.l2_effective_mib);
    in.causal = f.w.causal;
    model::resolve_point(in, ctx, p.shape, p.opt);
    p.result = model::analyze(p.shape, run.gpu, p.opt);
    run.points.push_back(std::move(p));
    for (std::size_t i = sweeps.size(); i-- > 0;) {  // odometer, last sweep fastest
      if (++idx[i] < sweeps[i].second.size()) break;
      idx[i] = 0;
    }
  }
  return run;
}

nlohmann::ordered_json point_json(const ModelPoint& p) {
  nlohmann::ordered_json j;
  const auto& s = p.shape;
  j["batch"] = s.batch;
  j["seqlen_q"] = s.seqlen_q;
  j["seqlen_kv"] = s.seqlen_kv;
  j["heads_kv"] = s.heads_kv;
  j["group"] = s.group;
  j["head_dim"] = s.head_dim;
  j["dtype"] = spec::dtype_name(s.dtype);
  j["causal"] = s.causal;
  j["kernel"] = model::kernel_name(p.opt.kernel);
  for (const auto& fd : model::result_fields()) {
    if (fd.text) {
      j[fd.name] = std::string(fd.text_of(p.result));
    } else {
      // Counts (bytes, FLOPs, CTAs, tiles) are exact integers: print them as such.
      const double v = fd.number(p.result);
      if (v == std::floor(v) && std::fabs(v) < 9.0e15)
        j[fd.name] = std::int64_t(v);
      else
        j[fd.name] = v;
    }
  }
  return j;
}

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
