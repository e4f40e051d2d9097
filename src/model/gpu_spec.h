// The GPU facts the analytic model needs, filled from a resolved Config (GPU preset + --set) or
// built directly (tests, Python keyword overrides).
#pragma once
#include <cstdint>
#include <string>

namespace simfa {
class Config;
class ParamRegistry;
}  // namespace simfa

namespace simfa::model {

struct GpuSpec {
  std::string name = "custom";
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

// Registers the model's own configuration keys (model.*). The GPU facts themselves are the core
// keys the GPU presets set.
void register_model_params(ParamRegistry& reg);

}  // namespace simfa::model
