// GpuSpec: validation, and filling from a resolved Config by key name (core, memory and
// model.* keys).
#include "model/gpu_spec.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include <fmt/format.h>

#include "model/analysis.h"
#include "sim/config.h"
#include "sim/error.h"

namespace simfa::model {

void GpuSpec::validate() const {
  auto positive = [&](const char* field, double v) {
    if (!(v > 0) || !std::isfinite(v))
      user_error("GPU '{}': {} must be a positive number, got {}", name, field, v);
  };
  positive("num_sms", double(num_sms));
  positive("clock", clock_hz);
  positive("l2 size", l2_bytes);
  positive("l2 partitions", double(l2_partitions));
  positive("l2 bytes per cycle", l2_bytes_per_cycle);
  positive("dram bandwidth", dram_bytes_per_s);
  positive("16-bit tensor FLOP per cycle", flops_per_cycle_16bit);
  positive("FP8 tensor FLOP per cycle", flops_per_cycle_fp8);
  if (!(l2_effective_bytes >= 0) || !std::isfinite(l2_effective_bytes))
    user_error("GPU '{}': effective L2 must be a non-negative size, got {}", name,
               l2_effective_bytes);
}

namespace {

// The keys of GpuSpec::from_config, then those of options_from_config.
constexpr std::string_view kKeysRead[] = {
    "gpu.name", "gpu.arch", "gpu.assumed", "gpu.num_sms", "gpu.clock", "tensor.flops_per_cycle_16bit",
    "tensor.flops_per_cycle_fp8", "mem.l2.size", "mem.l2.partitions", "model.l2_bytes_per_cycle",
    "model.l2_effective", "model.dram_bandwidth", "dram.channels", "dram.pseudo_channels", "dram.pc_width_bits",
    "dram.data_rate",
    "fa3.kernel", "fa3.tile_m", "fa3.tile_n", "fa3.pack_gqa", "fa3.cluster", "fa3.splits", "model.occupancy",
};
constexpr std::size_t kGpuKeys = 16;  // the first 16 are GpuSpec::from_config's

// gpu.assumed: a comma- or space-separated list of configuration keys.
std::vector<std::string> assumed_keys(const Config& cfg) {
  std::vector<std::string> out;
  const std::string& text = cfg.s("gpu.assumed");
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t j = text.find_first_of(", ", i);
    const std::string key = text.substr(i, j == std::string::npos ? std::string::npos : j - i);
    if (!key.empty()) {
      if (!cfg.registry().find(key))
        user_error("gpu.assumed ({}): '{}' is not a configuration key", cfg.origin("gpu.assumed"), key);
      out.push_back(key);
    }
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

}  // namespace

std::span<const std::string_view> gpu_config_keys() { return std::span(kKeysRead).first(kGpuKeys); }
std::span<const std::string_view> kernel_config_keys() { return std::span(kKeysRead).subspan(kGpuKeys); }
std::span<const std::string_view> config_keys_read() { return kKeysRead; }

void require_read_keys(const Config& cfg, std::string_view command, std::span<const std::string_view> keys) {
  for (const ParamDesc& d : cfg.registry().all()) {
    if (cfg.origin(d.key) != "--set" || std::find(keys.begin(), keys.end(), d.key) != keys.end()) continue;
    const bool model_key = std::find(std::begin(kKeysRead), std::end(kKeysRead), d.key) != std::end(kKeysRead);
    std::string list;
    for (std::string_view k : keys) list += fmt::format("{}{}", list.empty() ? "" : ", ", k);
    user_error("--set {}={}: {} does not read {}{}; it reads {}", d.key, cfg.render(d.key), command, d.key,
               model_key ? "" : ", which configures the cycle simulator (simfa run)", list);
  }
}

ModelOptions options_from_config(const Config& cfg) {
  ModelOptions o;
  o.kernel = parse_kernel(cfg.s("fa3.kernel"), "fa3.kernel");
  o.tile_m = cfg.i("fa3.tile_m");
  o.tile_n = cfg.i("fa3.tile_n");
  o.pack_gqa = parse_pack_gqa(cfg.s("fa3.pack_gqa"), "fa3.pack_gqa");
  const std::string& cl = cfg.s("fa3.cluster");
  o.cluster = cl == "auto" ? 0 : std::stoll(cl);  // the key's choices: auto, 1, 2
  o.num_splits = cfg.i("fa3.splits");
  o.occupancy = cfg.i("model.occupancy");
  return o;
}

std::vector<std::string> model_warnings(const GpuSpec& gpu, const ModelOptions& opt) {
  std::vector<std::string> w;
  if (!gpu.assumed.empty()) {
    std::string keys;
    for (const auto& k : gpu.assumed) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", k);
    w.push_back(fmt::format("{}: the latency estimate rests on assumed values of {} (gpu.assumed: not published "
                            "or measured; the GPU description's comments say why); the FLOP and traffic figures "
                            "do not depend on them",
                            gpu.name, keys));
  }
  if (gpu.arch != "hopper" && opt.kernel != Kernel::CuTile)
    w.push_back(fmt::format("{} is gpu.arch = {}, but fa3.kernel = {} is a Hopper (sm_90) kernel that does not run "
                            "there: its tiles and heuristics describe no kernel of this GPU (the paper's §6 models "
                            "GB10 with cuTile's: --kernel cutile)",
                            gpu.name, gpu.arch, kernel_name(opt.kernel)));
  return w;
}

GpuSpec GpuSpec::from_config(const Config& cfg) {
  GpuSpec g;
  g.name = cfg.s("gpu.name");
  g.arch = cfg.s("gpu.arch");
  g.assumed = assumed_keys(cfg);
  g.num_sms = std::int64_t(cfg.f("gpu.num_sms"));
  g.clock_hz = cfg.f("gpu.clock");
  g.flops_per_cycle_16bit = cfg.f("tensor.flops_per_cycle_16bit");
  g.flops_per_cycle_fp8 = cfg.f("tensor.flops_per_cycle_fp8");
  g.l2_bytes = cfg.f("mem.l2.size");
  g.l2_partitions = std::int64_t(cfg.f("mem.l2.partitions"));
  g.l2_bytes_per_cycle = cfg.f("model.l2_bytes_per_cycle");
  g.l2_effective_bytes = cfg.f("model.l2_effective");
  // DRAM bandwidth: the override, else the peak of the HBM configuration (channels x
  // pseudo-channels x bus width x per-pin data rate; H800: 80 x 2 x 4 B x 5.2 GT/s = 3.33 TB/s).
  g.dram_bytes_per_s = cfg.f("model.dram_bandwidth");
  if (g.dram_bytes_per_s == 0)
    g.dram_bytes_per_s = cfg.f("dram.channels") * cfg.f("dram.pseudo_channels") * cfg.f("dram.pc_width_bits") / 8.0 *
                         cfg.f("dram.data_rate") * 1e6;
  return g;
}

}  // namespace simfa::model
