// The measurements CSV reader (strict: every problem is one UserError naming file:line and
// column) and the error statistics of a validation.
#include "report/measurements.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "sim/csv.h"
#include "sim/error.h"
#include "sim/files.h"
#include "api/workload.h"
#include "spec/attention.h"

namespace simfa::report {

namespace {

const std::vector<std::string>& required_columns() {
  static const std::vector<std::string> v = {"case", "batch", "seqlen", "heads", "head_dim", "causal", "measured_us"};
  return v;
}
// Columns of every row, whatever its workload.
const std::vector<std::string>& common_columns() {
  static const std::vector<std::string> v = {"case", "measured_us", "workload", "clock_mhz", "measured_clock_mhz",
                                             "gpu"};
  return v;
}
// The shape keys of the workloads other than FA3 (their columns), in registry order.
const std::vector<std::string>& other_workload_columns() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto* w : workload_kinds().all()) {
      if (w->name == "fa3") continue;
      for (std::size_t i = 0; i < w->make.num_keys; ++i) {
        const std::string k(w->make.keys[i].key);
        if (std::count(required_columns().begin(), required_columns().end(), k) == 0 &&
            std::count(out.begin(), out.end(), k) == 0 && k != "dtype")
          out.push_back(k);
      }
    }
    return out;
  }();
  return v;
}
const std::vector<std::string>& optional_columns() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out = {"seqlen_kv", "kv_seqlen", "heads_kv", "dtype", "clock_mhz", "measured_clock_mhz", "gpu",
                                    "workload"};
    for (const auto& c : other_workload_columns()) out.push_back(c);
    return out;
  }();
  return v;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Edit distance, for "did you mean" on column names.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(const std::string& col) {
  std::string best;
  std::size_t best_d = 3;
  for (const auto* list : {&required_columns(), &optional_columns()})
    for (const auto& c : *list) {
      const std::size_t d = distance(col, c);
      if (d < best_d) best_d = d, best = c;
    }
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

std::int64_t positive_int(const std::string& text, const std::string& where, const std::string& col) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    user_error("{}: column '{}': expected a positive integer, got {}", where, col, quote(text));
  if (v <= 0) user_error("{}: column '{}': must be at least 1, got {}", where, col, v);
  return v;
}

double positive_double(const std::string& text, const std::string& where, const std::string& col) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v))
    user_error("{}: column '{}': expected a number, got {}", where, col, quote(text));
  if (v <= 0) user_error("{}: column '{}': must be positive, got {}", where, col, text);
  return v;
}

bool boolean(std::string text, const std::string& where, const std::string& col) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "no") return false;
  user_error("{}: column '{}': expected 0/1 (or true/false, yes/no), got {}", where, col, quote(text));
}

}  // namespace

std::vector<MeasuredCase> read_measurements(const std::string& path) {
  std::ifstream in = open_input_file(path, "measurements file");
  return parse_measurements(in, path);
}

