// The HTML page of `simfa report` (html_report.h): what each study varies decides the x axis and
// the lines; the charts are svg_chart.h's, inlined.
#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "report/svg_chart.h"
#include "sim/error.h"

#ifndef SIMFA_VERSION
#define SIMFA_VERSION "unknown"
#endif

namespace simfa::report {
namespace {

using Row = std::vector<DbCell>;
using Getter = std::function<std::optional<double>(const Row&)>;

// Line colours: matplotlib's tab10, then ten darker ones; cycled beyond twenty lines.
constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                                    "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39",
                                    "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363"};
constexpr const char* kStyleGrey = "#555555";

// The input columns, in the order they name a line and appear in tables (configuration keys go
// before `actions`).
constexpr const char* kShapeInputs[] = {"gpu",      "variant", "model", "workload", "dtype", "causal",
                                        "head_dim", "heads_kv", "group", "batch",    "seqlen_q", "seqlen_kv",
                                        "m",        "n",        "k"};
// Numeric inputs that may be the x axis when no sequence length varies, in order of preference.
constexpr const char* kXCandidates[] = {"batch", "heads_kv", "group", "head_dim", "m", "n", "k"};

// Text for HTML (element content and attribute values): the five special characters as entities,
// control bytes other than tab and line feed as \xNN.
std::string h(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default:
        if ((c < 0x20 && ch != '\n' && ch != '\t') || c == 0x7f) o += fmt::format("\\x{:02x}", c);
        else o += ch;
    }
  }
  return o;
}

// About four significant digits, no exponent.
std::string num(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  const int decimals = a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : a >= 0.01 ? 4 : 6;
  return fmt::format("{:.{}f}", v, decimals);
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string o;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) o += sep;
    o += parts[i];
  }
  return o;
}

std::string id(const DbCell& c) { return c.null ? std::string("\0null", 5) : c.text; }

bool is_seqlen(std::string_view col) { return col == "seqlen_q" || col == "seqlen_kv"; }

class StudyPage {
 public:
  StudyPage(const ResultsDb& db, std::string name, const DbStudy* meta, std::size_t index)
      : db_(db), name_(std::move(name)), meta_(meta), index_(index) {
    for (const auto& r : db_.points)
      if (db_.cell(r, "study").text == name_) rows_.push_back(&r);
    for (const char* c : kShapeInputs)
      if (db_.column(c) != ResultsDb::npos) inputs_.emplace_back(c);
    for (const auto& c : db_.config_columns()) inputs_.push_back(c);
    if (db_.column("actions") != ResultsDb::npos) inputs_.emplace_back("actions");
    for (const auto& c : inputs_)
      if (distinct(c).size() > 1) varied_.push_back(c);
    choose_x();
    choose_key();
    make_lines();
  }

  std::string anchor() const { return fmt::format("study-{}", index_ + 1); }
  const std::string& name() const { return name_; }
  std::size_t size() const { return rows_.size(); }

  std::string html() const {
    std::string o = fmt::format("<section class=\"study\" id=\"{}\">\n<h2>Study <code>{}</code></h2>\n", anchor(),
                                h(name_));
    o += header();
    o += failed_table();
    if (rows_.empty()) {
      o += "<p class=\"note\">No points of this study are in the database yet.</p>\n</section>\n";
      return o;
    }
    o += charts();
    o += "<h3>All points</h3>\n" + points_table();
    o += "</section>\n";
    return o;
  }

 private:
  struct Line {
    std::string label, color;
    std::map<double, std::vector<const Row*>> at;  // x -> its points, in point order
  };

  const DbCell& cell(const Row& r, std::string_view col) const { return db_.cell(r, col); }

  // The distinct values of `col` over the study's points, in order of first appearance.
  std::vector<const DbCell*> distinct(std::string_view col) const {
    std::vector<const DbCell*> out;
    std::set<std::string> seen;
    for (const Row* r : rows_)
      if (seen.insert(id(cell(*r, col))).second) out.push_back(&cell(*r, col));
    return out;
  }

  // Every value of `col` is a number and there are at least `min_distinct` of them.
  bool numeric(std::string_view col, std::size_t min_distinct) const {
    std::set<double> values;
    for (const Row* r : rows_) {
      const DbCell& c = cell(*r, col);
      if (c.null) continue;
      if (!c.is_number) return false;
      values.insert(c.number);
    }
    return values.size() >= min_distinct;
  }

