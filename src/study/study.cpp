// Study files: TOML parsing with line numbers, checks of every value before anything runs, and the
// expansion into points (docs/studies.md).
#include "study/study.h"

#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "api/run.h"
#include "api/workload.h"
#include "model/gpu_spec.h"
#include "sim/error.h"
#include "sim/files.h"
#include "sim/units.h"
#include "study/point.h"

namespace simfa::study {
namespace {

constexpr std::uint64_t kMaxStudyBytes = 4 << 20;
// Far above any study a cluster finishes; a bigger product is surely a mistake (and its list would
// not fit in memory).
constexpr double kMaxPoints = 1e7;

const char* const kTopKeys[] = {"name", "description", "run", "gpus", "workload", "max_points",
                                "shape", "set", "zip", "variants"};

// A table's entries in the order the file writes them (toml++ iterates its keys sorted).
std::vector<std::pair<std::string, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<std::string, const toml::node*>> out;
  for (const auto& [k, node] : t) out.emplace_back(std::string(k.str()), &node);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    const auto& x = a.second->source().begin;
    const auto& y = b.second->source().begin;
    return x.line != y.line ? x.line < y.line : x.column < y.column;
  });
  return out;
}

class Parser {
 public:
  Parser(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(int line, const std::string& msg) const {
    throw UserError(line > 0 ? fmt::format("{}:{}: {}", file_, line, msg) : fmt::format("{}: {}", file_, msg));
  }
  std::string where(int line) const { return fmt::format("{}:{}", file_, line); }
  static int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

  // A scalar as text: strings as written, integers exactly, whole floats as integers, booleans as
  // true/false. `count` strings with K/M suffixes become integers ("64K" -> "65536").
  std::string scalar(const toml::node& n, const std::string& key, bool count) const {
    if (auto s = n.value<std::string>()) {
      if (count)
        if (auto v = units::parse_count(*s)) return fmt::format("{}", std::int64_t(*v));
      return *s;
    }
    if (n.is_integer()) return fmt::format("{}", *n.value<std::int64_t>());
    if (n.is_floating_point()) {
      const double d = *n.value<double>();
      if (d == std::floor(d) && std::fabs(d) < 9e15) return fmt::format("{}", std::int64_t(d));
      return fmt::format("{:.17g}", d);
    }
    if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
    fail(line_of(n), fmt::format("{}: expected a string, number or boolean, got a {}", key, type_name(n)));
  }

  static std::string_view type_name(const toml::node& n) {
    if (n.is_table()) return "table";
    if (n.is_array()) return "list";
    return "date or time";
  }

  // The values of a shape or configuration key: a scalar, a list of scalars, or (shape counts) a
  // range string "start:stop:step".
  std::vector<Value> values(const toml::node& n, const std::string& key, bool count, bool unique = true) const {
    std::vector<Value> out;
    auto one = [&](const toml::node& v) {
      const int line = line_of(v) ? line_of(v) : line_of(n);
      if (count)
        if (auto s = v.value<std::string>(); s && s->find(':') != std::string::npos) {
          const units::Range r = units::parse_range(*s, /*integer=*/true, std::size_t(kMaxPoints));
          if (!r.error.empty()) fail(line, fmt::format("{}: {}", key, r.error));
          for (double x : r.values) out.push_back({fmt::format("{}", std::int64_t(x)), line});
          return;
        }
      out.push_back({scalar(v, key, count), line});
    };
    if (const auto* arr = n.as_array()) {
      if (arr->empty()) fail(line_of(n), fmt::format("{}: an empty list gives no points", key));
      for (const auto& v : *arr) {
        if (v.is_array() || v.is_table()) fail(line_of(n), fmt::format("{}: lists hold values, not lists or tables", key));
        one(v);
      }
    } else {
      one(n);
    }
    std::set<std::string> seen;
    for (const auto& v : out)
      if (unique && !seen.insert(v.text).second) fail(v.line, fmt::format("{}: the value {} is listed twice", key, quote(v.text)));
    return out;
  }

  // Configuration keys of a table, flattened ("l2.size = 1" under [set] and "l2 = {size = 1}" alike).
  void config_entries(const toml::table& t, const std::string& prefix,
                      std::vector<std::pair<std::string, const toml::node*>>& out, int depth = 0) const {
    if (depth > 8) fail(line_of(t), "tables nested more than 8 deep");
    for (const auto& [k, node] : in_file_order(t)) {
      const std::string key = prefix.empty() ? k : prefix + "." + k;
      if (const auto* sub = node->as_table()) config_entries(*sub, key, out, depth + 1);
      else out.emplace_back(key, node);
    }
  }

 private:
  std::string file_;
};

bool is_shape_key(const WorkloadKind& kind, std::string_view key) {
  for (std::size_t i = 0; i < kind.num_keys; ++i)
    if (kind.keys[i].key == key) return true;
  return false;
}

std::string shape_keys_text(const WorkloadKind& kind) {
  std::string s;
  for (std::size_t i = 0; i < kind.num_keys; ++i) s += fmt::format("{}{}", i ? ", " : "", kind.keys[i].key);
  return s;
}

// Shape keys whose values are token counts (K and M suffixes and ranges allowed).
bool is_count_key(std::string_view key) {
  return key != "model" && key != "dtype" && key != "causal";
}

std::string gpu_path(const Study& s, const std::string& gpu) {
  for (const auto& name : gpu_preset_names())
    if (name == gpu) return gpu;
  std::filesystem::path p(gpu);
  if (p.is_relative() && !s.base_dir.empty()) p = std::filesystem::path(s.base_dir) / p;
  return p.lexically_normal().string();
}

// Every axis of a point, in expansion order: the product axes, then each zip's axes.
struct Choice {
  const Axis* axis;
  std::size_t value;
};

}  // namespace

