// `simfa plot traffic|l2|roofline`: SVG figures of the analytic model over a sweep, like the
// paper's Fig. 9 (DRAM traffic with the regime change and the GenZ baseline) and Fig. 8 (L2).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/model_flags.h"
#include "report/svg_chart.h"
#include "sim/csv.h"
#include "sim/error.h"
#include "sim/files.h"

namespace simfa::cli {

using report::Chart;
using report::ChartSeries;
using report::render_svg;
using report::TickStyle;

namespace {

constexpr const char* kBlue = "#1f77b4";
constexpr const char* kOrange = "#ff7f0e";
constexpr const char* kGreen = "#2ca02c";
constexpr const char* kRed = "#d62728";
constexpr const char* kPurple = "#9467bd";
constexpr const char* kGrey = "#7f7f7f";

struct PlotOpts {
  ModelFlags flags;
  std::string output, title, measured, simulated;
};

// Points "x,bytes" (a CSV, sim/csv.h: one per line; a header on the first line and '#' comments are
// skipped).
ChartSeries read_points(const std::string& path, const std::string& flag, const std::string& label,
                        const char* color) {
  const CsvTable t = read_csv(path, fmt::format("{} file", flag), CsvHeader::None);
  ChartSeries s;
  s.label = label;
  s.color = color;
  s.line = false;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const auto& f = t.rows[r];
    const auto x = f.size() == 2 ? parse_real_text(f[0]) : std::nullopt;
    const auto y = f.size() == 2 ? parse_real_text(f[1]) : std::nullopt;
    if (!x || !y) {
      if (r == 0 && t.lines[0] == 1) continue;  // header
      throw UserError(fmt::format("{} {}: expected two numbers 'x,bytes'", flag, t.where(r)));
    }
    s.x.push_back(*x);
    s.y.push_back(*y / 1e9);
  }
  if (s.x.empty()) throw UserError(fmt::format("{} {}: no points", flag, path));
  return s;
}

// The x values of the (single) sweep.
std::vector<double> sweep_x(const ModelRun& run, const char* what) {
  if (run.swept_keys.size() != 1)
    user_error("plot {}: give exactly one --sweep (for example --sweep seqlen=16K:64K:8K)", what);
  std::vector<double> x;
  for (const auto& p : run.points) x.push_back(p.swept[0]);
  return x;
}

std::string x_label(const ModelRun& run) {
  const auto& k = run.swept_keys[0];
  if (k == "seqlen") return "sequence length L = S (tokens)";
  if (k == "seqlen_q") return "query length L (tokens)";
  if (k == "seqlen_kv") return "KV length S (tokens)";
  return k;
}

ChartSeries series(const std::string& label, const std::vector<double>& x, const ModelRun& run,
                   double (*get)(const model::Result&), const char* color, bool dashed = false) {
  ChartSeries s;
  s.label = label;
  s.x = x;
  for (const auto& p : run.points) s.y.push_back(get(p.result) / 1e9);
  s.color = color;
  s.dashed = dashed;
  return s;
}

void write(const std::string& path, const std::string& svg) {
  write_output_file(path, svg);
  report_stream({path}) << "wrote " << (path == kStdout ? std::string("standard output") : path) << "\n";
}

void check_svg(const std::string& path) {
  if (path.size() < 4 || path.substr(path.size() - 4) != ".svg")
    user_error("-o {}: simfa plot writes SVG only (name the file *.svg; simfa.plot in Python "
               "writes other formats)", path);
}

void plot_traffic(const PlotOpts& o) {
  const ModelRun run = evaluate_model(o.flags, "seqlen=16K:64K:8K");
  const auto x = sweep_x(run, "traffic");
  Chart c;
  c.title = o.title.empty() ? fmt::format("DRAM traffic{}", run.model.empty() ? "" : " - " + run.model)
                            : o.title;
  c.subtitle = describe_run(run);
  c.xlabel = x_label(run);
  c.ylabel = "DRAM traffic (GB)";
  c.xticks = run.swept_keys[0].rfind("seqlen", 0) == 0 ? TickStyle::Tokens : TickStyle::Plain;
  c.series.push_back(series("GenZ / ideal cache (Eq. 3)", x, run,
                            [](const model::Result& r) { return r.genz_dram_bytes; }, kGrey, true));
  c.series.push_back(series("realistic, K/V per wave (Eq. 6)", x, run,
                            [](const model::Result& r) { return r.dram_real_bytes; }, kOrange, true));
  c.series.push_back(series("SimFA model (regime by Eq. 4)", x, run,
                            [](const model::Result& r) { return r.dram_bytes; }, kBlue));
  if (!o.simulated.empty())
    c.series.push_back(read_points(o.simulated, "--simulated", "simulated", kGreen));
  if (!o.measured.empty())
    c.series.push_back(read_points(o.measured, "--measured", "measured", kRed));
  // The realistic regime: where Eq. 4 fails. On a sequence-length axis it starts exactly where
  // 2·P·S·D reaches the effective L2.
  double first = 0, last = 0;
  for (std::size_t i = 0; i < run.points.size(); ++i)
    if (run.points[i].result.regime == model::Regime::Realistic) {
      if (first == 0) first = i > 0 ? (x[i - 1] + x[i]) / 2 : x[i];
      last = x[i];
    }
  const auto& p0 = run.points.front();
  if (run.swept_keys[0] == "seqlen" || run.swept_keys[0] == "seqlen_kv") {
    const double s_star = p0.result.l2_effective_bytes /
                          (2.0 * spec::dtype_bytes(p0.shape.dtype) * double(p0.shape.head_dim));
    c.vlines.push_back({s_star, fmt::format("2PSD = L2_eff at S = {:.0f}", s_star)});
    if (last > 0) first = std::max(x.front(), s_star);
  }
  if (last > 0) {
    c.shade_from = first;
    c.shade_to = 1e300;  // to the right edge
    c.shade_label = "realistic regime";
  }
  write(o.output, render_svg(c));
}

void plot_l2(const PlotOpts& o) {
  const ModelRun run = evaluate_model(o.flags, "seqlen=16K:64K:8K");
  const auto x = sweep_x(run, "l2");
  Chart c;
  c.title = o.title.empty() ? fmt::format("L2 traffic{}", run.model.empty() ? "" : " - " + run.model)
                            : o.title;
  c.subtitle = describe_run(run);
  c.xlabel = x_label(run);
  c.ylabel = "L2 traffic (GB)";
  c.xticks = run.swept_keys[0].rfind("seqlen", 0) == 0 ? TickStyle::Tokens : TickStyle::Plain;
  c.series.push_back(series("L2 demand (Eq. 2) = LLM-Viewer DRAM", x, run,
                            [](const model::Result& r) { return r.l2_bytes; }, kBlue));
  c.series.push_back(series("asymptotic (Eq. 8)", x, run,
                            [](const model::Result& r) { return r.l2_bytes_asym; }, kGrey, true));
  bool multicast = false;
  for (const auto& p : run.points) multicast |= p.result.cluster > 1;
  if (multicast)
    c.series.push_back(series("with FA3 cluster multicast", x, run,
                              [](const model::Result& r) { return r.l2_bytes_coalesced; }, kPurple,
                              true));
  if (!o.simulated.empty())
    c.series.push_back(read_points(o.simulated, "--simulated", "simulated", kGreen));
  if (!o.measured.empty())
    c.series.push_back(read_points(o.measured, "--measured", "measured", kRed));
  write(o.output, render_svg(c));
}

void plot_roofline(const PlotOpts& o) {
  const ModelRun run = evaluate_model(o.flags, "seqlen=16K:64K:8K");
  const auto& g = run.gpu;
  const bool fp8 = run.points.front().shape.dtype == spec::DType::FP8_E4M3;
  const double n_sm = double(run.points.front().result.num_sms);
  const double peak = n_sm * (fp8 ? g.flops_per_cycle_fp8 : g.flops_per_cycle_16bit) * g.clock_hz / 1e12;
  const double bw_dram = g.dram_bytes_per_s / 1e12, bw_l2 = g.l2_bytes_per_cycle * g.clock_hz / 1e12;
  Chart c;
  c.title = o.title.empty() ? fmt::format("Roofline{}", run.model.empty() ? "" : " - " + run.model)
                            : o.title;
  c.subtitle = describe_run(run);
  c.xlabel = "arithmetic intensity (FLOP/byte)";
  c.ylabel = "performance (TFLOP/s)";
  c.logx = c.logy = true;
  ChartSeries rd{"DRAM roof", {}, {}, kGrey, true, false, false};
  ChartSeries rl{"L2 roof", {}, {}, kPurple, true, false, true};
  for (double i = 0.1; i <= 1e5; i *= 1.25) {
    rd.x.push_back(i), rd.y.push_back(std::min(peak, i * bw_dram));
    rl.x.push_back(i), rl.y.push_back(std::min(peak, i * bw_l2));
  }
  ChartSeries pd{"vs DRAM traffic", {}, {}, kOrange, false, true, false};
  ChartSeries pl{"vs L2 traffic", {}, {}, kBlue, false, true, false};
  for (const auto& p : run.points) {
    const auto& r = p.result;
    const double perf = r.flops / (r.latency_us * 1e-6) / 1e12;
    pd.x.push_back(r.flops / r.dram_bytes), pd.y.push_back(perf);
    pl.x.push_back(r.flops / r.l2_bytes_coalesced), pl.y.push_back(perf);
  }
  c.series = {rd, rl, pd, pl};
  write(o.output, render_svg(c));
}

}  // namespace