  // Whether the value of `col` follows from the values of `by` on every point.
  bool determined(std::string_view col, const std::vector<std::string>& by) const {
    std::map<std::vector<std::string>, std::string> seen;
    for (const Row* r : rows_) {
      std::vector<std::string> k;
      for (const auto& b : by) k.push_back(id(cell(*r, b)));
      const auto [it, inserted] = seen.emplace(std::move(k), id(cell(*r, col)));
      if (!inserted && it->second != id(cell(*r, col))) return false;
    }
    return true;
  }

  bool varies(std::string_view col) const { return std::find(varied_.begin(), varied_.end(), col) != varied_.end(); }

  // The x axis: the KV length, else the query length, else the first numeric input that varies;
  // when none varies, the first numeric input the points have (one x for all).
  void choose_x() {
    std::vector<std::string> order = {"seqlen_kv", "seqlen_q"};
    for (const char* c : kXCandidates) order.emplace_back(c);
    for (const auto& c : db_.config_columns()) order.push_back(c);
    for (const auto& c : order)
      if (db_.column(c) != ResultsDb::npos && varies(c) && numeric(c, 2)) {
        x_ = c;
        return;
      }
    for (const auto& c : order)
      if (db_.column(c) != ResultsDb::npos && numeric(c, 1)) {
        x_ = c;
        return;
      }
  }

  // The varied inputs that tell lines apart: all but the x axis and `actions` (a point's
  // simulated and analytic figures are drawn whichever point holds them), less the other sequence
  // length when it follows from x (L = S) and a model preset's head counts and size.
  void choose_key() {
    for (const auto& c : varied_) {
      if (c == x_ || c == "actions") continue;
      if (is_seqlen(c) && is_seqlen(x_) && determined(c, {x_})) continue;
      key_.push_back(c);
    }
    const bool model = std::find(key_.begin(), key_.end(), "model") != key_.end();
    if (model)
      std::erase_if(key_, [&](const std::string& c) {
        return (c == "heads_kv" || c == "group" || c == "head_dim") && determined(c, {"model"});
      });
    // A configuration key that a variant or a GPU sets (a variant's overrides; a [[zip]] pairing
    // each GPU with a kernel) is named by the variant or the GPU already.
    std::vector<std::string> names;
    for (const char* n : {"gpu", "variant"})
      if (std::find(key_.begin(), key_.end(), n) != key_.end()) names.emplace_back(n);
    const auto config = db_.config_columns();
    if (!names.empty())
      std::erase_if(key_, [&](const std::string& c) {
        return std::find(config.begin(), config.end(), c) != config.end() && determined(c, names);
      });
  }

  std::string label_part(const std::string& col, const DbCell& c) const {
    if (c.null) return col + " (none)";
    if (col == "gpu" || col == "variant" || col == "model" || col == "workload" || col == "dtype")
      return c.text.empty() ? col + " ''" : c.text;
    if (col == "causal") return c.is_number && c.number != 0 ? "causal" : "non-causal";
    return col + "=" + c.text;
  }

  void make_lines() {
    std::map<std::vector<std::string>, std::size_t> index;
    for (const Row* r : rows_) {
      const DbCell& xc = x_.empty() ? DbCell{} : cell(*r, x_);
      if (xc.null || !xc.is_number) continue;
      std::vector<std::string> k;
      for (const auto& c : key_) k.push_back(id(cell(*r, c)));
      auto [it, inserted] = index.emplace(k, lines_.size());
      if (inserted) {
        Line l;
        std::vector<std::string> parts;
        for (const auto& c : key_) parts.push_back(label_part(c, cell(*r, c)));
        if (parts.empty()) {
          parts.push_back(label_part("gpu", cell(*r, "gpu")));
          if (!cell(*r, "variant").text.empty()) parts.push_back(cell(*r, "variant").text);
        }
        l.label = join(parts, ", ");
        l.color = kPalette[lines_.size() % std::size(kPalette)];
        lines_.push_back(std::move(l));
      }
      lines_[it->second].at[xc.number].push_back(r);
    }
  }

  // The first value `get` has among `rows` (the points of a line at one x, in point order).
  static std::optional<double> first(const std::vector<const Row*>& rows, const Getter& get) {
    for (const Row* r : rows)
      if (auto v = get(*r)) return v;
    return std::nullopt;
  }