Study parse_study(const std::string& path) {
  return parse_study_text(read_input_file(path, "study file", kMaxStudyBytes), path);
}

Study parse_study_text(const std::string& text, const std::string& path) {
  Parser P(path);
  Study s;
  s.file = path;
  s.text = text;
  s.base_dir = std::filesystem::path(path).parent_path().string();
  toml::table tbl;
  try {
    tbl = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    throw UserError(fmt::format("{}:{}:{}: invalid TOML: {}", path, src.begin.line, src.begin.column,
                                printable(e.description())));
  }
  for (const auto& [k, nodep] : in_file_order(tbl)) {
    const toml::node& node = *nodep;
    bool known = false;
    for (const char* t : kTopKeys) known = known || k == t;
    if (!known) {
      std::string list;
      for (const char* t : kTopKeys) list += fmt::format("{}{}", list.empty() ? "" : ", ", t);
      P.fail(Parser::line_of(node), fmt::format("unknown key '{}' (a study has: {})", printable(k), list));
    }
  }
  auto str = [&](const char* key, bool required) -> std::optional<std::string> {
    const toml::node* n = tbl.get(key);
    if (!n) {
      if (required) P.fail(0, fmt::format("'{}' is missing", key));
      return std::nullopt;
    }
    auto v = n->value<std::string>();
    if (!v) P.fail(Parser::line_of(*n), fmt::format("'{}' must be a string", key));
    return v;
  };
  s.name = *str("name", true);
  if (s.name.empty()) P.fail(Parser::line_of(*tbl.get("name")), "'name' must not be empty");
  s.description = str("description", false).value_or("");
  if (auto run = str("run", false)) {
    const int line = Parser::line_of(*tbl.get("run"));
    if (*run == "simulate") s.analyze = false;
    else if (*run == "analyze") s.simulate = false;
    else if (*run != "both") P.fail(line, fmt::format("run: expected simulate, analyze or both, got {}", quote(*run)));
  }
  if (auto w = str("workload", false)) s.workload = *w;
  const WorkloadKind* kind = nullptr;
  try {
    kind = &workload_kinds().get(s.workload).make;
  } catch (const UserError& e) {
    std::string msg = e.what();
    if (msg.rfind("--workload: ", 0) == 0) msg = msg.substr(12);
    P.fail(Parser::line_of(*tbl.get("workload")), "workload: " + msg);
  }
  if (s.analyze && s.workload != "fa3") {
    const toml::node* run = tbl.get("run");
    P.fail(run ? Parser::line_of(*run) : Parser::line_of(*tbl.get("workload")),
           fmt::format("the analytic model covers attention (workload fa3), not {}: set run = \"simulate\"", s.workload));
  }
  if (const toml::node* n = tbl.get("max_points")) {
    auto v = n->value<std::int64_t>();
    if (!n->is_integer() || !v || *v < 1) P.fail(Parser::line_of(*n), "max_points must be an integer of at least 1");
    s.max_points = *v;
  }
  // GPUs: `gpus`, or `gpu` in a [[zip]] (below).
  const toml::node* gpus = tbl.get("gpus");
  if (gpus)
    for (const Value& g : P.values(*gpus, "gpus", false)) {
      if (g.text.empty()) P.fail(g.line, "gpus: an empty name");
      s.gpus.push_back(g);
    }
  // Shape axes.
  auto shape_axis = [&](const std::string& key, const toml::node& n, bool unique = true) {
    if (!is_shape_key(*kind, key))
      P.fail(Parser::line_of(n), fmt::format("{} {}: not a shape key of the {} workload (its keys: {})",
                                             unique ? "[shape]" : "[[zip]]", key, s.workload, shape_keys_text(*kind)));
    return Axis{key, P.values(n, key, is_count_key(key), unique), false};
  };
  auto config_axis = [&](const std::string& key, const toml::node& n, bool unique = true) {
    return Axis{key, P.values(n, key, false, unique), true};
  };
  std::set<std::string> used;  // every key once, across [shape], [set], [[zip]] and variants' own
  auto claim = [&](const std::string& key, int line) {
    if (!used.insert(key).second) P.fail(line, fmt::format("{} is given twice (in [shape], [set] or a [[zip]])", key));
  };
  if (const toml::node* n = tbl.get("shape")) {
    const auto* t = n->as_table();
    if (!t) P.fail(Parser::line_of(*n), "shape must be a table ([shape])");
    for (const auto& [key, v] : in_file_order(*t)) {
      if (v->is_table()) P.fail(Parser::line_of(*v), fmt::format("[shape] {}: shape keys take values, not tables", key));
      claim(key, Parser::line_of(*v));
      s.axes.push_back(shape_axis(key, *v));
    }
  }
  if (const toml::node* n = tbl.get("set")) {
    const auto* t = n->as_table();
    if (!t) P.fail(Parser::line_of(*n), "set must be a table ([set])");
    std::vector<std::pair<std::string, const toml::node*>> entries;
    P.config_entries(*t, "", entries);
    for (const auto& [key, v] : entries) {
      claim(key, Parser::line_of(*v));
      s.axes.push_back(config_axis(key, *v));
    }
  }
  if (const toml::node* n = tbl.get("zip")) {
    const auto* arr = n->as_array();
    if (!arr || !arr->is_array_of_tables())
      P.fail(Parser::line_of(*n), "zip must be a list of tables ([[zip]] sections)");
    for (const auto& z : *arr) {
      const auto& t = *z.as_table();
      std::vector<std::pair<std::string, const toml::node*>> entries;
      P.config_entries(t, "", entries);
      if (entries.empty()) P.fail(Parser::line_of(z), "[[zip]]: an empty group");
      std::vector<Axis> group;
      for (const auto& [key, v] : entries) {
        claim(key, Parser::line_of(*v));
        if (key == "gpu") {  // GPUs paired with values of other keys (cuTile's tiles on GB10, FA3's on H800)
          if (gpus)
            P.fail(Parser::line_of(*v), "[[zip]] gpu: the GPUs are also listed in 'gpus'; a key has one place (drop "
                                        "'gpus')");
          Axis a{"gpu", P.values(*v, "gpu", false, /*unique=*/false), false, true};
          for (const Value& g : a.values)
            if (g.text.empty()) P.fail(g.line, "gpu: an empty name");
          s.gpus = a.values;
          s.gpu_zip = static_cast<int>(s.zips.size());
          group.push_back(std::move(a));
        } else {
          // A column may repeat a value; the rows must differ (below).
          group.push_back(key.find('.') == std::string::npos ? shape_axis(key, *v, false) : config_axis(key, *v, false));
        }
        if (group.back().values.size() != group.front().values.size())
          P.fail(Parser::line_of(*v), fmt::format("[[zip]]: {} has {} values and {} has {}; zipped lists have one "
                                                  "length", key, group.back().values.size(), group.front().key,
                                                  group.front().values.size()));
      }
      std::set<std::vector<std::string>> rows;
      for (std::size_t r = 0; r < group.front().values.size(); ++r) {
        std::vector<std::string> row;
        for (const auto& a : group) row.push_back(a.values[r].text);
        if (!rows.insert(row).second)
          P.fail(group.front().values[r].line, fmt::format("[[zip]]: row {} repeats an earlier row", r + 1));
      }
      s.zips.push_back(std::move(group));
    }
  }
  if (s.gpus.empty())
    P.fail(0, "'gpus' is missing (a preset name, a GPU TOML file, or a list of them; or gpu = [...] in a [[zip]])");
  if (const toml::node* n = tbl.get("variants")) {
    const auto* t = n->as_table();
    if (!t) P.fail(Parser::line_of(*n), "variants must be a table ([variants], each entry a table of overrides)");
    for (const auto& [name, vp] : in_file_order(*t)) {
      const toml::node& v = *vp;
      Variant var{name, {}, Parser::line_of(v)};
      if (var.name.empty()) P.fail(var.line, "[variants]: a variant without a name");
      const auto* vt = v.as_table();
      if (!vt)
        P.fail(var.line, fmt::format("[variants] {}: a variant is a table of configuration overrides, e.g. {} = "
                                     "{{ \"fa3.pingpong\" = \"off\" }} ({{}} for none)",
                                     var.name, var.name));
      std::vector<std::pair<std::string, const toml::node*>> entries;
      P.config_entries(*vt, "", entries);
      for (const auto& [key, val] : entries) {
        if (used.count(key))
          P.fail(Parser::line_of(*val), fmt::format("[variants] {}: {} is also varied in [set] or a [[zip]]; a key "
                                                    "has one place", var.name, key));
        var.sets.push_back({key, {P.scalar(*val, key, false), Parser::line_of(*val)}});
      }
      s.variants.push_back(std::move(var));
    }
    if (s.variants.empty()) P.fail(Parser::line_of(*n), "[variants]: no variant (leave the table out for none)");
  }
  for (const auto& a : s.axes)
    if (a.config && std::find(s.config_keys.begin(), s.config_keys.end(), a.key) == s.config_keys.end())
      s.config_keys.push_back(a.key);
  for (const auto& g : s.zips)
    for (const auto& a : g)
      if (a.config && std::find(s.config_keys.begin(), s.config_keys.end(), a.key) == s.config_keys.end())
        s.config_keys.push_back(a.key);
  for (const auto& v : s.variants)
    for (const auto& [key, val] : v.sets)
      if (std::find(s.config_keys.begin(), s.config_keys.end(), key) == s.config_keys.end())
        s.config_keys.push_back(key);

  const double n = count_points(s);
  if (n > kMaxPoints)
    P.fail(0, fmt::format("{:.3g} points; a study may have at most {:.0f}", n, kMaxPoints));

  // Every value checked on its own, at its line, before anything runs: each GPU loads (and can be
  // simulated when the study simulates), each configuration value is accepted by its key, each
  // shape value by the workload (and the model when the study analyzes). A value is tried in the
  // first point with every other axis at its first value.
  std::vector<std::string> gpu_paths;
  for (const Value& g : s.gpus) {
    gpu_paths.push_back(gpu_path(s, g.text));
    try {
      const Config cfg = make_config(gpu_paths.back());
      if (s.simulate) require_simulatable(cfg);
    } catch (const UserError& e) {
      P.fail(g.line, fmt::format("gpus: {}", e.what()));
    }
  }
  auto base_point = [&] {
    Point p;
    p.gpu = gpu_paths.front();
    p.gpu_label = s.gpus.front().text;
    p.workload = s.workload;
    p.simulate = s.simulate;
    p.analyze = s.analyze;
    auto take = [&](const Axis& a) {
      if (a.gpu) return;  // the first GPU, set above
      if (a.config) p.sets.emplace_back(a.key, a.values.front().text);
      else p.shape.emplace_back(a.key, a.values.front().text);
    };
    for (const auto& a : s.axes) take(a);
    for (const auto& g : s.zips)
      for (const auto& a : g) take(a);
    return p;
  };
  auto try_point = [&](const Point& p, int line, const std::string& what) {
    try {
      check_point(p);
    } catch (const UserError& e) {
      P.fail(line, fmt::format("{}: {}", what, e.what()));
    }
  };
  auto try_axis = [&](const Axis& a) {
    if (a.gpu) return;  // the GPUs are tried below
    for (const Value& v : a.values) {
      Point p = base_point();
      auto& list = a.config ? p.sets : p.shape;
      for (auto& [k, t] : list)
        if (k == a.key) t = v.text;
      try_point(p, v.line, fmt::format("{} = {}", a.key, quote(v.text)));
    }
  };
  // A study that only analyzes uses no key the analytic model does not read (nothing is accepted
  // and ignored).
  if (!s.simulate) {
    const auto read = model::config_keys_read();
    auto check_read = [&](const std::string& key, int line) {
      if (std::find(read.begin(), read.end(), key) != read.end()) return;
      std::string list;
      for (std::string_view k : read) list += fmt::format("{}{}", list.empty() ? "" : ", ", k);
      P.fail(line, fmt::format("{}: the analytic model does not read it, and this study only analyzes (run = "
                               "\"analyze\"); the model reads {}",
                               key, list));
    };
    for (const auto& a : s.axes)
      if (a.config) check_read(a.key, a.values.front().line);
    for (const auto& g : s.zips)
      for (const auto& a : g)
        if (a.config) check_read(a.key, a.values.front().line);
    for (const auto& var : s.variants)
      for (const auto& [key, val] : var.sets) check_read(key, val.line);
  }
  // Configuration values first, each alone on the first GPU: its key and type at its own line.
  auto try_config = [&](const std::string& key, const Value& v) {
    Config cfg = make_config(gpu_paths.front());
    cfg.set(key, v.text, P.where(v.line));  // UserError "FILE:LINE: ..."
  };
  for (const auto& a : s.axes)
    if (a.config)
      for (const Value& v : a.values) try_config(a.key, v);
  for (const auto& g : s.zips)
    for (const auto& a : g)
      if (a.config)
        for (const Value& v : a.values) try_config(a.key, v);
  for (const auto& var : s.variants)
    for (const auto& [key, val] : var.sets) try_config(key, val);
  for (const auto& a : s.axes) try_axis(a);
  for (const auto& g : s.zips)
    for (const auto& a : g) try_axis(a);
  for (const auto& var : s.variants) {
    Point p = base_point();
    p.variant = var.name;
    for (const auto& [key, val] : var.sets) {
      Point q = p;
      q.sets.emplace_back(key, val.text);
      try_point(q, val.line, fmt::format("[variants] {}: {} = {}", var.name, key, quote(val.text)));
    }
  }
  for (std::size_t i = 1; i < s.gpus.size(); ++i) {
    Point p = base_point();
    p.gpu = gpu_paths[i];
    p.gpu_label = s.gpus[i].text;
    if (s.gpu_zip >= 0)  // with the values its zip row pairs it with
      for (const auto& a : s.zips[std::size_t(s.gpu_zip)]) {
        auto& list = a.config ? p.sets : p.shape;
        for (auto& [k, t] : list)
          if (k == a.key && !a.gpu) t = a.values[i].text;
      }
    try_point(p, s.gpus[i].line, fmt::format("gpus: {}", s.gpus[i].text));
  }
  return s;
}

