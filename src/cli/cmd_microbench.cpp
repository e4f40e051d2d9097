// `simfa microbench NAME`: runs a memory microbenchmark on the simulated GPU, optionally compares
// it with a measured CSV and sweeps one configuration key.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/common.h"
#include "microbench/compare.h"
#include "microbench/microbench.h"
#include "sim/error.h"
#include "sim/files.h"

namespace simfa::cli {
namespace {

struct MbOpts {
  std::string name;
  GpuOptions gpu{"h800-pcie", {}, {}};
  std::string json, csv, compare, sweep;
  std::vector<double> ws;
  double ws_ratio = 1.5;
  // Signed, so that a negative value is an error naming the flag rather than a huge unsigned one.
  std::int64_t hops = 2000, warmup_passes = 1, warmup_max = 1u << 20, sim_mib = 32, array_mib = 4096;
  double clock_mhz = 0;  // 0: the measured file's clock_mhz, else the configuration's gpu.clock
  std::int64_t hop_bubble = microbench::kTmaHopBubble, blocks_per_sm = 4;
  bool no_skip = false, quiet = false;
};

// A sweep spec "key=v1,v2,...".
std::pair<std::string, std::vector<std::string>> parse_sweep(const std::string& s) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 >= s.size())
    user_error("--sweep '{}': expected key=v1,v2,...", s);
  std::vector<std::string> vals;
  std::string rest = s.substr(eq + 1);
  for (std::size_t p = 0; p <= rest.size();) {
    const auto c = rest.find(',', p);
    vals.push_back(rest.substr(p, c == std::string::npos ? std::string::npos : c - p));
    if (c == std::string::npos) break;
    p = c + 1;
  }
  for (const auto& v : vals)
    if (v.empty()) user_error("--sweep '{}': empty value", s);
  return {s.substr(0, eq), vals};
}

// Points of a latency sweep or cases of a bandwidth run taken from the measured CSV.
void points_from_csv(const std::string& name, const microbench::Csv& csv, microbench::Options& o,
                     bool have_ws) {
  if ((name == "load-latency" || name == "tma-latency") && !have_ws) {
    const auto c = csv.column("working_set_kib");
    for (const auto& row : csv.rows) o.working_sets_kib.push_back(std::stod(row[c]));
  } else if (name == "tma-bandwidth") {
    const auto k = csv.column("copy_kind"), b = csv.column("box_elems"),
               kib = csv.column("load_kib"), n = csv.column("blocks");
    std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
    for (const auto& row : csv.rows) {
      if (!seen.insert({row[k], row[b], microbench::canonical_key(row[kib]), row[n]}).second) continue;
      o.cases.push_back({microbench::CopyShape::parse(row[k], row[b], std::stod(row[kib]), o.array_bytes),
                         static_cast<std::uint32_t>(std::stoul(row[n]))});
    }
  }
}

void print(const microbench::Result& r, std::ostream& out) {
  out << fmt::format("{} ({} points)\n", r.name, r.rows.size());
  std::string head;
  for (const auto& k : r.key_columns) head += fmt::format("{:>16}", k);
  head += fmt::format("{:>16}", r.value_column);
  if (r.mape_pct) head += fmt::format("{:>12}{:>10}", "measured", "error%");
  out << head << "\n";
  for (const auto& row : r.rows) {
    std::string line;
    for (const auto& k : row.keys) line += fmt::format("{:>16}", k);
    line += fmt::format("{:>16.2f}", row.value);
    if (row.measured) line += fmt::format("{:>12.2f}{:>10.2f}", *row.measured, row.error_pct());
    out << line << "\n";
  }
  for (const auto& [k, v] : r.info.items())
    if (v.is_number()) out << fmt::format("{}: {}\n", k, v.dump());
  if (r.mape_pct)
    out << fmt::format("MAPE {:.2f}% over {} points, max |error| {:.2f}%\n", *r.mape_pct, r.compared,
                       *r.max_abs_error_pct);
}

// UserError unless lo <= v <= hi, naming the flag.
void check_range(std::int64_t v, std::int64_t lo, std::int64_t hi, const char* flag, const char* why = "") {
  if (v < lo) user_error("{} must be at least {}, got {}", flag, lo, v);
  if (v > hi) user_error("{} must be at most {}{}, got {}", flag, hi, why, v);
}