  Getter column(std::string col, double scale = 1) const {
    return [this, col, scale](const Row& r) -> std::optional<double> {
      const DbCell& c = cell(r, col);
      if (c.null || !c.is_number) return std::nullopt;
      return c.number * scale;
    };
  }

  // The analytic TFLOPS: model_flops / model_latency_us.
  Getter model_tflops() const {
    return [this](const Row& r) -> std::optional<double> {
      const DbCell &f = cell(r, "model_flops"), &t = cell(r, "model_latency_us");
      if (f.null || t.null || !f.is_number || !t.is_number || t.number <= 0) return std::nullopt;
      return f.number / t.number / 1e6;
    };
  }

  std::string x_label() const {
    if (x_ == "seqlen_kv") {
      const bool same = std::all_of(rows_.begin(), rows_.end(), [&](const Row* r) {
        return cell(*r, "seqlen_q").null || cell(*r, "seqlen_q").text == cell(*r, "seqlen_kv").text;
      });
      return same ? "sequence length L = S (tokens)" : "KV length S (tokens)";
    }
    if (x_ == "seqlen_q") return "query length L (tokens)";
    return x_;
  }

  Chart base_chart(std::string title, std::string ylabel) const {
    Chart c;
    c.title = std::move(title);
    c.ylabel = std::move(ylabel);
    c.xlabel = x_label();
    c.width = 600;
    c.height = 380;
    c.legend = LegendPlace::Below;
    c.tight_log = true;
    c.yticks = TickStyle::Si;  // 200k, not 2e5
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& l : lines_)
      for (const auto& [x, rows] : l.at) {
        lo = any ? std::min(lo, x) : x, hi = any ? std::max(hi, x) : x;
        any = true;
      }
    c.logx = any && lo > 0 && hi / lo >= 16;
    if (is_seqlen(x_)) c.xticks = TickStyle::Tokens;
    return c;
  }

  static void maybe_logy(Chart& c) {
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& s : c.series)
      for (double y : s.y) {
        if (y <= 0) return;
        lo = any ? std::min(lo, y) : y, hi = any ? std::max(hi, y) : y;
        any = true;
      }
    if (any && hi / lo >= 30) c.logy = true;
  }

  struct Kind {
    std::string name;
    Getter get;
    bool simulated;  // solid with markers; else the analytic model, dashed
  };

  // One line per line of the study and kind; nullopt when no point has a value.
  std::optional<Chart> lines_chart(std::string title, std::string ylabel, const std::vector<Kind>& kinds,
                                   bool log_ok) const {
    Chart c = base_chart(std::move(title), std::move(ylabel));
    std::vector<ChartSeries> legend;
    std::set<std::size_t> kinds_used;
    // Analytic lines first, so that the simulated ones are drawn over them.
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < kinds.size(); ++k)
      if (!kinds[k].simulated) order.push_back(k);
    for (std::size_t k = 0; k < kinds.size(); ++k)
      if (kinds[k].simulated) order.push_back(k);
    std::vector<bool> line_used(lines_.size(), false);
    for (std::size_t k : order)
      for (std::size_t i = 0; i < lines_.size(); ++i) {
        ChartSeries s;
        s.label = lines_[i].label + " (" + kinds[k].name + ")";
        s.color = lines_[i].color;
        s.markers = kinds[k].simulated;
        s.dashed = !kinds[k].simulated;
        s.in_legend = false;
        for (const auto& [x, rows] : lines_[i].at)
          if (auto y = first(rows, kinds[k].get)) s.x.push_back(x), s.y.push_back(*y);
        if (s.x.empty()) continue;
        line_used[i] = true;
        kinds_used.insert(k);
        c.series.push_back(std::move(s));
      }
    if (c.series.empty()) return std::nullopt;
    for (std::size_t i = 0; i < lines_.size(); ++i)
      if (line_used[i]) c.series.push_back(ChartSeries{lines_[i].label, {}, {}, lines_[i].color, true, false});
    if (kinds_used.size() > 1 || (kinds_used.size() == 1 && !kinds[*kinds_used.begin()].simulated))
      for (std::size_t k : kinds_used)
        c.series.push_back(
            ChartSeries{kinds[k].name, {}, {}, kStyleGrey, true, kinds[k].simulated, !kinds[k].simulated});
    if (log_ok) maybe_logy(c);
    return c;
  }

  // The paper's Fig. 9 for one line: simulated DRAM bytes beside the model's regime lines, the
  // realistic regime shaded.
  std::optional<Chart> regime_chart(const Line& l) const {
    Chart c = base_chart("DRAM traffic regimes: " + l.label, "DRAM traffic (GB)");
    struct K {
      const char* name;
      const char* col;
      const char* color;
      bool markers, dashed, dotted;
    };
    const K kinds[] = {{"GenZ / LLM-Viewer", "genz_dram_bytes", "#7f7f7f", false, false, true},
                       {"ideal cache (Eq. 3)", "model_dram_ideal_bytes", "#9467bd", false, true, false},
                       {"realistic, K/V per wave (Eq. 6)", "model_dram_real_bytes", "#ff7f0e", false, true, false},
                       {"model (regime by Eq. 4)", "model_dram_bytes", "#1f77b4", false, false, false},
                       {"simulated", "dram_bytes", "#2ca02c", true, false, false}};
    for (const K& k : kinds) {
      ChartSeries s{k.name, {}, {}, k.color, true, k.markers, k.dashed, k.dotted};
      const Getter get = column(k.col, 1e-9);
      for (const auto& [x, rows] : l.at)
        if (auto y = first(rows, get)) s.x.push_back(x), s.y.push_back(*y);
      if (!s.x.empty()) c.series.push_back(std::move(s));
    }
    if (c.series.empty()) return std::nullopt;
    // Shade from between the last ideal and the first realistic point on, when the regime changes
    // once along x.
    double last_ideal = 0, first_real = 0;
    bool ideal = false, real = false, monotone = true;
    for (const auto& [x, rows] : l.at) {
      const DbCell* regime = nullptr;
      for (const Row* r : rows)
        if (!cell(*r, "model_regime").null) {
          regime = &cell(*r, "model_regime");
          break;
        }
      if (!regime) continue;
      if (regime->text == "realistic") {
        if (!real) first_real = x;
        real = true;
      } else if (regime->text == "ideal") {
        if (real) monotone = false;
        last_ideal = x, ideal = true;
      }
    }
    if (real && monotone) {
      c.shade_from = ideal ? (c.logx ? std::sqrt(last_ideal * first_real) : (last_ideal + first_real) / 2) : first_real;
      c.shade_to = 1e300;
      c.shade_label = "realistic regime";
    }
    maybe_logy(c);
    return c;
  }

  static std::string figure(const std::string& kind, const Chart& c) {
    return fmt::format("<figure class=\"chart\" data-chart=\"{}\">\n{}</figure>\n", kind, render_svg(c));
  }

  std::string charts() const {
    if (lines_.empty())
      return "<p class=\"note\">No charts: no point of this study has a numeric input to draw against.</p>\n";
    std::vector<std::string> missing;
    std::string o;
    using Figures = std::vector<std::pair<std::string, std::optional<Chart>>>;  // data-chart kind, chart
    auto section = [&](const std::string& heading, const std::string& note, const Figures& cs,
                       const std::string& what) {
      std::string figs;
      for (const auto& [kind, c] : cs)
        if (c) figs += figure(kind, *c);
      if (figs.empty()) {
        missing.push_back(what);
        return;
      }
      o += "<h3>" + h(heading) + "</h3>\n";
      if (!note.empty()) o += "<p class=\"note\">" + h(note) + "</p>\n";
      o += "<div class=\"charts\">\n" + figs + "</div>\n";
    };
    const std::string styles =
        "Solid lines with markers: simulated; dashed lines: the analytic model (docs/analytic-model.md).";
    section("Latency and throughput", styles,
            {{"latency", lines_chart("Latency", "latency (µs)",
                                     {{"simulated", column("latency_us"), true},
                                      {"analytic model", column("model_latency_us"), false}},
                                     true)},
             {"tflops", lines_chart("Throughput", "TFLOPS",
                                    {{"simulated", column("tflops"), true}, {"analytic model", model_tflops(), false}},
                                    false)}},
            "latency and throughput");
    Figures traffic;
    traffic.emplace_back("l2", lines_chart("L2 traffic", "L2 traffic (GB)",
                                           {{"simulated", column("l2_bytes", 1e-9), true},
                                            {"analytic model", column("model_l2_bytes", 1e-9), false}},
                                           true));
    if (lines_.size() > 1)
      traffic.emplace_back("dram", lines_chart("DRAM traffic", "DRAM traffic (GB)",
                                               {{"simulated", column("dram_bytes", 1e-9), true},
                                                {"analytic model", column("model_dram_bytes", 1e-9), false}},
                                               true));
    for (std::size_t i = 0; i < lines_.size() && i < kMaxRegimeCharts; ++i)
      traffic.emplace_back("dram-regimes", regime_chart(lines_[i]));
    std::string note = styles + " Regime charts (the paper's Fig. 9): the model's DRAM traffic with an ideal cache "
                                "(Eq. 3) and with K/V re-read by every wave (Eq. 6), the regime Eq. 4 picks (shaded "
                                "where realistic), GenZ's figure, and the simulated bytes.";
    if (lines_.size() > kMaxRegimeCharts)
      note += fmt::format(" Regime charts of the first {} of {} lines only.", kMaxRegimeCharts, lines_.size());
    section("Traffic: simulated and analytic", note, traffic, "traffic");
    section("Pipe utilization", "",
            {{"tensor", lines_chart("Tensor pipe", "utilization (% of SM cycles)",
                                    {{"simulated", column("tensor_util", 100), true}}, false)},
             {"mufu", lines_chart("MUFU pipe", "utilization (% of SM cycles)",
                                  {{"simulated", column("mufu_util", 100), true}}, false)},
             {"fp32", lines_chart("FP32 pipe", "utilization (% of SM cycles)",
                                  {{"simulated", column("fp32_util", 100), true}}, false)}},
            "pipe utilization (needs simulated points)");
    if (!missing.empty())
      o += "<p class=\"note\">Not drawn, no point has the values: " + h(join(missing, "; ")) +
           ".</p>\n";
    return o;
  }

  std::string header() const {
    std::map<std::string, std::size_t> status;
    for (const Row* r : rows_) ++status[cell(*r, "status").null ? "(none)" : cell(*r, "status").text];
    std::string counts = fmt::format("{} ok", status.count("ok") ? status.at("ok") : 0);
    std::size_t failed = 0;
    for (const auto& [s, n] : status)
      if (s != "ok") counts += fmt::format(", {} {}", n, s), failed += n;
    std::string o = "<table class=\"kv\">\n";
    auto row = [&](const std::string& k, const std::string& v_html) {
      o += "<tr><th>" + h(k) + "</th><td>" + v_html + "</td></tr>\n";
    };
    if (meta_ && !meta_->file.null) row("study file", "<code>" + h(meta_->file.text) + "</code>");
    std::string pts = fmt::format("{} in the database", rows_.size());
    if (meta_ && !meta_->points.null) pts = fmt::format("{} (the study expands to {})", pts, h(meta_->points.text));
    row("points", pts);
    row("outcome", fmt::format("<span class=\"{}\">{}</span>", failed ? "bad" : "ok", h(counts)));
    // The versions that made the points (with their commits); the study's when no point says.
    std::vector<std::string> versions;
    std::set<std::string> seen;
    for (const Row* r : rows_) {
      std::string v = cell(*r, "simfa_version").text;
      if (v.empty()) continue;
      if (!cell(*r, "simfa_commit").text.empty()) v += " (commit " + cell(*r, "simfa_commit").text + ")";
      if (seen.insert(v).second) versions.push_back(v);
    }
    if (versions.empty() && meta_ && !meta_->simfa_version.null) versions.push_back(meta_->simfa_version.text);
    if (!versions.empty()) row("simfa version", h(join(versions, "; ")));
    if (meta_ && !meta_->started_at.null) row("last sweep started", h(meta_->started_at.text));
    if (!varied_.empty()) {
      std::string v;
      for (const auto& c : varied_) {
        const auto values = distinct(c);
        std::vector<std::string> shown;
        for (std::size_t i = 0; i < values.size() && i < 8; ++i)
          shown.push_back(values[i]->null ? "(none)" : values[i]->text);
        if (values.size() > 8) shown.push_back(fmt::format("… {} values", values.size()));
        v += fmt::format("<code>{}</code>: {}<br>\n", h(c), h(join(shown, ", ")));
      }
      row("varied inputs", v);
    }
    std::vector<std::string> fixed;
    for (const auto& c : inputs_)
      if (!varies(c) && !rows_.empty() && !cell(*rows_.front(), c).null && !cell(*rows_.front(), c).text.empty())
        fixed.push_back(fmt::format("<code>{}</code> = {}", h(c), h(cell(*rows_.front(), c).text)));
    if (!fixed.empty()) row("fixed inputs", join(fixed, ", "));
    if (!lines_.empty() && !x_.empty())
      row("charts", fmt::format("against <code>{}</code>; {} line{}{}", h(x_), lines_.size(),
                                lines_.size() == 1 ? "" : "s",
                                key_.empty() ? "" : h(fmt::format(" (one per {})", join(key_, " × ")))));
    o += "</table>\n";
    if (meta_ && !meta_->text.null && !meta_->text.text.empty())
      o += "<details><summary>The study file</summary>\n<pre>" + h(meta_->text.text) + "</pre></details>\n";
    return o;
  }

  // The varied inputs of a point as table cells.
  std::string input_cells(const Row& r) const {
    std::string o = fmt::format("<td class=\"num\">{}</td>", h(cell(r, "point_index").text));
    for (const auto& c : varied_) {
      const DbCell& v = cell(r, c);
      o += fmt::format("<td{}>{}</td>", v.is_number ? " class=\"num\"" : "", h(v.text));
    }
    return o;
  }

  std::string input_heads() const {
    std::string o = "<th>#</th>";
    for (const auto& c : varied_) o += "<th>" + h(c) + "</th>";
    return o;
  }

  std::string failed_table() const {
    std::vector<const Row*> failed;
    for (const Row* r : rows_)
      if (cell(*r, "status").text != "ok") failed.push_back(r);
    if (failed.empty()) return "";
    std::string o = fmt::format("<h3>Failed points ({})</h3>\n<div class=\"wide\"><table class=\"failed\">\n<tr>{}"
                                "<th>status</th><th>message</th></tr>\n",
                                failed.size(), input_heads());
    for (const Row* r : failed)
      o += fmt::format("<tr>{}<td class=\"bad\">{}</td><td><pre class=\"msg\">{}</pre></td></tr>\n", input_cells(*r),
                       h(cell(*r, "status").null ? "(none)" : cell(*r, "status").text), h(cell(*r, "message").text));
    return o + "</table></div>\n";
  }

  std::string points_table() const {
    struct Out {
      const char* head;
      Getter get;
      bool percent = false;
    };
    const std::vector<Out> outs = {{"latency µs", column("latency_us")},
                                   {"TFLOPS", column("tflops")},
                                   {"L2 GB", column("l2_bytes", 1e-9)},
                                   {"DRAM GB", column("dram_bytes", 1e-9)},
                                   {"tensor %", column("tensor_util", 100)},
                                   {"MUFU %", column("mufu_util", 100)},
                                   {"FP32 %", column("fp32_util", 100)},
                                   {"model latency µs", column("model_latency_us")},
                                   {"model TFLOPS", model_tflops()},
                                   {"model L2 GB", column("model_l2_bytes", 1e-9)},
                                   {"model DRAM GB", column("model_dram_bytes", 1e-9)}};
    std::vector<const Out*> shown;
    for (const auto& out : outs)
      if (std::any_of(rows_.begin(), rows_.end(), [&](const Row* r) { return out.get(*r).has_value(); }))
        shown.push_back(&out);
    std::vector<std::pair<const char*, const char*>> texts;  // head, column
    for (const auto& hc : std::vector<std::pair<const char*, const char*>>{
             {"sampled", "sampled"}, {"regime", "model_regime"}, {"bound", "model_bound"}})
      if (std::any_of(rows_.begin(), rows_.end(), [&](const Row* r) { return !cell(*r, hc.second).null; }))
        texts.push_back(hc);  // (a structured binding cannot be captured before C++20's P1091 in clang 14)
    std::string o = "<div class=\"wide\"><table class=\"points\">\n<tr>" + input_heads() + "<th>status</th>";
    for (const Out* out : shown) o += "<th>" + h(out->head) + "</th>";
    for (const auto& [head, col] : texts) o += "<th>" + h(head) + "</th>";
    o += "</tr>\n";
    for (const Row* r : rows_) {
      const std::string status = cell(*r, "status").null ? "(none)" : cell(*r, "status").text;
      o += fmt::format("<tr>{}<td class=\"{}\">{}</td>", input_cells(*r), status == "ok" ? "ok" : "bad", h(status));
      for (const Out* out : shown) {
        const auto v = out->get(*r);
        o += fmt::format("<td class=\"num\">{}</td>", v ? num(*v) : "");
      }
      for (const auto& [head, col] : texts) {
        const DbCell& c = cell(*r, col);
        std::string t = c.text;
        if (std::string_view(col) == "sampled" && c.is_number) t = c.number != 0 ? "yes" : "no";
        o += "<td>" + h(t) + "</td>";
      }
      o += "</tr>\n";
    }
    return o + "</table></div>\n";
  }

  const ResultsDb& db_;
  std::string name_;
  const DbStudy* meta_;
  std::size_t index_;
  std::vector<const Row*> rows_;
  std::vector<std::string> inputs_, varied_, key_;
  std::string x_;
  std::vector<Line> lines_;
};

