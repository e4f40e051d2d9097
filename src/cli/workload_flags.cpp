// Workload flags: the Llama-3 preset supplies heads and head_dim, explicit flags override them.
#include "cli/workload_flags.h"

#include <cmath>

#include <fmt/format.h>

#include "api/fa3_workload.h"
#include "sim/error.h"

namespace simfa::cli {

namespace {

// Accepts a count with an optional binary suffix, as `simfa analyze` does: 64K = 65536, 1M = 1048576.
CLI::Validator count_with_suffix() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto v = parse_count_text(text);
        if (!v || std::abs(*v) > double(1LL << 40))
          return fmt::format("'{}' is not a token count (an integer, optionally with K or M: 64K = 65536)", text);
        text = std::to_string(static_cast<long long>(*v));
        return {};
      },
      "COUNT", "count");
}

// A number of at least `min` (integers only unless `real`): flags whose 0 would otherwise read as
// "not given" (the preset's value).
CLI::Validator at_least(double min, bool real, std::string_view unit = "") {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const auto v = real ? parse_real_text(text) : parse_count_text(text);
        if (!v) return fmt::format("'{}' is not {}", text, real ? "a number" : "an integer");
        if (*v < min) return fmt::format("must be at least {}{}, got {}", min, unit, text);
        return {};
      },
      "", "at least");
}

}  // namespace

void add_workload_flags(CLI::App* app, WorkloadFlags& f, bool ablate, bool workloads) {
  if (workloads)
    app->add_option("--workload", f.workload, fmt::format("what to simulate: {}", workload_kinds().docs_text()))
        ->default_str("fa3");
  app->add_option("--model", f.model, "llama3-8b | llama3-70b | llama3-405b (paper Table 6), or none")
      ->default_str("llama3-405b");
  app->add_option("--batch", f.batch, "batch size B")->default_str("1");
  app->add_option("--seqlen", f.seqlen, "query sequence length L; S defaults to it (K and M suffixes: 64K)")
      ->transform(count_with_suffix())
      ->default_str(std::to_string(kDefaultSeqlen));
  app->add_option("--seqlen-q", f.seqlen_q, "query sequence length L (same as --seqlen)")
      ->transform(count_with_suffix())
      ->check(at_least(1, false));
  app->add_option("--seqlen-kv,--kv-seqlen", f.seqlen_kv, "key/value sequence length S (default: L; --kv-seqlen is the same flag)")
      ->transform(count_with_suffix())
      ->check(at_least(1, false));
  app->add_option("--heads-kv", f.heads_kv, "KV heads H_KV (default: the model's)")->check(at_least(1, false));
  app->add_option("--group", f.group, "query heads per KV head G (default: the model's)")->check(at_least(1, false));
  app->add_option("--head-dim", f.head_dim, "head dimension D (default: the model's)")->check(at_least(1, false));
  app->add_option("--dtype", f.dtype, "fp16 | bf16 | fp8_e4m3")->default_str("fp16");
  app->add_flag("--causal", f.causal, "causal (bottom-right aligned) mask");
  if (workloads) {
    app->add_option("--m", f.m, "GEMM (--workload gemm): rows of A and C")->check(at_least(1, false));
    app->add_option("--n", f.n, "GEMM: rows of B, columns of C")->check(at_least(1, false));
    app->add_option("--k", f.k, "GEMM: the reduction dimension K")->check(at_least(1, false));
  }
  app->add_option("--clock-mhz", f.clock_mhz,
                  "SM clock the GPU is set to, in MHz (default: the preset's; the run uses the lower of it and "
                  "gpu.power_limited_clock unless --set gpu.clock_model=fixed)")
      ->check(at_least(1, true, " (MHz)"));
  add_gpu_options(app, f.gpu, ablate);
}

model::PointInputs point_inputs(const WorkloadFlags& f) {
  model::PointInputs in;
  auto given = [](std::int64_t v) { return v ? std::optional<double>(double(v)) : std::nullopt; };
  in.batch = double(f.batch);
  if (f.seqlen) in.seqlen = double(*f.seqlen);
  in.seqlen_q = given(f.seqlen_q);
  in.seqlen_kv = given(f.seqlen_kv);
  in.heads_kv = given(f.heads_kv);
  in.group = given(f.group);
  in.head_dim = given(f.head_dim);
  in.causal = f.causal;
  return in;
}

