// A design study (docs/studies.md): one TOML file that names the GPUs, the workload's shapes, the
// configuration overrides and the kernel variants to combine, and what to run at each point
// (simulate, analyze or both). parse_study() checks the whole file before anything runs: an
// unknown key, a value of the wrong type, a bad range, a configuration key or value the registry
// refuses, a shape value the workload refuses, a GPU that cannot be loaded, or a Blackwell GPU to
// simulate, is a UserError naming the file and line. expand() lists the points in a fixed order.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace simfa::study {

// One value a study gives a key, with the line it came from (for messages).
struct Value {
  std::string text;  // as the configuration or workload reads it: "16384", "true", "100MiB"
  int line = 0;
};

// A key and the values it takes: one value (fixed) or several (varied).
struct Axis {
  std::string key;
  std::vector<Value> values;
  bool config = false;  // a configuration key (--set); otherwise a shape key of the workload
  bool gpu = false;     // `gpu` in a [[zip]]: the GPUs, zipped with other keys
};

// A kernel variant: a name and the configuration overrides that make it.
struct Variant {
  std::string name;
  std::vector<std::pair<std::string, Value>> sets;
  int line = 0;
};

struct Study {
  std::string name, description;
  std::string file;      // the study file as given
  std::string base_dir;  // its folder: GPU files are relative to it
  std::string text;      // the file's contents (stored in the database)
  bool simulate = true, analyze = true;
  std::vector<Value> gpus;  // preset names or file paths (relative to base_dir), from `gpus` or a zip
  int gpu_zip = -1;         // the [[zip]] that holds `gpu` (its rows pair each GPU with values), or -1
  std::string workload = "fa3";
  std::vector<Axis> axes;               // [shape] and [set]: the cartesian product, in file order
  std::vector<std::vector<Axis>> zips;  // each [[zip]]: its lists vary together
  std::vector<Variant> variants;        // [variants]; none: one unnamed variant
  std::int64_t max_points = 1000;       // over this, `simfa sweep` wants --yes
  // Every configuration key the study sets anywhere, in first-use order (one database column each).
  std::vector<std::string> config_keys;
};

// A study point: everything one simulation and/or analysis needs.
struct Point {
  std::size_t index = 0;  // in expansion order
  std::string gpu;        // preset name or resolved file path
  std::string gpu_label;  // as the study wrote it
  std::string variant;
  std::string workload;
  std::vector<std::pair<std::string, std::string>> shape;  // shape key -> value text
  std::vector<std::pair<std::string, std::string>> sets;   // configuration key -> value text, in order
  bool simulate = true, analyze = true;
  std::string key;  // canonical JSON of the above with the study's name: unique per point
};

// Parses and checks `path` (see above). `text` given: parse it instead of reading the file (MPI
// ranks receive the file's text from rank 0).
Study parse_study(const std::string& path);
Study parse_study_text(const std::string& text, const std::string& path);

// The number of points without listing them (a study of a billion points is refused before memory
// is spent on it).
double count_points(const Study& s);

// Every point: GPU (outermost), variant, the [shape]/[set] axes in file order, then the [[zip]]
// groups; the last varies fastest.
std::vector<Point> expand(const Study& s);

}  // namespace simfa::study
