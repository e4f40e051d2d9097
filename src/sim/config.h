// Run-time configuration: every parameter has exactly one descriptor (key, type, default, unit,
// doc, source) that drives parsing, validation, `simfa config show`, the Python keywords and the
// docs. A default is written once, in its descriptor; GPU presets (configs/gpu/*.toml) override.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace simfa {

enum class ParamType { Int, Float, Bool, String, Enum, Frequency, Size, Bandwidth };

struct ParamDesc {
  std::string key;          // hierarchical, dot-separated: "tma.launch_cycles"
  ParamType type = ParamType::Int;
  std::string default_text; // as a user would write it: "40", "1830MHz", "true", "gto"
  std::string unit;         // "cycles", "bytes", "Hz", "B/s", "" for dimensionless
  std::string doc;          // one sentence
  std::string source;       // where the default comes from (paper table, reference file, ...)
  double min = -1e300;      // inclusive numeric range (Int, Float, Frequency, Size, Bandwidth)
  double max = 1e300;
  std::vector<std::string> choices;  // Enum only
};

// The set of known parameters. Each library contributes its descriptors through a
// `register_params(ParamRegistry&)` function; api/params.cpp assembles the full registry.
class ParamRegistry {
 public:
  void add(ParamDesc d);  // throws InternalError on a duplicate key
  const ParamDesc* find(std::string_view key) const;
  const std::vector<ParamDesc>& all() const { return params_; }
  // The known key closest to `key` (for "did you mean"), or "" when nothing is close.
  std::string suggest(std::string_view key) const;

 private:
  std::vector<ParamDesc> params_;
  std::map<std::string, std::size_t, std::less<>> index_;
};

// A resolved configuration: one typed value per registered key. Frequencies are stored in Hz,
// sizes in bytes, bandwidths in bytes per second.
class Config {
 public:
  using Value = std::variant<std::int64_t, double, bool, std::string>;

  explicit Config(const ParamRegistry& reg);

  // Sets `key` from its textual form. `origin` names where the text came from ("--set",
  // "h800.toml:12") and appears in errors. Throws UserError for an unknown key (with a
  // suggestion), a type error or a range error; the message names the full key.
  void set(std::string_view key, std::string_view text, std::string_view origin);
  // Applies a "key=value" assignment (the --set syntax).
  void apply_assignment(std::string_view assignment, std::string_view origin = "--set");
  // Loads a TOML document: nested tables flatten to dotted keys; a top-level `preset = "name"`
  // first loads that preset. `origin` is the file name used in messages.
  void load_toml_text(std::string_view text, std::string_view origin);
  void load_toml_file(const std::string& path);
  // Loads a built-in preset (configs/gpu/NAME.toml) or, when `name_or_file` names a file, that file.
  void load_gpu(std::string_view name_or_file);

  std::int64_t i(std::string_view key) const;
  double f(std::string_view key) const;  // Float, Frequency, Size, Bandwidth, or Int widened
  bool b(std::string_view key) const;
  const std::string& s(std::string_view key) const;  // String and Enum
  std::uint64_t u(std::string_view key) const { return static_cast<std::uint64_t>(i(key)); }

  const ParamRegistry& registry() const { return *reg_; }
  // The resolved configuration as a flat JSON object {key: value}.
  nlohmann::json to_json() const;
  // Renders a value back to text in the parameter's unit ("1830MHz").
  std::string render(std::string_view key) const;
  // Origin of the current value ("default", "preset h800", "--set").
  const std::string& origin(std::string_view key) const;

 private:
  const Value& get(std::string_view key) const;
  const ParamRegistry* reg_;
  std::map<std::string, Value, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> origins_;
  int preset_depth_ = 0;
};

// Names of the built-in GPU presets.
std::vector<std::string> gpu_preset_names();

}  // namespace simfa