void add_plot_command(CLI::App& app) {
  auto* plot = app.add_subcommand("plot", "SVG figures of the analytic model");
  plot->require_subcommand(1);
  auto add = [&](const char* name, const char* doc, void (*fn)(const PlotOpts&)) {
    auto* cmd = plot->add_subcommand(name, doc);
    auto o = std::make_shared<PlotOpts>();
    add_model_flags(cmd, o->flags);
    o->output = std::string("simfa-") + name + ".svg";
    cmd->add_option("-o,--output", o->output, "SVG file to write")->capture_default_str()
        ->check(output_file());
    cmd->add_option("--title", o->title, "figure title");
    if (std::string(name) != "roofline") {
      cmd->add_option("--measured", o->measured, "CSV of measured points: x,bytes (e.g. from ncu)");
      cmd->add_option("--simulated", o->simulated, "CSV of simulated points: x,bytes");
    }
    cmd->footer("Default sweep: --sweep seqlen=16K:64K:8K (the paper's Fig. 8/9 range).");
    cmd->callback([o, fn] {
      check_svg(o->output);
      fn(*o);
    });
  };
  add("traffic", "DRAM traffic vs. a sweep: ideal (GenZ), realistic and the model (Fig. 9)",
      plot_traffic);
  add("l2", "L2 traffic vs. a sweep, with its asymptote (Fig. 8)", plot_l2);
  add("roofline", "each sweep point on the DRAM and L2 rooflines", plot_roofline);
}

}  // namespace simfa::cli