double count_points(const Study& s) {
  double n = double(s.gpu_zip >= 0 ? 1 : s.gpus.size()) * double(std::max<std::size_t>(1, s.variants.size()));
  for (const auto& a : s.axes) n *= double(a.values.size());
  for (const auto& g : s.zips) n *= double(g.front().values.size());
  return n;
}

std::vector<Point> expand(const Study& s) {
  std::vector<std::pair<std::string, std::string>> gpus;  // path, label
  for (const Value& g : s.gpus) gpus.emplace_back(gpu_path(s, g.text), g.text);
  // The odometer's wheels: GPU, variant, each product axis, each zip group; last fastest.
  std::vector<std::size_t> sizes = {s.gpu_zip >= 0 ? 1 : gpus.size(), std::max<std::size_t>(1, s.variants.size())};
  for (const auto& a : s.axes) sizes.push_back(a.values.size());
  for (const auto& g : s.zips) sizes.push_back(g.front().values.size());
  const auto total = static_cast<std::size_t>(count_points(s));
  std::vector<Point> out;
  out.reserve(total);
  std::vector<std::size_t> idx(sizes.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    Point p;
    p.index = n;
    p.gpu = gpus[idx[0]].first;
    p.gpu_label = gpus[idx[0]].second;
    p.workload = s.workload;
    p.simulate = s.simulate;
    p.analyze = s.analyze;
    std::size_t w = 2;
    auto take = [&](const Axis& a, std::size_t i) {
      if (a.gpu) {
        p.gpu = gpus[i].first;
        p.gpu_label = gpus[i].second;
      } else if (a.config) {
        p.sets.emplace_back(a.key, a.values[i].text);
      } else {
        p.shape.emplace_back(a.key, a.values[i].text);
      }
    };
    for (const auto& a : s.axes) take(a, idx[w++]);
    for (const auto& g : s.zips) {
      for (const auto& a : g) take(a, idx[w]);
      ++w;
    }
    if (!s.variants.empty()) {
      const Variant& v = s.variants[idx[1]];
      p.variant = v.name;
      for (const auto& [key, val] : v.sets) p.sets.emplace_back(key, val.text);
    }
    p.key = point_key(s.name, p);
    out.push_back(std::move(p));
    for (std::size_t i = sizes.size(); i-- > 0;) {
      if (++idx[i] < sizes[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

}  // namespace simfa::study
