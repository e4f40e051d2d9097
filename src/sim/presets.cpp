// Lists the embedded preset names.
#include "sim/presets.h"

#include "sim/config.h"

namespace simfa {
std::vector<std::string> gpu_preset_names() {
  std::vector<std::string> names;
  for (const auto& [n, _] : embedded_presets()) names.push_back(n);
  return names;
}
}  // namespace simfa
