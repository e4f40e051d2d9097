// libFuzzer harness for the configuration readers (src/sim/config.*, src/sim/units.*): TOML
// documents (GPU presets, `--gpu FILE`) and `--set key=value` assignments. The input is a TOML
// document, optionally followed by a line `%%` and then one assignment per line. Everything is
// applied to a configuration with the full registry, then every library derives its parameters
// from it and each value is rendered back. Property: each step returns or throws
// simfa::UserError; a value that was set renders to text that the same key accepts again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api/run.h"
#include "core/params.h"
#include "mem/dram/params.h"
#include "mem/hierarchy_params.h"
#include "model/gpu_spec.h"
#include "sim/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace simfa;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view toml = input, sets;
  if (const auto sep = input.find("\n%%\n"); sep != std::string_view::npos) {
    toml = input.substr(0, sep);
    sets = input.substr(sep + 4);
  }
  static const Config defaults(param_registry());  // built once: parsing every default is slow
  Config cfg = defaults;
  try {
    cfg.load_toml_text(toml, "fuzz.toml");
    while (!sets.empty()) {
      const auto nl = sets.find('\n');
      const std::string_view line = sets.substr(0, nl);
      sets = nl == std::string_view::npos ? std::string_view() : sets.substr(nl + 1);
      if (!line.empty()) cfg.apply_assignment(line, "--set");
    }
  } catch (const UserError&) {
    return 0;
  }
  // What a run derives from the configuration must cope with any accepted value.
  try {
    (void)core::gpu_params(cfg);
    (void)mem::hierarchy_params_from(cfg);
    (void)mem::dram_params_from(cfg);
    (void)model::GpuSpec::from_config(cfg);
    (void)apply_clock_model(cfg);
  } catch (const UserError&) {
  }
  // Every value the input set renders to text that the same key accepts again (`simfa config
  // show` output can be pasted back into --set).
  Config again = defaults;
  for (const ParamDesc& d : param_registry().all())
    if (cfg.origin(d.key) != "default") again.set(d.key, cfg.render(d.key), "rendered");
  (void)cfg.to_json();
  return 0;
}
