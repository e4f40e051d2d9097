// The `simfa._simfa` extension: the analytic model over numpy arrays, GPU presets and
// configurations, model presets and FA3 tiles, and the cycle-level simulator (a workload of the
// registry in api/workload.h, FA3 or GEMM, or trace files, returned as the command line's JSON). simfa/__init__.py wraps it with keyword
// checks and numpy broadcasting. UserError becomes ValueError, InternalError and DeadlockError
// RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <tuple>
#include <string>
#include <vector>

#include "api/vocabulary.h"
#include "api/workload.h"
#include "api/run.h"
#include "model/analysis.h"
#include "model/fields.h"
#include "model/inputs.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/files.h"
#include "trace/io.h"

namespace py = pybind11;
using namespace simfa;

namespace {

// Ctrl-C during a long call: the simulation runs without the GIL, so Python's signal handler only
// sets a flag; this takes the GIL now and then, runs the handlers and ends the run with their
// exception (KeyboardInterrupt).
void check_signals() {
  py::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

// A message as a Python str: invalid UTF-8 (raw bytes of a bad input) is shown escaped.
void set_error(PyObject* type, const std::string& msg) {
  PyObject* text = PyUnicode_DecodeUTF8(msg.data(), static_cast<Py_ssize_t>(msg.size()), "backslashreplace");
  if (!text) return;  // the decode error stays set
  PyErr_SetObject(type, text);
  Py_DECREF(text);
}

// The resolved shape fields analyze_batch can return besides model::result_fields().
const char* const kShapeKeys[] = {"batch", "seqlen_q", "seqlen_kv", "heads_kv",
                                  "group", "head_dim", "causal"};

using F64 = py::array_t<double, py::array::c_style | py::array::forcecast>;
using U8 = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>;

Config make_cfg(const std::string& gpu, const std::vector<std::string>& sets) {
  return make_config(gpu, sets);
}

// Evaluates n points. `arrays` maps input keywords to 1-D float64 arrays of length n (already
// broadcast); absent keywords take their defaults. Returns {field: array}; text fields (regime,
// bound) come back as uint8 codes with their names in "<field>__names".
// `gpu` is a preset name or TOML file (then `sets` apply, as --set) or a GpuSpec (then `sets` is
// empty); `aliases` are (key, value, origin) of the keywords that name configuration keys (kernel is
// fa3.kernel), set as the command line's alias flags are. The configuration gives the GpuSpec and
// the kernel configuration every point starts from; a --set key the model does not read is a
// UserError. The result also holds "__warnings": the model's warnings (model::model_warnings).
py::dict analyze_batch(const py::object& gpu_arg, const std::vector<std::string>& sets,
                       const std::vector<std::tuple<std::string, std::string, std::string>>& aliases,
                       const std::string& model_name, const std::string& dtype, const py::dict& arrays,
                       std::size_t n, const std::vector<std::string>& wanted) {
  const bool given_spec = py::isinstance<model::GpuSpec>(gpu_arg);
  Config cfg = make_config(given_spec ? std::string() : gpu_arg.cast<std::string>(), sets);
  for (const auto& [key, value, origin] : aliases) set_alias(cfg, key, value, origin);
  model::require_read_keys(cfg, "simfa.analyze");
  const model::GpuSpec gpu = given_spec ? gpu_arg.cast<model::GpuSpec>() : model::GpuSpec::from_config(cfg);
  model::PointContext ctx;
  ctx.preset = model_name.empty() ? nullptr : &spec::find_model(model_name);
  ctx.dtype = spec::parse_dtype(dtype, "dtype (--dtype)");
  ctx.base = model::options_from_config(cfg);

  struct In {
    const char* key;
    std::optional<double> model::PointInputs::*member;
    const double* data = nullptr;
  };
  std::vector<In> ins = {
      {"batch", &model::PointInputs::batch},         {"seqlen", &model::PointInputs::seqlen},
      {"seqlen_q", &model::PointInputs::seqlen_q},   {"seqlen_kv", &model::PointInputs::seqlen_kv},
      {"heads_kv", &model::PointInputs::heads_kv},   {"group", &model::PointInputs::group},
      {"head_dim", &model::PointInputs::head_dim},   {"tile_m", &model::PointInputs::tile_m},
      {"tile_n", &model::PointInputs::tile_n},       {"occupancy", &model::PointInputs::occupancy},
      {"num_sms", &model::PointInputs::num_sms},     {"splits", &model::PointInputs::splits},
      {"l2_effective_mib", &model::PointInputs::l2_effective_mib},
  };
  std::vector<F64> keep;  // owns converted arrays while we read them
  for (auto& in : ins) {
    if (!arrays.contains(in.key)) continue;
    F64 a = F64::ensure(arrays[in.key]);
    if (!a || a.ndim() != 1 || std::size_t(a.shape(0)) != n)
      throw InternalError(std::string("analyze_batch: bad array for ") + in.key);
    in.data = a.data();
    keep.push_back(std::move(a));
  }
  const std::uint8_t* causal = nullptr;
  U8 causal_arr;
  if (arrays.contains("causal")) {
    causal_arr = U8::ensure(arrays["causal"]);
    if (!causal_arr || causal_arr.ndim() != 1 || std::size_t(causal_arr.shape(0)) != n)
      throw InternalError("analyze_batch: bad array for causal");
    causal = causal_arr.data();
  }

  const auto fields = model::result_fields();
  std::vector<F64> num_out;
  std::vector<U8> txt_out;
  std::vector<double*> num_ptr(fields.size(), nullptr);
  std::vector<std::uint8_t*> txt_ptr(fields.size(), nullptr);
  // Only the wanted outputs are allocated: filling fresh memory dominates large sweeps.
  auto want = [&](std::string_view name) {
    for (const auto& w : wanted)
      if (w == name) return true;
    return false;
  };
  for (const auto& w : wanted) {
    bool ok = model::find_result_field(w) != nullptr;
    for (const char* k : kShapeKeys) ok |= w == k;
    if (!ok) throw UserError("fields: unknown field '" + w + "' (see simfa.fields())");
  }
  std::vector<std::size_t> sel;  // wanted result fields, in table order
  for (std::size_t f = 0; f < fields.size(); ++f) {
    if (!want(fields[f].name)) continue;
    sel.push_back(f);
    if (fields[f].text) {
      txt_out.emplace_back(py::ssize_t(n));
      txt_ptr[f] = txt_out.back().mutable_data();
    } else {
      num_out.emplace_back(py::ssize_t(n));
      num_ptr[f] = num_out.back().mutable_data();
    }
  }
  std::vector<bool> is_regime(fields.size());
  for (std::size_t f = 0; f < fields.size(); ++f)
    is_regime[f] = std::string_view(fields[f].name) == "regime";
  // The resolved shape of every point, when wanted.
  std::vector<py::array_t<std::int64_t>> shape_out(7);
  std::int64_t* shape_ptr[7] = {};
  for (int k = 0; k < 7; ++k) {
    if (!want(kShapeKeys[k])) continue;
    shape_out[std::size_t(k)] = py::array_t<std::int64_t>(py::ssize_t(n));
    shape_ptr[k] = shape_out[std::size_t(k)].mutable_data();
  }
  bool have_shape = false;
  for (auto* p : shape_ptr) have_shape |= p != nullptr;
  {
    py::gil_scoped_release release;
    model::PointInputs in;
    spec::AttentionShape shape;
    model::ModelOptions opt;
    for (std::size_t i = 0; i < n; ++i) {
      if ((i & 0xFFFF) == 0xFFFF) check_signals();
      for (const auto& x : ins)
        if (x.data) in.*(x.member) = x.data[i];
      in.causal = causal ? causal[i] != 0 : false;
      model::resolve_point(in, ctx, shape, opt);
      const model::Result r = model::analyze(shape, gpu, opt);
      // Text fields as codes: regime (0 ideal, 1 realistic), bound (0 compute, 1 l2, 2 dram).
      for (std::size_t f : sel) {
        if (num_ptr[f])
          num_ptr[f][i] = fields[f].number(r);
        else
          txt_ptr[f][i] = is_regime[f] ? std::uint8_t(r.regime) : std::uint8_t(r.bound);
      }
      if (have_shape) {
        const std::int64_t v[7] = {shape.batch,    shape.seqlen_q, shape.seqlen_kv,
                                   shape.heads_kv, shape.group,    shape.head_dim,
                                   shape.causal ? 1 : 0};
        for (int k = 0; k < 7; ++k)
          if (shape_ptr[k]) shape_ptr[k][i] = v[k];
      }
    }
  }
  py::dict out;
  out["__warnings"] = py::cast(model::model_warnings(gpu, ctx.base));
  for (int k = 0; k < 7; ++k)
    if (shape_ptr[k]) out[kShapeKeys[k]] = shape_out[std::size_t(k)];
  std::size_t ni = 0, ti = 0;
  for (std::size_t f : sel) {
    const auto& fd = fields[f];
    if (fd.text) {
      out[fd.name] = txt_out[ti++];
      py::list names;
      if (std::string_view(fd.name) == "regime")
        names = py::cast(std::vector<std::string>{"ideal", "realistic"});
      else
        names = py::cast(std::vector<std::string>{"compute", "l2", "dram"});
      out[(std::string(fd.name) + "__names").c_str()] = names;
    } else {
      out[fd.name] = num_out[ni++];
    }
  }
  return out;
}

// Simulates a workload (api/workload.h: "fa3", "gemm") on the whole configured GPU and returns the
// document `simfa run --json` writes, as text. `inputs` maps the workload's shape keys to their
// values as text (absent: the workload's default); messages name them as Python keywords.
std::string run_workload_json(const std::string& workload, const std::string& gpu, const std::vector<std::string>& sets,
                              const std::vector<std::string>& ablations,
                              const std::vector<std::pair<std::string, std::string>>& inputs,
                              std::optional<double> clock_mhz, bool skip_idle,
                              const std::optional<std::string>& block_log) {
  WorkloadArgs args(KeyStyle::Keyword);
  for (const auto& [k, v] : inputs) args.set(k, v);
  Config cfg = make_config(gpu, sets, ablations);
  if (clock_mhz) set_clock_mhz(cfg, *clock_mhz, "clock_mhz (--clock-mhz)", "clock_mhz");
  const ClockChoice clock = apply_clock_model(cfg);
  const std::unique_ptr<Workload> w = make_workload(workload, args, cfg);
  const std::unique_ptr<OutputFile> log = block_log ? start_block_log(*w, *block_log, "block_log (--block-log)") : nullptr;
  py::gil_scoped_release release;
  RunOptions ro;
  ro.skip_idle = skip_idle;
  ro.poll = [](const core::RunProgress&) { check_signals(); };
  const RunResult r = run_workload(*w, cfg, ro);
  if (log) log->commit();
  const WorkloadFigures f = workload_figures(*w, r, cfg, gpu);
  auto j = workload_result_json(*w, r, cfg, f);
  j["clock"] = {{"requested_hz", clock.requested_hz}, {"effective_hz", clock.effective_hz}, {"why", clock.why}};
  return j.dump();
}

// Simulates trace files or directories of .sft files (`simfa trace run`); returns its JSON text.
std::string run_trace_json(const std::vector<std::string>& paths, const std::string& gpu,
                           const std::vector<std::string>& sets, const std::vector<std::string>& ablations,
                           bool skip_idle) {
  Config cfg = make_config(gpu, sets, ablations);
  refuse_workload_keys(cfg, "simfa.run_trace", "the trace files are the kernel");
  apply_clock_model(cfg);  // as simfa trace run
  trace::MemoryTrace t = trace::read_trace_paths(paths);
  py::gil_scoped_release release;
  RunOptions ro;
  ro.skip_idle = skip_idle;
  ro.poll = [](const core::RunProgress&) { check_signals(); };
  return result_json(run_trace(t, cfg, ro), cfg).dump();
}

}  // namespace

PYBIND11_MODULE(_simfa, m) {
  m.doc() = "simfa native core: analytic model of FlashAttention, GPU presets, the cycle-level simulator "
            "(see simfa/__init__.py)";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      set_error(PyExc_ValueError, e.what());
    } catch (const DeadlockError& e) {
      set_error(PyExc_RuntimeError, std::string(e.what()) + "\n" + e.report());
    } catch (const InternalError& e) {
      set_error(PyExc_RuntimeError, e.what());
    }
  });

  py::class_<model::GpuSpec>(m, "GpuSpec", "GPU facts the analytic model uses")
      .def(py::init<>())
      .def_readwrite("name", &model::GpuSpec::name)
      .def_readwrite("arch", &model::GpuSpec::arch)
      .def_readwrite("assumed", &model::GpuSpec::assumed)
      .def_readwrite("num_sms", &model::GpuSpec::num_sms)
      .def_readwrite("clock_hz", &model::GpuSpec::clock_hz)
      .def_readwrite("l2_bytes", &model::GpuSpec::l2_bytes)
      .def_readwrite("l2_partitions", &model::GpuSpec::l2_partitions)
      .def_readwrite("l2_effective_bytes", &model::GpuSpec::l2_effective_bytes)
      .def_readwrite("l2_bytes_per_cycle", &model::GpuSpec::l2_bytes_per_cycle)
      .def_readwrite("dram_bytes_per_s", &model::GpuSpec::dram_bytes_per_s)
      .def_readwrite("flops_per_cycle_16bit", &model::GpuSpec::flops_per_cycle_16bit)
      .def_readwrite("flops_per_cycle_fp8", &model::GpuSpec::flops_per_cycle_fp8)
      .def("effective_l2", &model::GpuSpec::effective_l2)
      .def("validate", &model::GpuSpec::validate)
      .def("__repr__", [](const model::GpuSpec& g) {
        return "GpuSpec(name='" + g.name + "', num_sms=" + std::to_string(g.num_sms) +
               ", l2_bytes=" + std::to_string(g.l2_bytes) + ", dram_bytes_per_s=" +
               std::to_string(g.dram_bytes_per_s) + ")";
      });

  m.def("gpu_spec",
        [](const std::string& gpu, const std::vector<std::string>& sets) {
          const Config cfg = make_cfg(gpu, sets);
          model::require_read_keys(cfg, "simfa.gpu", model::gpu_config_keys());
          return model::GpuSpec::from_config(cfg);
        },
        py::arg("gpu"), py::arg("sets") = std::vector<std::string>{},
        "GpuSpec of a preset (gpu_presets()) or TOML file, after key=value overrides of the keys it reads");
  m.def("config_json",
        [](const std::string& gpu, const std::vector<std::string>& sets) {
          return make_cfg(gpu, sets).to_json().dump();
        },
        py::arg("gpu"), py::arg("sets") = std::vector<std::string>{});
  m.def("gpu_presets", &gpu_preset_names);
  m.def("config_keys", [] {
    py::list out;
    for (const auto& d : param_registry().all())
      out.append(py::make_tuple(d.key, d.default_text, d.unit, d.doc, d.source));
    return out;
  });
  m.def("models", [] {
    py::dict out;
    for (const auto& p : spec::model_presets()) {
      py::dict d;
      d["hidden"] = p.hidden;
      d["heads_q"] = p.heads_q;
      d["heads_kv"] = p.heads_kv;
      d["group"] = p.group;
      d["head_dim"] = p.head_dim;
      out[p.name.c_str()] = d;
    }
    return out;
  });
  m.def("find_model", [](const std::string& name) { return spec::find_model(name).name; });
  m.def("fa3_tiles",
        [](std::int64_t head_dim, const std::string& dtype, bool causal) {
          const auto t = spec::fa3_default_tiles(head_dim, spec::parse_dtype(dtype, "dtype"), causal);
          py::dict d;
          d["tile_m"] = t.tile_m;
          d["tile_n"] = t.tile_n;
          d["consumer_wgs"] = t.consumer_wgs;
          d["pv_rs"] = t.pv_rs;
          d["stages"] = t.stages;
          d["ctas_per_sm"] = t.ctas_per_sm;
          d["cluster_eligible"] = t.cluster_eligible;
          d["source"] = t.source;
          return d;
        },
        py::arg("head_dim"), py::arg("dtype") = "fp16", py::arg("causal") = false);
  m.def("fields", [] {
    py::list out;
    for (const auto& f : model::result_fields())
      out.append(py::make_tuple(f.name, f.unit, f.doc, f.text));
    return out;
  });
  m.def("analyze_batch", &analyze_batch, py::arg("gpu"), py::arg("sets"), py::arg("aliases"), py::arg("model"),
        py::arg("dtype"), py::arg("arrays"), py::arg("n"), py::arg("fields"));
  m.def("vocabulary", [] {
    py::list out;
    for (const Term& t : kVocabulary)
      out.append(py::dict(py::arg("quantity") = std::string(t.quantity), py::arg("flag") = std::string(t.flag),
                          py::arg("key") = std::string(t.key), py::arg("keyword") = std::string(t.keyword),
                          py::arg("study") = std::string(t.study), py::arg("column") = std::string(t.column),
                          py::arg("aliases") = std::string(t.aliases)));
    return out;
  });
  m.def("model_config_keys", [] {
    std::vector<std::string> out;
    for (std::string_view k : model::config_keys_read()) out.emplace_back(k);
    return out;
  });

  // The cycle-level simulator; simfa/__init__.py wraps these as simfa.run and simfa.run_trace.
  m.def("run_workload_json", &run_workload_json, py::arg("workload"), py::arg("gpu"), py::arg("sets"),
        py::arg("ablations"), py::arg("inputs"), py::arg("clock_mhz"), py::arg("skip_idle"), py::arg("block_log"));
  m.def("workloads", [] {
    py::dict out;
    for (const auto* v : workload_kinds().all()) {
      py::list keys;
      for (std::size_t i = 0; i < v->make.num_keys; ++i)
        keys.append(py::make_tuple(std::string(v->make.keys[i].key), std::string(v->make.keys[i].doc)));
      out[std::string(v->name).c_str()] = py::make_tuple(std::string(v->doc), keys);
    }
    return out;
  });
  m.def("run_trace_json", &run_trace_json, py::arg("paths"), py::arg("gpu"), py::arg("sets"),
        py::arg("ablations"), py::arg("skip_idle"));
}