void run_command(const MbOpts& o) {
  check_range(o.hops, 1, 100'000'000, "--hops");
  check_range(o.warmup_passes, 0, 1'000'000, "--warmup-passes");
  check_range(o.warmup_max, 0, 1'000'000'000, "--warmup-max");
  check_range(o.hop_bubble, 0, 1'000'000, "--hop-bubble");
  check_range(o.sim_mib, 1, 4096, "--sim-mib", " (4 GiB)");
  check_range(o.array_mib, 1, 1 << 20, "--array-mib", " (1 TiB)");
  if (o.blocks_per_sm < 1 || o.blocks_per_sm > 32)
    user_error("--blocks-per-sm must be between 1 and 32 (Hopper's CTAs per SM), got {}", o.blocks_per_sm);
  microbench::Options mo;
  mo.working_sets_kib = o.ws;
  mo.ws_ratio = o.ws_ratio;
  mo.hops = static_cast<std::uint64_t>(o.hops);
  mo.warmup_passes = static_cast<std::uint64_t>(o.warmup_passes);
  mo.warmup_max = static_cast<std::uint64_t>(o.warmup_max);
  mo.hop_bubble = static_cast<std::uint32_t>(o.hop_bubble);
  mo.sim_bytes = static_cast<std::uint64_t>(o.sim_mib) << 20;
  mo.array_bytes = static_cast<std::uint64_t>(o.array_mib) << 20;
  mo.dram_blocks_per_sm = static_cast<std::uint32_t>(o.blocks_per_sm);
  mo.skip_idle = !o.no_skip;
  if (!o.quiet) mo.progress = [](const std::string& s) { std::cerr << s << "\n"; };
  const auto& names = microbench::names();
  if (std::find(names.begin(), names.end(), o.name) == names.end())
    user_error("unknown microbenchmark '{}' (known: {})", o.name, fmt::join(names, ", "));
  std::optional<microbench::Csv> measured;
  if (!o.compare.empty()) {
    measured = microbench::read_measured_csv(o.compare);
    points_from_csv(o.name, *measured, mo, !o.ws.empty());
  }
  Config base = make_config(o.gpu);
  // The microbenchmarks build their own kernels: the workloads' keys and the analytic model's would
  // be accepted and ignored.
  refuse_workload_keys(base, "simfa microbench", "the microbenchmarks run their own kernels");
  // The simulated SM clock is the one the measurement ran at: --clock-mhz, else the measured
  // file's clock_mhz column, unless gpu.clock was given with --set (or --sweep, applied below).
  if (o.clock_mhz != 0) {
    set_clock_mhz(base, o.clock_mhz, "--clock-mhz", "--clock-mhz");
  } else if (measured && base.origin("gpu.clock") != "--set") {
    if (const auto mhz = microbench::measured_clock_mhz(*measured)) {
      set_clock_mhz(base, *mhz, "clock_mhz", o.compare + " (clock_mhz)");
      if (!o.quiet) std::cerr << fmt::format("simulating at {} MHz, the clock_mhz of {}\n", *mhz, o.compare);
    }
  }
  // Microbenchmarks measure the memory hierarchy: use it unless the user chose a model.
  if (base.origin("mem.model") == "default") base.set("mem.model", "hierarchy", "microbench");
  std::vector<std::pair<std::string, Config>> configs;
  std::string sweep_key;
  if (o.sweep.empty()) {
    configs.emplace_back("", base);
  } else {
    auto [key, vals] = parse_sweep(o.sweep);
    sweep_key = key;
    for (const auto& v : vals) {
      Config c = base;
      c.set(key, v, "--sweep");
      configs.emplace_back(v, std::move(c));
    }
  }
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  std::string csv_text;
  for (auto& [value, cfg] : configs) {
    std::ostream& out = report_stream({o.json, o.csv});
    if (!value.empty()) out << fmt::format("== {} = {}\n", sweep_key, value);
    microbench::Result r = microbench::run(o.name, cfg, mo);
    if (measured) microbench::compare(r, *measured);
    print(r, out);
    auto j = microbench::to_json(r);
    j["config"] = cfg.to_json();
    if (!value.empty()) {
      nlohmann::ordered_json w;
      w["value"] = value;
      if (r.mape_pct) {
        w["mape_pct"] = *r.mape_pct;
        w["max_abs_error_pct"] = *r.max_abs_error_pct;
      }
      w["result"] = std::move(j);
      runs.push_back(std::move(w));
      std::string t = microbench::to_csv(r);
      const auto nl = t.find('\n');
      if (csv_text.empty()) csv_text = sweep_key + "," + t.substr(0, nl + 1);
      for (std::size_t p = nl + 1; p < t.size();) {
        const auto e = t.find('\n', p);
        csv_text += value + "," + t.substr(p, e - p + 1);
        p = e + 1;
      }
    } else {
      runs.push_back(std::move(j));
      csv_text = microbench::to_csv(r);
    }
  }
  if (!o.json.empty()) {
    nlohmann::ordered_json out;
    if (o.sweep.empty()) {
      out = runs[0];
    } else {
      out["microbench"] = o.name;
      out["sweep_key"] = sweep_key;
      out["runs"] = std::move(runs);
    }
    write_json_file(o.json, out);
  }
  if (!o.csv.empty()) {
    write_output_file(o.csv, csv_text);
  }
}

}  // namespace

