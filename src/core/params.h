// Parameters of the GPU and SM core model, read once from the configuration.
#pragma once
#include <cstdint>

#include "sim/types.h"

namespace simfa {
class Config;
class ParamRegistry;
}  // namespace simfa

namespace simfa::core {

enum class SchedPolicy : std::uint8_t { Gto, Lrr };

struct TmaParams {
  Cycle launch_cycles = 40;          // every TMA copy
  Cycle tensormap_setup_cycles = 65;  // tensor copies only
  std::uint32_t lines_per_cycle = 2;
  std::uint32_t max_inflight_sectors = 512;
  std::uint32_t queue_depth = 16;
  std::uint32_t descriptor_cache_entries = 8;
  Cycle descriptor_miss_cycles = 258;
  bool dedup = true;
  std::uint32_t line_bytes = 128;
};

struct TensorParams {
  std::uint32_t issue_buffer = 16;
  double flops_per_cycle_16bit = 4096;
  double flops_per_cycle_fp8 = 8192;
  double flops_per_cycle_tf32 = 2048;
  Cycle min_wgmma_cycles = 4;
};

struct SmParams {
  std::uint32_t max_ctas = 32;
  std::uint32_t max_warps = 64;
  std::uint64_t smem_bytes = 233472;      // 228 KiB per SM
  std::uint64_t max_smem_per_cta = 232448;  // 227 KiB
  std::uint32_t regs = 65536;
  std::uint32_t issue_width = 1;
  SchedPolicy sched = SchedPolicy::Gto;
  std::uint32_t fetch_chunk = 64;
  Cycle cluster_multicast_cycles = 1;
  Cycle cluster_signal_cycles = 148;
  TmaParams tma;
  TensorParams tensor;
};

struct GpuParams {
  int num_sms = 132;
  double clock_hz = 1.83e9;
  Cycle cta_launch_cycles = 0;
  Cycle watchdog_cycles = 20'000'000;
  SmParams sm;
};

GpuParams gpu_params(const Config& cfg);
void register_core_params(ParamRegistry& reg);

}  // namespace simfa::core
