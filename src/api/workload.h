// The workload interface: what stands between the trace layer and everything above it (the CLI's
// run, trace gen, validate and ablate, and Python's simfa.run). A workload kind is one entry of a
// registry (sim/variants.h): its name, its one-line documentation, its shape keys and a factory that
// builds a Workload from the keys' values and a configuration. A Workload yields its
// trace::TraceSource and what the report needs: the one-line descriptions, the nominal FLOPs and the
// tensor peak they are held against, the analytic counterpart (or why there is none), the extra
// pipe utilizations and the "workload" object of the JSON document. docs/workloads.md says how to
// add one.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/run.h"
#include "sim/variants.h"
#include "trace/source.h"

namespace simfa {

class OutputFile;  // sim/files.h

// A shape key: its name as Python's keyword and the measurements CSV's column ("head_dim") and as
// the command line's flag ("--head-dim").
struct WorkloadKey {
  std::string_view key;
  std::string_view flag;
  std::string_view doc;
};

// How the caller names a key in messages: "--head-dim" (command line), "head_dim (--head-dim)"
// (Python keyword), "column 'head_dim'" (measurements CSV).
enum class KeyStyle : std::uint8_t { Flag, Keyword, Column };

// The shape of a workload as given: the values (as text) of the keys the caller set. A key that is
// not set takes the workload's default.
class WorkloadArgs {
 public:
  explicit WorkloadArgs(KeyStyle style = KeyStyle::Flag) : style_(style) {}
  void set(std::string key, std::string value);
  const std::string* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  const std::vector<std::pair<std::string, std::string>>& all() const { return values_; }
  // The key as the caller names it (the flag is looked up among every workload's keys).
  std::string label(std::string_view key) const;
  // The value of `key` as an integer, a real number or a boolean (0/1, true/false, yes/no);
  // UserError naming the key when it is something else. nullopt when not set.
  std::optional<std::int64_t> integer(std::string_view key) const;
  std::optional<double> real(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;

 private:
  KeyStyle style_;
  std::vector<std::pair<std::string, std::string>> values_;
};

// A figure from the workload's analytic counterpart, for the report and the JSON document.
struct AnalyticFigures {
  bool ok = false;
  std::string error;        // ok = false: why there is no analytic figure for this configuration
  std::string name;         // how the latency line names it: "analytic roofline"
  double latency_us = 0;
  std::string bound;        // "compute", "l2", "dram"
  std::string l2_note;      // the L2 line's comparison: "analytic: 1.2e9 with cluster multicast, ..."
  std::string dram_note;    // the DRAM line's: "analytic: 3.4e8, ideal regime"
  nlohmann::ordered_json json;  // the document's "analytic" object
};

// Utilization of a CUDA-core pipe (fraction of every SM's cycles), named as in the JSON document.
struct PipeUse {
  std::string name;
  double utilization = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string_view kind() const = 0;  // the registry's name: "fa3", "gemm"
  virtual trace::TraceSource& source() = 0;
  // "B 1 x H_KV 8 x G 16, L 6144, S 6144, D 128, fp16" / "M 8192 x N 8192 x K 8192, fp16"
  virtual std::string shape_line() const = 0;
  // The kernel's name and structural choices.
  virtual std::string kernel_line() const = 0;
  // FLOPs in the workload's own benchmark convention (the report's TFLOPS).
  virtual double nominal_flops() const = 0;
  // The simulated SM's dense tensor throughput for the workload's data type (FLOP per cycle).
  virtual double tensor_flops_per_cycle(const Config& cfg) const = 0;
  // The analytic counterpart for the same shape, kernel and GPU; `gpu_name` only labels it.
  virtual AnalyticFigures analytic(const Config& cfg, const std::string& gpu_name) const = 0;
  // CUDA-core pipe utilizations worth reporting for this workload, and the report line that shows
  // them (none and "" when the workload has none worth a line).
  virtual std::vector<PipeUse> cuda_pipes(const RunResult& r, const Config& cfg) const;
  virtual std::string cuda_pipes_line(const std::vector<PipeUse>& pipes) const;
  // The document's "workload" object: the shape and the kernel line.
  virtual nlohmann::ordered_json shape_json() const = 0;
  // Why the simulated time may not be what the real kernel would take for this shape, one line
  // each ("FA3's num_splits heuristic splits this shape's KV into 15 pieces, ..."): the run still
  // happens; `simfa run` prints them as "simfa: warning: ..." on standard error, the JSON document
  // lists them under "warnings", Python's simfa.run raises them as warnings. A shape the workload
  // cannot model at all is a UserError of its factory instead.
  virtual std::vector<std::string> warnings() const;
  // The block log (simfa run --block-log): from now on, a CSV line to `os` for every block the run
  // simulates in detail (docs/sampling.md, "The block log"). False when this workload has no
  // blocks to log.
  virtual bool log_blocks(std::ostream* /*os*/) { return false; }
};

// Opens the block log `path` (an OutputFile: commit() it after the run) and starts `w` writing to
// it. UserError naming `what` (the flag or keyword) when the path cannot be written or `w` has no
// blocks to log.
std::unique_ptr<OutputFile> start_block_log(Workload& w, const std::string& path, std::string_view what);

// A registry entry: the workload's shape keys and its factory. The factory checks the values
// (UserError naming the key as the caller names it) and resolves the kernel from the configuration.
struct WorkloadKind {
  const WorkloadKey* keys;
  std::size_t num_keys;
  std::unique_ptr<Workload> (*make)(const WorkloadArgs& args, const Config& cfg);
  // The prefix of the configuration keys only this workload reads ("fa3.", "gemm."): another
  // workload's run rejects them when they are set (nothing is accepted and ignored).
  std::string_view config_prefix;
};

// Every workload, in one list ("--workload", "workload": an unknown name lists the choices).
const VariantList<WorkloadKind>& workload_kinds();
// Builds workload `name` from `args`. UserError for a GPU the cycle simulator does not model
// (require_simulatable), an unknown name, a key the workload does not take ("--head-dim does not
// apply to the gemm workload (its keys: ...)"), a configuration key of another workload that is set
// (fa3.tile_m on a GEMM run) and for bad values.
std::unique_ptr<Workload> make_workload(std::string_view name, const WorkloadArgs& args, const Config& cfg);

// What a finished run is reported with.
struct WorkloadFigures {
  double tflops = 0;       // nominal_flops / latency
  double peak_tflops = 0;  // tensor peak of the simulated SMs at the run's clock for the data type
  std::vector<PipeUse> pipes;
  AnalyticFigures analytic;
};
WorkloadFigures workload_figures(const Workload& w, const RunResult& r, const Config& cfg,
                                 const std::string& gpu_name);
// The report of `simfa run` from its "workload" line to its pipe utilizations (run_summary follows).
std::string workload_report(const Workload& w, const RunResult& r, const Config& cfg, const std::string& clock_why,
                            const WorkloadFigures& f);
// result_json plus tflops, peak_fraction, l2_bytes, dram_read_bytes, dram_write_bytes,
// pipe_utilization (tensor and the workload's pipes), workload (shape_json), warnings (the
// workload's, [] when none) and analytic (its figures, or {"error": why}).
nlohmann::ordered_json workload_result_json(const Workload& w, const RunResult& r, const Config& cfg,
                                            const WorkloadFigures& f);
// Runs the workload's trace on the configuration's GPU.
RunResult run_workload(Workload& w, const Config& cfg, const RunOptions& ro = {});

}  // namespace simfa
