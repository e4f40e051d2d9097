// Workload flags: the Llama-3 preset supplies heads and head_dim, explicit flags override them.
#include "cli/workload_flags.h"

#include <cmath>

#include <fmt/format.h>

#include "sim/error.h"
#include "workload/fa3_source.h"

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

void add_workload_flags(CLI::App* app, WorkloadFlags& f, bool ablate) {
  app->add_option("--model", f.model, "llama3-8b | llama3-70b | llama3-405b (paper Table 6), or none")
      ->default_str("llama3-405b");
  app->add_option("--batch", f.batch, "batch size B")->default_str("1");
  app->add_option("--seqlen", f.seqlen, "query sequence length L; S defaults to it (K and M suffixes: 64K)")
      ->transform(count_with_suffix())
      ->default_str(std::to_string(kDefaultSeqlen));
  app->add_option("--seqlen-q", f.seqlen_q, "query sequence length L (same as --seqlen)")
      ->transform(count_with_suffix())
      ->check(at_least(1, false));
  app->add_option("--kv-seqlen,--seqlen-kv", f.kv_seqlen, "key/value sequence length S (default: L)")
      ->transform(count_with_suffix())
      ->check(at_least(1, false));
  app->add_option("--heads-kv", f.heads_kv, "KV heads H_KV (default: the model's)")->check(at_least(1, false));
  app->add_option("--group", f.group, "query heads per KV head G (default: the model's)")->check(at_least(1, false));
  app->add_option("--head-dim", f.head_dim, "head dimension D (default: the model's)")->check(at_least(1, false));
  app->add_option("--dtype", f.dtype, "fp16 | bf16 | fp8_e4m3")->default_str("fp16");
  app->add_flag("--causal", f.causal, "causal (bottom-right aligned) mask");
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
  in.seqlen_kv = given(f.kv_seqlen);
  in.heads_kv = given(f.heads_kv);
  in.group = given(f.group);
  in.head_dim = given(f.head_dim);
  in.causal = f.causal;
  return in;
}

spec::AttentionShape workload_shape(const WorkloadFlags& f) {
  if (f.model == "none" && (!f.heads_kv || !f.head_dim))
    user_error("--model none needs --heads-kv and --head-dim (and --group, default 1)");
  if (f.batch < 1) user_error("--batch must be at least 1, got {}", f.batch);
  if (f.seqlen && *f.seqlen < 1) user_error("--seqlen must be at least 1, got {}", *f.seqlen);
  model::PointInputs in = point_inputs(f);
  if (!in.seqlen && !in.seqlen_q && !in.seqlen_kv) in.seqlen = double(kDefaultSeqlen);
  model::PointContext ctx;
  ctx.preset = f.model == "none" ? nullptr : &spec::find_model(f.model);
  ctx.dtype = spec::parse_dtype(f.dtype, "--dtype");
  spec::AttentionShape s;
  model::ModelOptions unused;
  model::resolve_point(in, ctx, s, unused);
  s.validate();
  return s;
}

Config workload_config(const WorkloadFlags& f, ClockChoice* clock) {
  Config cfg = make_config(f.gpu);
  if (f.clock_mhz != 0) set_clock_mhz(cfg, f.clock_mhz, "--clock-mhz", "--clock-mhz");
  if (f.clock_measured) cfg.set("gpu.clock_model", "fixed", "measured_clock_mhz");
  const ClockChoice c = apply_clock_model(cfg);
  if (clock) *clock = c;
  return cfg;
}

RunResult simulate_workload(const spec::AttentionShape& s, const Config& cfg, const RunOptions& ro) {
  workload::Fa3Source src(s, cfg, static_cast<int>(cfg.i("gpu.num_sms")));
  return run_trace(src, cfg, ro);
}

}  // namespace simfa::cli
