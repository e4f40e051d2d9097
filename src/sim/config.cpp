// Config: typed values parsed from text through the parameter descriptors; TOML documents are
// flattened to dotted keys and go through the same path, so every source gets the same checks.
#include "sim/config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "sim/error.h"
#include "sim/files.h"
#include "sim/presets.h"
#include "sim/units.h"

namespace simfa {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::Int: return "an integer";
    case ParamType::Float: return "a number";
    case ParamType::Bool: return "true or false";
    case ParamType::String: return "a string";
    case ParamType::Enum: return "one of the listed choices";
    case ParamType::Frequency: return "a frequency such as 1830MHz";
    case ParamType::Size: return "a size such as 50MiB";
    case ParamType::Bandwidth: return "a bandwidth such as 3.35TB/s";
  }
  return "?";
}

Config::Value parse_value(const ParamDesc& d, std::string_view text, std::string_view origin) {
  auto fail = [&](const std::string& why) -> Config::Value {
    throw UserError(fmt::format("{}: {} = {}: {}", origin, d.key, quote(text), why));
  };
  auto ranged = [&](double v) {
    if (v < d.min || v > d.max)
      fail(fmt::format("out of range [{:g}, {:g}]{}", d.min, d.max,
                       d.unit.empty() ? "" : " " + d.unit));
    return v;
  };
  switch (d.type) {
    case ParamType::Int: {
      auto v = units::parse_number(text);
      if (!v || std::floor(*v) != *v) return fail(std::string("expected ") + type_name(d.type));
      return static_cast<std::int64_t>(ranged(*v));
    }
    case ParamType::Float: {
      auto v = units::parse_number(text);
      if (!v) return fail(std::string("expected ") + type_name(d.type));
      return ranged(*v);
    }
    case ParamType::Bool:
      if (text == "true" || text == "1" || text == "on") return true;
      if (text == "false" || text == "0" || text == "off") return false;
      return fail("expected true or false");
    case ParamType::String: return std::string(text);
    case ParamType::Enum: {
      for (const auto& c : d.choices)
        if (c == text) return std::string(text);
      std::string list;
      for (const auto& c : d.choices) list += (list.empty() ? "" : ", ") + c;
      return fail("expected one of: " + list);
    }
    case ParamType::Frequency: {
      auto v = units::parse_frequency_hz(text);
      if (!v) return fail(std::string("expected ") + type_name(d.type));
      return ranged(*v);
    }
    case ParamType::Size: {
      auto v = units::parse_size_bytes(text);
      if (!v) return fail(std::string("expected ") + type_name(d.type));
      return ranged(*v);
    }
    case ParamType::Bandwidth: {
      auto v = units::parse_bandwidth_bps(text);
      if (!v) return fail(std::string("expected ") + type_name(d.type));
      return ranged(*v);
    }
  }
  return fail("unsupported type");
}

// Renders a TOML leaf as the text a user would have written on the command line.
std::optional<std::string> leaf_text(const toml::node& n) {
  if (auto v = n.as_string()) return v->get();
  if (auto v = n.as_integer()) return std::to_string(v->get());
  if (auto v = n.as_floating_point()) return fmt::format("{}", v->get());
  if (auto v = n.as_boolean()) return v->get() ? "true" : "false";
  return std::nullopt;
}

// Limits on a TOML document, checked before it is parsed: toml++ builds (and our flattening walks)
// one nested table per key level, recursively, so a header of 50,000 dotted keys overflows the
// stack. Configuration keys have at most four levels.
constexpr std::size_t kMaxTomlBytes = 1 << 20;
constexpr int kMaxTomlLineNesting = 32;  // key levels and inline tables/arrays opened on one line
constexpr int kMaxTomlDepth = 2 * kMaxTomlLineNesting;