namespace {

// The value of each shape key the flags can give, when given (0 and absent mean "not given"; the
// model, batch and dtype flags always have a value).
struct FlagValue {
  std::string_view key;
  std::optional<std::string> (*get)(const WorkloadFlags& f);
};
std::optional<std::string> count_or_none(std::int64_t v) {
  return v ? std::optional<std::string>(std::to_string(v)) : std::nullopt;
}
constexpr FlagValue kFlagValues[] = {
    {"model", [](const WorkloadFlags& f) -> std::optional<std::string> { return f.model; }},
    {"batch", [](const WorkloadFlags& f) -> std::optional<std::string> { return std::to_string(f.batch); }},
    {"seqlen", [](const WorkloadFlags& f) -> std::optional<std::string> {
       return f.seqlen ? std::optional<std::string>(std::to_string(*f.seqlen)) : std::nullopt;
     }},
    {"seqlen_q", [](const WorkloadFlags& f) { return count_or_none(f.seqlen_q); }},
    {"seqlen_kv", [](const WorkloadFlags& f) { return count_or_none(f.seqlen_kv); }},
    {"heads_kv", [](const WorkloadFlags& f) { return count_or_none(f.heads_kv); }},
    {"group", [](const WorkloadFlags& f) { return count_or_none(f.group); }},
    {"head_dim", [](const WorkloadFlags& f) { return count_or_none(f.head_dim); }},
    {"dtype", [](const WorkloadFlags& f) -> std::optional<std::string> { return f.dtype; }},
    {"causal", [](const WorkloadFlags& f) -> std::optional<std::string> {
       return f.causal ? std::optional<std::string>("1") : std::nullopt;
     }},
    {"m", [](const WorkloadFlags& f) { return count_or_none(f.m); }},
    {"n", [](const WorkloadFlags& f) { return count_or_none(f.n); }},
    {"k", [](const WorkloadFlags& f) { return count_or_none(f.k); }},
};

bool takes(const WorkloadKind& kind, std::string_view key) {
  for (std::size_t i = 0; i < kind.num_keys; ++i)
    if (kind.keys[i].key == key) return true;
  return false;
}

}  // namespace

void check_workload_flags(const CLI::App& app, const WorkloadFlags& f) {
  const WorkloadKind& kind = workload_kinds().get(f.workload).make;
  std::string flags;
  for (std::size_t i = 0; i < kind.num_keys; ++i) flags += fmt::format("{}{}", i ? ", " : "", kind.keys[i].flag);
  for (const auto* v : workload_kinds().all())
    for (std::size_t i = 0; i < v->make.num_keys; ++i) {
      const WorkloadKey& key = v->make.keys[i];
      if (takes(kind, key.key)) continue;
      const CLI::Option* opt = app.get_option_no_throw(std::string(key.flag));
      if (opt && opt->count() > 0)
        user_error("{} does not apply to --workload {} (its shape flags: {})", key.flag, f.workload, flags);
    }
}

WorkloadArgs workload_args(const WorkloadFlags& f) {
  const WorkloadKind& kind = workload_kinds().get(f.workload).make;
  WorkloadArgs args(KeyStyle::Flag);
  for (std::size_t i = 0; i < kind.num_keys; ++i) {
    const FlagValue* fv = nullptr;
    for (const FlagValue& x : kFlagValues)
      if (x.key == kind.keys[i].key) fv = &x;
    if (!fv) throw InternalError(fmt::format("workload_args: no flag gives the key '{}'", kind.keys[i].key));
    if (auto v = fv->get(f)) args.set(std::string(fv->key), *v);
  }
  return args;
}

std::unique_ptr<Workload> make_workload(const WorkloadFlags& f, const Config& cfg) {
  return simfa::make_workload(f.workload, workload_args(f), cfg);
}

spec::AttentionShape workload_shape(const WorkloadFlags& f) {
  WorkloadFlags fa3 = f;
  fa3.workload = "fa3";
  return fa3_shape(workload_args(fa3));
}

Config workload_config(const WorkloadFlags& f, ClockChoice* clock) {
  Config cfg = make_config(f.gpu);
  if (f.clock_mhz != 0) set_clock_mhz(cfg, f.clock_mhz, "--clock-mhz", "--clock-mhz");
  if (f.clock_measured) cfg.set("gpu.clock_model", "fixed", "measured_clock_mhz");
  const ClockChoice c = apply_clock_model(cfg);
  if (clock) *clock = c;
  return cfg;
}

}  // namespace simfa::cli