constexpr const char* kStyle = R"(body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 14px; color: #222;
  background: #fff; margin: 24px; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 19px; border-bottom: 2px solid #1f77b4; padding-bottom: 4px; margin-top: 40px; }
h3 { font-size: 16px; margin: 28px 0 6px; }
code, pre { font-family: "DejaVu Sans Mono", monospace; font-size: 13px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d8d8d8; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eef2f7; }
table.points, table.failed { font-size: 13px; }
table.points td, table.points th { padding: 2px 6px; }
table.points tr:nth-child(even) td, table.failed tr:nth-child(even) td { background: #f8f8f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kv th { background: none; border: none; color: #555; font-weight: normal; padding-right: 18px;
  white-space: nowrap; }
table.kv td { border: none; }
.ok { color: #23803a; }
.bad { color: #b3261e; font-weight: bold; }
pre.msg { margin: 0; white-space: pre-wrap; max-width: 760px; font-size: 12px; }
div.wide { overflow-x: auto; }
div.charts { display: flex; flex-wrap: wrap; gap: 16px; }
figure.chart { margin: 0; border: 1px solid #e2e2e2; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
p.note { color: #555; font-size: 13px; max-width: 1100px; }
details pre { background: #f6f6f6; padding: 8px; max-height: 420px; overflow: auto; }
nav li { margin: 2px 0; }
footer { margin-top: 40px; color: #777; font-size: 12px; }
)";

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string html_report(const ResultsDb& db, const HtmlReportOptions& o) {
  const auto all = db.study_names();
  std::vector<std::string> names;
  for (const auto& n : o.studies.empty() ? all : o.studies)
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  for (const auto& n : names)
    if (std::find(all.begin(), all.end(), n) == all.end())
      user_error("{}: no study '{}' (the database holds {})", db.path, n,
                 all.empty() ? std::string("none") : join(all, ", "));
  std::vector<StudyPage> pages;
  std::size_t points = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const DbStudy* meta = nullptr;
    for (const auto& s : db.studies)
      if (s.name == names[i]) meta = &s;
    pages.emplace_back(db, names[i], meta, i);
    points += pages.back().size();
  }
  const std::string title = o.title.empty() ? "simfa report: " + file_name(db.path) : o.title;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + h(title) + "</title>\n<style>\n" + kStyle + "</style>\n</head>\n<body>\n";
  out += "<h1>" + h(title) + "</h1>\n";
  out += fmt::format("<p class=\"note\">{} stud{}, {} point{} from <code>{}</code> (simfa sweep --db).</p>\n",
                     pages.size(), pages.size() == 1 ? "y" : "ies", points, points == 1 ? "" : "s",
                     h(file_name(db.path)));
  if (pages.empty()) out += "<p>The database holds no study.</p>\n";
  if (pages.size() > 1) {
    out += "<nav><ul>\n";
    for (const auto& p : pages)
      out += fmt::format("<li><a href=\"#{}\">{}</a> ({} points)</li>\n", p.anchor(), h(p.name()), p.size());
    out += "</ul></nav>\n";
  }
  for (const auto& p : pages) out += p.html();
  out += "<footer>Made by simfa report (simfa " SIMFA_VERSION ").</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace simfa::report
