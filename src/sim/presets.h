// Built-in GPU presets: the TOML documents of configs/gpu/, embedded at build time and parsed at
// run time like any user file.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace simfa {
const std::vector<std::pair<std::string, std::string>>& embedded_presets();
}  // namespace simfa