// The largest number of nesting levels one line of `text` opens: dots between key parts and
// opening braces and brackets, outside strings and comments (a number's decimal point does not
// count). A table's depth is at most its header line's count plus its key line's, so bounding
// this bounds the depth of the parsed document.
struct Nesting {
  int levels = 0;
  int line = 0;  // 1-based line of the deepest
};
Nesting max_line_nesting(std::string_view text) {
  enum class In { Code, Basic, Literal, MlBasic, MlLiteral, Comment } in = In::Code;
  Nesting worst;
  int on_line = 0, line = 1;
  auto at = [&](std::size_t i, std::string_view w) { return text.substr(i, w.size()) == w; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      if (in == In::Comment || in == In::Basic || in == In::Literal) in = In::Code;
      if (on_line > worst.levels) worst = {on_line, line};
      on_line = 0;
      ++line;
      continue;
    }
    switch (in) {
      case In::Comment: break;
      case In::Basic:
        if (c == '\\') ++i;
        else if (c == '"') in = In::Code;
        break;
      case In::Literal:
        if (c == '\'') in = In::Code;
        break;
      case In::MlBasic:
        if (c == '\\') ++i;
        else if (at(i, "\"\"\"")) in = In::Code, i += 2;
        break;
      case In::MlLiteral:
        if (at(i, "'''")) in = In::Code, i += 2;
        break;
      case In::Code:
        if (c == '#') in = In::Comment;
        else if (at(i, "\"\"\"")) in = In::MlBasic, i += 2;
        else if (at(i, "'''")) in = In::MlLiteral, i += 2;
        else if (c == '"') in = In::Basic;
        else if (c == '\'') in = In::Literal;
        else if (c == '{' || c == '[') ++on_line;
        else if (c == '.') {
          // A decimal point: digits on both sides and no dot before the digits.
          bool number = i > 0 && i + 1 < text.size() && digit(text[i - 1]) && digit(text[i + 1]);
          if (number) {
            std::size_t j = i;
            while (j > 0 && digit(text[j - 1])) --j;
            number = j == 0 || text[j - 1] != '.';
          }
          if (!number) ++on_line;
        }
        break;
    }
  }
  if (on_line > worst.levels) worst = {on_line, line};
  return worst;
}

}  // namespace

void ParamRegistry::add(ParamDesc d) {
  if (index_.count(d.key)) throw InternalError("duplicate parameter " + d.key);
  index_.emplace(d.key, params_.size());
  params_.push_back(std::move(d));
}

const ParamDesc* ParamRegistry::find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &params_[it->second];
}

std::string ParamRegistry::suggest(std::string_view key) const {
  std::string best;
  if (key.size() > 128) return best;  // no key is that long (and the distance is quadratic)
  std::size_t best_d = std::max<std::size_t>(3, key.size() / 3) + 1;
  for (const auto& p : params_) {
    std::size_t d = edit_distance(key, p.key);
    // Also match on the last component alone ("launch_cycles" -> "tma.launch_cycles").
    auto dot = p.key.rfind('.');
    if (dot != std::string::npos) d = std::min(d, edit_distance(key, p.key.substr(dot + 1)) + 1);
    if (d < best_d) best_d = d, best = p.key;
  }
  return best;
}

Config::Config(const ParamRegistry& reg) : reg_(&reg) {
  for (const auto& d : reg.all()) {
    values_[d.key] = parse_value(d, d.default_text, "default of");
    origins_[d.key] = "default";
  }
}

void Config::set(std::string_view key, std::string_view text, std::string_view origin) {
  const ParamDesc* d = reg_->find(key);
  if (!d) {
    std::string s = reg_->suggest(key);
    throw UserError(fmt::format("{}: unknown configuration key {}{}", origin, quote(key),
                                s.empty() ? "" : fmt::format(" (did you mean '{}'?)", s)));
  }
  values_[d->key] = parse_value(*d, text, origin);
  origins_[d->key] = std::string(origin);
}

void Config::apply_assignment(std::string_view a, std::string_view origin) {
  auto eq = a.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw UserError(fmt::format("{}: expected key=value, got {}", origin, quote(a)));
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  set(trim(a.substr(0, eq)), trim(a.substr(eq + 1)), origin);
}

void Config::load_toml_text(std::string_view text, std::string_view origin) {
  if (text.size() > kMaxTomlBytes)
    throw UserError(fmt::format("{}: {} bytes; a configuration file may be at most {} bytes", origin, text.size(),
                                kMaxTomlBytes));
  if (const Nesting n = max_line_nesting(text); n.levels > kMaxTomlLineNesting)
    throw UserError(fmt::format("{}:{}: this line nests {} keys or tables deep; configuration keys have a few "
                                "levels (at most {} on a line)",
                                origin, n.line, n.levels, kMaxTomlLineNesting));
  toml::table tbl;
  try {
    tbl = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    const auto& src = e.source();
    throw UserError(fmt::format("{}:{}:{}: invalid TOML: {}", origin, src.begin.line,
                                src.begin.column, printable(e.description())));
  }
  if (auto p = tbl["preset"]) {
    auto name = p.value<std::string>();
    if (!name) throw UserError(fmt::format("{}: 'preset' must be a string", origin));
    if (++preset_depth_ > 8) throw UserError(fmt::format("{}: preset chain too deep", origin));
    load_gpu(*name);
    --preset_depth_;
  }
  // Flatten nested tables to dotted keys, in document order of the table (toml++ keeps keys
  // sorted, which is deterministic).
  std::function<void(const toml::table&, const std::string&, int)> walk =
      [&](const toml::table& t, const std::string& prefix, int depth) {
        if (depth > kMaxTomlDepth)
          throw UserError(fmt::format("{}:{}: tables nested more than {} deep", origin, t.source().begin.line,
                                      kMaxTomlDepth));
        for (const auto& [k, node] : t) {
          std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
          if (prefix.empty() && key == "preset") continue;
          const auto line = node.source().begin.line;
          std::string where = fmt::format("{}:{}", origin, line);
          if (auto sub = node.as_table()) {
            walk(*sub, key, depth + 1);
          } else if (auto txt = leaf_text(node)) {
            set(key, *txt, where);
          } else {
            throw UserError(fmt::format("{}: {}: arrays and dates are not configuration values",
                                        where, key));
          }
        }
      };
  walk(tbl, "", 0);
}

