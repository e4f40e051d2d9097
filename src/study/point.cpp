// Evaluating a study point: simfa run's path for the simulation, simfa analyze's for the model,
// and the row of the results database.
#include "study/point.h"

#include <chrono>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "api/fa3_workload.h"
#include "api/run.h"
#include "api/workload.h"
#include "model/fields.h"
#include "model/gpu_spec.h"
#include "model/analysis.h"
#include "sim/error.h"
#include "sim/version.h"
#include "study/schema.h"

namespace simfa::study {
namespace {

WorkloadArgs args_of(const Point& p) {
  WorkloadArgs a(KeyStyle::Keyword);
  for (const auto& [k, v] : p.shape) a.set(k, v);
  return a;
}

// The configuration a point simulates or analyzes with: the GPU, its overrides in order, then the
// clock model, as `simfa run --gpu G --set ...` builds it.
Config point_config(const Point& p, ClockChoice* clock) {
  Config cfg = make_config(p.gpu);
  for (const auto& [k, v] : p.sets) cfg.set(k, v, "the study");
  const ClockChoice c = apply_clock_model(cfg);
  if (clock) *clock = c;
  return cfg;
}

void check_analyzable(const Point& p) {
  if (p.workload != "fa3")
    user_error("the analytic model covers attention (workload fa3), not {}: run = \"simulate\" for it", p.workload);
}

// The analytic model at the point: simfa analyze's evaluation of the same shape, kernel keys
// (fa3.kernel, fa3.tile_m, ...) and GPU. Its warnings (assumed GPU values, a kernel the GPU does not
// run) are added to `warnings`.
model::Result analyze_point(const Point& p, const Config& cfg, spec::AttentionShape& shape,
                            model::ModelOptions& opt, std::vector<std::string>* warnings = nullptr) {
  check_analyzable(p);
  shape = fa3_shape(args_of(p));
  const model::GpuSpec gpu = model::GpuSpec::from_config(cfg);
  opt = model::options_from_config(cfg);
  if (warnings)
    for (auto& w : model::model_warnings(gpu, opt)) warnings->push_back("analyze: " + w);
  return model::analyze(shape, gpu, opt);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

const char* simfa_version() { return kSimfaVersion; }
const char* simfa_commit() { return kSimfaCommit; }

std::string point_key(const std::string& study, const Point& p) {
  nlohmann::json j;  // sorted keys: the same inputs give the same key in any order
  j["study"] = study;
  j["gpu"] = p.gpu_label;
  j["variant"] = p.variant;
  j["workload"] = p.workload;
  j["simulate"] = p.simulate;
  j["analyze"] = p.analyze;
  j["shape"] = nlohmann::json::object();
  for (const auto& [k, v] : p.shape) j["shape"][k] = v;
  j["set"] = nlohmann::json::object();
  for (const auto& [k, v] : p.sets) j["set"][k] = v;
  return j.dump();
}

void check_point(const Point& p) {
  const Config cfg = point_config(p, nullptr);
  if (p.simulate) {
    require_simulatable(cfg);
    (void)make_workload(p.workload, args_of(p), cfg);
  }
  if (p.analyze) {
    spec::AttentionShape shape;
    model::ModelOptions opt;
    (void)analyze_point(p, cfg, shape, opt);
  }
}

Row evaluate_point(const std::string& study, const Point& p, const EvalOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  Row row;
  for (const Column& c : kPointColumns) row[std::string(c.name)] = nullptr;
  row["study"] = study;
  row["point_key"] = p.key.empty() ? point_key(study, p) : p.key;
  row["point_index"] = p.index;
  row["gpu"] = p.gpu_label;
  row["variant"] = p.variant;
  row["actions"] = p.simulate && p.analyze ? "simulate+analyze" : p.simulate ? "simulate" : "analyze";
  row["workload"] = p.workload;
  nlohmann::ordered_json overrides = nlohmann::ordered_json::object();
  for (const auto& [k, v] : p.sets) overrides[k] = v;
  row["overrides"] = overrides.dump();
  // The shape as given; replaced below by the resolved shape when one is built.
  for (const auto& [k, v] : p.shape) {
    if (k == "model") row["model"] = v;
    else if (k == "dtype") row["dtype"] = v;
    else if (k == "causal") row["causal"] = (v == "true" || v == "1" || v == "yes") ? 1 : 0;
    else if (k == "seqlen") row["seqlen_q"] = row["seqlen_kv"] = std::stoll(v);
    else if (row.contains(k)) {
      try {
        row[k] = std::stoll(v);
      } catch (...) {
        row[k] = v;
      }
    }
  }
  if (p.workload == "fa3" && row["model"].is_null()) row["model"] = "llama3-405b";
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  auto fill_shape = [&](const spec::AttentionShape& s) {
    row["batch"] = s.batch;
    row["seqlen_q"] = s.seqlen_q;
    row["seqlen_kv"] = s.seqlen_kv;
    row["heads_kv"] = s.heads_kv;
    row["group"] = s.group;
    row["head_dim"] = s.head_dim;
    row["dtype"] = std::string(spec::dtype_name(s.dtype));
    row["causal"] = s.causal ? 1 : 0;
  };
  std::vector<std::string> warnings;
  try {
    ClockChoice clock;
    const Config cfg = point_config(p, &clock);
    row["gpu_name"] = cfg.s("gpu.name");
    if (p.simulate) {
      require_simulatable(cfg);
      const std::unique_ptr<Workload> w = make_workload(p.workload, args_of(p), cfg);
      if (p.workload == "fa3") fill_shape(fa3_shape(args_of(p)));
      for (auto& wn : w->warnings()) warnings.push_back("simulate: " + wn);
      RunOptions ro;
      ro.poll = opt.poll;
      const RunResult r = run_workload(*w, cfg, ro);
      const WorkloadFigures f = workload_figures(*w, r, cfg, p.gpu_label);
      nlohmann::ordered_json j = workload_result_json(*w, r, cfg, f);
      j["clock"] = {{"requested_hz", clock.requested_hz}, {"effective_hz", clock.effective_hz}, {"why", clock.why}};
      row["clock_mhz"] = r.clock_hz / 1e6;
      row["cycles"] = r.cycles;
      row["latency_us"] = r.latency_us;
      row["tflops"] = f.tflops;
      row["peak_fraction"] = f.peak_tflops > 0 ? f.tflops / f.peak_tflops : 0.0;
      auto stat = [&](const char* name, const char* col) {
        if (auto v = r.find_stat(name)) row[col] = *v;
      };
      stat("lts__t_bytes.sum", "l2_bytes");
      stat("dram__bytes_read.sum", "dram_read_bytes");
      stat("dram__bytes_write.sum", "dram_write_bytes");
      if (row["dram_read_bytes"].is_number() && row["dram_write_bytes"].is_number())
        row["dram_bytes"] = row["dram_read_bytes"].get<double>() + row["dram_write_bytes"].get<double>();
      if (j.contains("pipe_utilization")) {
        const auto& pu = j["pipe_utilization"];
        for (const auto& [name, col] : {std::pair{"tensor", "tensor_util"}, {"mufu", "mufu_util"}, {"fp32", "fp32_util"}})
          if (pu.contains(name)) row[col] = pu[name];
      }
      row["sampled"] = r.sampling.sampled ? 1 : 0;
      if (!r.sampling.warning.empty()) warnings.push_back("simulate: sampling: " + r.sampling.warning);
      doc["simulate"] = std::move(j);
    }
    if (p.analyze) {
      spec::AttentionShape shape;
      model::ModelOptions opt;
      const model::Result a = analyze_point(p, cfg, shape, opt, &warnings);
      fill_shape(shape);
      row["model_flops"] = a.flops;
      row["model_latency_us"] = a.latency_us;
      row["model_bound"] = std::string(model::bound_name(a.bound));
      row["model_regime"] = std::string(model::regime_name(a.regime));
      row["model_l2_bytes"] = a.l2_bytes;
      row["model_dram_bytes"] = a.dram_bytes;
      row["model_dram_ideal_bytes"] = a.dram_ideal_bytes;
      row["model_dram_real_bytes"] = a.dram_real_bytes;
      row["genz_dram_bytes"] = a.genz_dram_bytes;
      doc["analyze"] = model::point_json(shape, opt, a);
    }
    row["status"] = "ok";
    std::string msg;
    for (const auto& w : warnings) msg += (msg.empty() ? "" : "\n") + w;
    row["message"] = msg;
  } catch (const InterruptedError&) {
    throw;
  } catch (const UserError& e) {
    row["status"] = "bad_input";
    row["message"] = e.what();
  } catch (const DeadlockError& e) {
    row["status"] = "deadlock";
    row["message"] = std::string(e.what()) + "\n" + e.report();
  } catch (const std::exception& e) {
    row["status"] = "error";
    row["message"] = e.what();
  }
  if (row["status"] != "ok") {  // no half-filled figures
    for (const Column& c : kPointColumns) {
      const std::string n(c.name);
      if (n == "clock_mhz" || n == "cycles" || n == "latency_us" || n == "tflops" || n == "peak_fraction" ||
          n.rfind("model_", 0) == 0 || n.find("_bytes") != std::string::npos || n.find("_util") != std::string::npos ||
          n == "sampled")
        row[n] = nullptr;
    }
    doc = nlohmann::ordered_json::object();
  }
  for (const auto& [k, v] : p.sets) row[k] = v;
  row["wall_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  row["simfa_version"] = simfa_version();
  row["simfa_commit"] = simfa_commit();
  row["finished_at"] = utc_now();
  row["json"] = doc.dump();
  return row;
}

}  // namespace simfa::study