std::vector<MeasuredCase> parse_measurements(std::istream& in, const std::string& name) {
  const CsvTable table = parse_csv(in, name);
  const std::vector<std::string>& header = table.header;
  if (table.header_line == 0)
    user_error("{}: empty file (expected a header: {}, ...)", name, join(required_columns()));
  std::map<std::string, std::size_t> col;  // name -> index
  {
    const std::string where = fmt::format("{}:{}", name, table.header_line);
    for (std::size_t i = 0; i < header.size(); ++i) {
      const std::string& c = header[i];
      if (c.empty()) user_error("{}: column {} of the header has no name", where, i + 1);
      const bool known = std::count(required_columns().begin(), required_columns().end(), c) ||
                         std::count(optional_columns().begin(), optional_columns().end(), c);
      if (!known)
        user_error("{}: unknown column '{}'{}; columns are {} (required) and {} (optional)", where, c, suggestion(c),
                   join(required_columns()), join(optional_columns()));
      if (!col.emplace(c, i).second) user_error("{}: column '{}' appears twice", where, c);
    }
    if (col.count("seqlen_kv") && col.count("kv_seqlen"))
      user_error("{}: columns 'seqlen_kv' and 'kv_seqlen' are the same column (kv_seqlen is its old name): give one",
                 where);
    if (auto it = col.find("kv_seqlen"); it != col.end()) col.emplace("seqlen_kv", it->second), col.erase(it);
    // With a workload column, the attention columns are required of each FA3 row instead.
    for (const auto& r : required_columns())
      if (!col.count(r) && (!col.count("workload") || r == "case" || r == "measured_us"))
        user_error("{}: missing column '{}' (required: {})", where, r, join(required_columns()));
  }
  std::vector<MeasuredCase> cases;
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    const std::vector<std::string>& f = table.rows[row];
    const std::string where = table.where(row);
    auto cell = [&](const std::string& c) -> const std::string* {
      auto it = col.find(c);
      return it == col.end() || f[it->second].empty() ? nullptr : &f[it->second];
    };
    auto required = [&](const std::string& c) -> const std::string& {
      const std::string* v = cell(c);
      if (!v) user_error("{}: column '{}' is empty", where, c);
      return *v;
    };
    // The columns every workload shares (the clock, the GPU), then the case joins the list.
    auto add_case = [&](MeasuredCase& m) {
      if (const std::string* c = cell("clock_mhz")) m.clock_mhz = positive_double(*c, where, "clock_mhz");
      if (const std::string* c = cell("measured_clock_mhz")) {
        if (m.clock_mhz > 0)
          user_error("{}: give clock_mhz (the clock the GPU was set to) or measured_clock_mhz (the clock "
                     "measured during the run), not both",
                     where);
        m.clock_mhz = positive_double(*c, where, "measured_clock_mhz");
        m.clock_measured = true;
      }
      if (const std::string* g = cell("gpu")) m.gpu = *g;
      cases.push_back(std::move(m));
    };
    MeasuredCase m;
    m.where = where;
    m.name = required("case");
    if (const std::string* w = cell("workload")) {
      const auto names = workload_kinds().names();
      if (std::count(names.begin(), names.end(), *w) == 0)
        user_error("{}: column 'workload': unknown workload {} (expected one of: {})", where, quote(*w),
                   workload_kinds().names_text());
      m.workload = *w;
    }
    if (m.workload != "fa3") {
      // Another workload: its own shape keys, checked when the case is set up (api/workload.h).
      m.measured_us = positive_double(required("measured_us"), where, "measured_us");
      for (const auto& [c, i] : col) {
        if (f[i].empty() || std::count(common_columns().begin(), common_columns().end(), c)) continue;
        m.shape.emplace_back(c, f[i]);
      }
      add_case(m);
      continue;
    }
    for (const auto& c : other_workload_columns())
      if (cell(c)) user_error("{}: column '{}' does not apply to workload fa3 (give the row's workload)", where, c);
    m.batch = positive_int(required("batch"), where, "batch");
    m.seqlen = positive_int(required("seqlen"), where, "seqlen");
    m.heads = positive_int(required("heads"), where, "heads");
    m.head_dim = positive_int(required("head_dim"), where, "head_dim");
    m.causal = boolean(required("causal"), where, "causal");
    m.measured_us = positive_double(required("measured_us"), where, "measured_us");
    m.seqlen_kv = cell("seqlen_kv") ? positive_int(*cell("seqlen_kv"), where, "seqlen_kv") : m.seqlen;
    m.heads_kv = cell("heads_kv") ? positive_int(*cell("heads_kv"), where, "heads_kv") : m.heads;
    if (m.heads % m.heads_kv != 0)
      user_error("{}: column 'heads_kv': {} does not divide heads = {} (heads counts query heads)", where, m.heads_kv,
                 m.heads);
    if (const std::string* d = cell("dtype")) {
      try {
        spec::parse_dtype(*d, "dtype");
      } catch (const UserError&) {
        user_error("{}: column 'dtype': expected fp16, bf16 or fp8_e4m3, got {}", where, quote(*d));
      }
      m.dtype = *d;
    }
    add_case(m);
  }
  if (cases.empty()) user_error("{}: no cases (only a header)", name);
  return cases;
}

double error_pct(double simulated, double measured) { return 100.0 * (simulated - measured) / measured; }

ErrorSummary summarize(const std::vector<CaseResult>& results) {
  ErrorSummary s;
  s.cases = results.size();
  for (const auto& r : results) {
    s.mape_pct += std::abs(r.error_pct);
    s.max_abs_error_pct = std::max(s.max_abs_error_pct, std::abs(r.error_pct));
  }
  if (s.cases) s.mape_pct /= static_cast<double>(s.cases);
  return s;
}

std::string validation_table(const std::vector<CaseResult>& results, const ErrorSummary& s) {
  std::size_t w = 4;
  for (const auto& r : results) w = std::max(w, r.name.size());
  std::string o = fmt::format("{:<{}}  {:>12}  {:>12}  {:>8}\n", "case", w, "measured_us", "simulated_us", "error");
  for (const auto& r : results)
    o += fmt::format("{:<{}}  {:>12.2f}  {:>12.2f}  {:>+7.1f}%\n", r.name, w, r.measured_us, r.simulated_us, r.error_pct);
  o += fmt::format("MAPE {:.1f}%, max |error| {:.1f}% over {} case{}\n", s.mape_pct, s.max_abs_error_pct, s.cases,
                   s.cases == 1 ? "" : "s");
  return o;
}

nlohmann::ordered_json validation_json(const std::vector<CaseResult>& results, const ErrorSummary& s) {
  nlohmann::ordered_json j;
  j["mape_pct"] = s.mape_pct;
  j["max_abs_error_pct"] = s.max_abs_error_pct;
  j["cases"] = nlohmann::ordered_json::array();
  for (const auto& r : results)
    j["cases"].push_back({{"case", r.name},
                          {"measured_us", r.measured_us},
                          {"simulated_us", r.simulated_us},
                          {"error_pct", r.error_pct}});
  return j;
}

}  // namespace simfa::report