void add_microbench_command(CLI::App& app) {
  auto o = std::make_shared<MbOpts>();
  auto* mb = app.add_subcommand("microbench",
                                "memory microbenchmarks on the simulated GPU: load-latency, "
                                "tma-latency, tma-bandwidth, dram-bandwidth, kv-stream");
  mb->add_option("name", o->name,
                 "load-latency | tma-latency | tma-bandwidth | dram-bandwidth | kv-stream")->required();
  add_gpu_options(mb, o->gpu);
  mb->add_option("--clock-mhz", o->clock_mhz,
                 "SM clock in MHz (default: the --compare file's clock_mhz column, else the GPU "
                 "preset's; --set gpu.clock also overrides the file)");
  mb->add_option("--json", o->json, "write the results (and MAPE with --compare) to FILE")
      ->check(output_file());
  mb->add_option("--csv", o->csv, "write the results as CSV (the measured files' columns) to FILE")
      ->check(output_file());
  mb->add_option("--compare", o->compare,
                 "measured CSV (../shared/reference format): compare point by point; its points "
                 "become the simulated ones");
  mb->add_option("--sweep", o->sweep, "rerun for each value of one key: --sweep key=v1,v2,...");
  mb->add_option("--ws", o->ws, "latency: working sets in KiB (repeatable; default 2 KiB..2 GiB)");
  mb->add_option("--ws-ratio", o->ws_ratio, "latency: ratio between default working sets")->capture_default_str();
  mb->add_option("--hops", o->hops, "latency: measured hops per working set")->capture_default_str();
  mb->add_option("--warmup-passes", o->warmup_passes,
                 "latency: warm-up passes over the working set")->capture_default_str();
  mb->add_option("--warmup-max", o->warmup_max, "latency: at most this many warm-up hops")->capture_default_str();
  mb->add_option("--hop-bubble", o->hop_bubble,
                 fmt::format("tma-latency: loop cycles per hop besides the copy ({}: the chase "
                             "loop of Luo et al.'s files; {}: the gpu/ kit's, data/measured/)",
                             microbench::kTmaHopBubble, microbench::kKitTmaHopBubble))
      ->capture_default_str();
  mb->add_option("--sim-mib", o->sim_mib, "bandwidth: MiB simulated per case (a prefix of the walk)")->capture_default_str();
  mb->add_option("--array-mib", o->array_mib,
                 "bandwidth: size of the walked array; below the L2 size later passes hit in L2")->capture_default_str();
  mb->add_option("--blocks-per-sm", o->blocks_per_sm, "dram-bandwidth: copying blocks per SM")->capture_default_str();
  mb->add_flag("--no-skip", o->no_skip, "reference mode: tick every component every cycle");
  mb->add_flag("--quiet", o->quiet, "no progress lines on stderr");
  mb->callback([o] { run_command(*o); });
}

}  // namespace simfa::cli