void Config::load_toml_file(const std::string& path) {
  load_toml_text(read_input_file(path, "configuration file", kMaxTomlBytes), path);
}

void Config::load_gpu(std::string_view name_or_file) {
  for (const auto& [name, text] : embedded_presets()) {
    if (name == name_or_file) {
      // Preset values carry the preset's name as origin.
      load_toml_text(text, fmt::format("preset {}", name));
      return;
    }
  }
  std::error_code ec;
  const std::string path(name_or_file);
  if (std::filesystem::is_directory(path, ec))
    throw UserError(fmt::format("--gpu: '{}' is a directory, not a TOML file or a built-in preset", path));
  if (std::filesystem::exists(path, ec) || std::filesystem::is_symlink(path, ec)) {
    load_toml_file(path);
    return;
  }
  std::string list;
  for (const auto& n : gpu_preset_names()) list += (list.empty() ? "" : ", ") + n;
  throw UserError(fmt::format("--gpu: {} is neither a built-in preset ({}) nor a file",
                              quote(name_or_file), list));
}

const Config::Value& Config::get(std::string_view key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw InternalError(fmt::format("configuration key '{}' not registered", key));
  return it->second;
}

std::int64_t Config::i(std::string_view key) const {
  const Value& v = get(key);
  if (auto p = std::get_if<std::int64_t>(&v)) return *p;
  if (auto p = std::get_if<double>(&v)) return static_cast<std::int64_t>(std::llround(*p));
  throw InternalError(fmt::format("configuration key '{}' is not numeric", key));
}

double Config::f(std::string_view key) const {
  const Value& v = get(key);
  if (auto p = std::get_if<double>(&v)) return *p;
  if (auto p = std::get_if<std::int64_t>(&v)) return static_cast<double>(*p);
  throw InternalError(fmt::format("configuration key '{}' is not numeric", key));
}

bool Config::b(std::string_view key) const {
  const Value& v = get(key);
  if (auto p = std::get_if<bool>(&v)) return *p;
  throw InternalError(fmt::format("configuration key '{}' is not boolean", key));
}

const std::string& Config::s(std::string_view key) const {
  const Value& v = get(key);
  if (auto p = std::get_if<std::string>(&v)) return *p;
  throw InternalError(fmt::format("configuration key '{}' is not a string", key));
}

const std::string& Config::origin(std::string_view key) const {
  auto it = origins_.find(key);
  if (it == origins_.end()) throw InternalError(fmt::format("configuration key '{}' not registered", key));
  return it->second;
}

std::string Config::render(std::string_view key) const {
  const ParamDesc* d = reg_->find(key);
  if (!d) throw InternalError(fmt::format("configuration key '{}' not registered", key));
  const Value& v = get(key);
  switch (d->type) {
    case ParamType::Frequency: return units::format_frequency(std::get<double>(v));
    case ParamType::Size: return units::format_size(std::get<double>(v));
    case ParamType::Bandwidth: return units::format_bandwidth(std::get<double>(v));
    case ParamType::Bool: return std::get<bool>(v) ? "true" : "false";
    case ParamType::Int: return std::to_string(std::get<std::int64_t>(v));
    case ParamType::Float: return fmt::format("{:g}", std::get<double>(v));
    default: return std::get<std::string>(v);
  }
}

nlohmann::json Config::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, v] : values_) {
    const std::string& k = key;  // a lambda may not capture a structured binding before clang 16
    std::visit([&](const auto& x) { j[k] = x; }, v);
  }
  return j;
}

}  // namespace simfa
