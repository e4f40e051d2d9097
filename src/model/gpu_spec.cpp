// GpuSpec: validation, and filling from a resolved Config by key name (core, memory and
// model.* keys).
#include "model/gpu_spec.h"

#include <cmath>
#include <initializer_list>

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

GpuSpec GpuSpec::from_config(const Config& cfg) {
  GpuSpec g;
  g.name = cfg.s("gpu.name");
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
