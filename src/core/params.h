// Parameters of the GPU and SM core model, read once from the configuration.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/types.h"
#include "sim/variants.h"

namespace simfa {
class Config;
class ParamRegistry;
}  // namespace simfa

namespace simfa::core {

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

// WGMMA timing (docs/architecture.md "WGMMA timing"; every default measured on an H200 by
// gpu/ubench/wgmma.cu, data/measured/h200/ubench/wgmma_chain.csv).
struct TensorParams {
  std::uint32_t issue_buffer = 16;
  double flops_per_cycle_16bit = 4096;
  double flops_per_cycle_fp8 = 8192;
  double flops_per_cycle_tf32 = 2048;
  Cycle min_wgmma_cycles = 4;
  double rs_extra_cycles = 5.4;       // RS: extra pipe and issue cycles per WGMMA
  double lone_latency_ss = 54;        // a lone WGMMA: issue to wait release minus pipe time (SS)
  double lone_latency_rs = 46.6;      // the same for RS (after the RS pipe time)
  double first_issue_ss = 11;         // issue cycles of a WGMMA that follows another instruction
  double first_issue_rs = 19;
  double issue_per_column = 0.125;    // issue cycles of a WGMMA right after another: N x this + offset
  double issue_offset = -4;
  std::uint32_t max_outstanding = 7;  // WGMMAs of one WarpGroup issued and not yet retired
  double slot_release_ss = 38;        // cycles from leaving the pipe until the slot is free again
  double slot_release_rs = 68;
  double rs_slowdown_with_cuda = 1.075;  // RS pipe time while another WarpGroup runs CUDA-core work
};

// CUDA-core work (BUBBLE) slowed down while the SM's tensor pipe runs (interference.csv) and while
// other WarpGroups' bubbles share the SM sub-partitions' pipes (sharing.csv).
struct CudaCoreParams {
  bool interference = true;
  double slowdown_under_ss = 1.72;
  double slowdown_under_rs = 1.84;
  double pair_slowdown = 1.70;    // two WarpGroups' bubbles at once: each this much slower
  double triple_slowdown = 2.25;  // three at once; each further one adds (triple - pair) again
  // Time factor of a bubble while `running` WarpGroups' bubbles (its own included) run on the SM.
  double share_slowdown(std::size_t running) const {
    if (running <= 1) return 1.0;
    if (running == 2) return pair_slowdown;
    return triple_slowdown + (triple_slowdown - pair_slowdown) * static_cast<double>(running - 3);
  }
};

struct SmParams {
  // WarpGroup slots of an SM: one per 4 resident warps, at most 64.
  std::uint32_t wg_slots() const { return std::min<std::uint32_t>(64, std::max<std::uint32_t>(1, max_warps / 4)); }
  std::uint32_t max_ctas = 32;
  std::uint32_t max_warps = 64;
  std::uint64_t smem_bytes = 233472;      // 228 KiB per SM
  std::uint64_t max_smem_per_cta = 232448;  // 227 KiB
  std::uint32_t regs = 65536;
  std::uint32_t issue_width = 1;
  std::string scheduler = "gto";  // sm.scheduler: a name of warp_schedulers() (warp_scheduler.h)
  std::uint32_t fetch_chunk = 64;
  Cycle cluster_multicast_cycles = 1;
  Cycle cluster_signal_cycles = 148;
  TmaParams tma;
  TensorParams tensor;
  CudaCoreParams cuda;
};

struct GpuParams {
  int num_sms = 132;
  double clock_hz = 1.83e9;
  Cycle cta_launch_cycles = 0;
  Cycle watchdog_cycles = 20'000'000;
  Cycle max_cycles = 0;  // 0: no limit
  SmParams sm;
};

GpuParams gpu_params(const Config& cfg);

// gpu.clock_model: the clock a kernel run simulates at (api::apply_clock_model applies it).
enum class ClockModel : std::uint8_t { PowerLimited, Fixed };
const VariantList<ClockModel>& clock_models();

// gpu.arch: the GPU's architecture, and whether the cycle simulator models its SMs. The simulator
// models Hopper's (sm_90); the analytic model covers every architecture. A simulating path refuses
// the others through api::require_simulatable, naming what the simulator lacks for them.
struct ArchSupport {
  bool simulated;            // the simulator's SM model (WGMMA, TMA, mbarriers, clusters) is this one's
  std::string_view missing;  // simulated = false: what simulating it would need, for the refusal
};
const VariantList<ArchSupport>& gpu_archs();

void register_core_params(ParamRegistry& reg);

}  // namespace simfa::core
