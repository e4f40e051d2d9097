// The GPU facts the analytic model needs, filled from a resolved Config (GPU preset + --set) or
// built directly (tests, Python keyword overrides).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace simfa {
class Config;
class ParamRegistry;
}  // namespace simfa

namespace simfa::model {

struct GpuSpec {
  std::string name = "custom";
  std::string arch = "hopper";       // gpu.arch
  std::vector<std::string> assumed;  // gpu.assumed: keys whose values are assumptions
  std::int64_t num_sms = 0;          // N_SM
  double clock_hz = 0;               // SM clock
  double l2_bytes = 0;               // nominal L2 capacity
  std::int64_t l2_partitions = 1;    // L2 partitions (Hopper: 2 of 25 MB)
  double l2_effective_bytes = 0;     // capacity used by Eq. 4; 0: l2_bytes / l2_partitions
  double l2_bytes_per_cycle = 0;     // whole-GPU L2 throughput, SM clock cycles
  double dram_bytes_per_s = 0;       // DRAM bandwidth
  double flops_per_cycle_16bit = 0;  // dense FP16/BF16 tensor FLOP per cycle per SM
  double flops_per_cycle_fp8 = 0;    // dense FP8 tensor FLOP per cycle per SM

  // The L2 capacity the regime switch (Eq. 4) uses: the override when set, else the nominal size
  // divided by the partitions (paper §6.2.2: 25 MB of H800's 50 MB).
  double effective_l2() const {
    return l2_effective_bytes > 0 ? l2_effective_bytes : l2_bytes / double(l2_partitions);
  }
  // Throws UserError naming the field when a value is missing or out of range.
  void validate() const;

  // Reads the GPU keys (see gpu_spec.cpp for the names) and `model.*` overrides from `cfg`.
  static GpuSpec from_config(const Config& cfg);
};

struct ModelOptions;

// The kernel configuration from the keys of the same meaning: fa3.kernel, fa3.tile_m, fa3.tile_n,
// fa3.pack_gqa, fa3.cluster, fa3.splits and model.occupancy (0 / auto stay "the kernel's").
ModelOptions options_from_config(const Config& cfg);

// The configuration keys the analytic model reads: GpuSpec::from_config's (gpu_config_keys),
// options_from_config's (kernel_config_keys), and both (config_keys_read). Nothing else changes its
// results.
std::span<const std::string_view> gpu_config_keys();
std::span<const std::string_view> kernel_config_keys();
std::span<const std::string_view> config_keys_read();
// UserError when an override of `--set` (origin "--set") names a key outside `keys`, so that no key
// is accepted and ignored: "--set fa3.stages=3: simfa analyze does not read fa3.stages, ...; the
// analytic model reads ...". `command` names the caller ("simfa analyze").
void require_read_keys(const Config& cfg, std::string_view command,
                       std::span<const std::string_view> keys = config_keys_read());

// What a run of the model should say about its GPU and kernel beyond the numbers, one line each:
// the assumed values its latency estimate rests on (gpu.assumed), and a kernel that does not run on
// the GPU's architecture (FA3 and simfa-attn are sm_90 kernels).
std::vector<std::string> model_warnings(const GpuSpec& gpu, const ModelOptions& opt);

// Registers the model's own configuration keys (model.*). The GPU facts themselves are the core
// keys the GPU presets set.
void register_model_params(ParamRegistry& reg);

}  // namespace simfa::model
