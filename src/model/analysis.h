// The analytic model of FlashAttention traffic and time (paper §3, extended): FLOPs, L2 demand,
// ideal and realistic DRAM traffic with the regime switch, the traffic ratio and intensity, a
// latency estimate, and two baselines (GenZ's ideal cache, LLM-Viewer's L2-demand roofline).
//
// Contract: analyze() is a pure function of its arguments (no globals, no allocation); it throws
// UserError naming the offending field/flag for invalid input. Byte and FLOP counts are exact
// integers stored in doubles (exact below 2^53, correctly rounded above). Derivations:
// docs/analytic-model.md.
#pragma once
#include <cstdint>
#include <string_view>

#include "model/gpu_spec.h"
#include "spec/attention.h"

namespace simfa::model {

// The attention kernel (fa3.kernel): fa3, simfa-attn or cutile (spec::attention_kernels()).
using Kernel = spec::AttnKernel;
enum class PackGqa { Auto, On, Off };
enum class Regime { Ideal, Realistic };
enum class Bound { Compute, L2, Dram };

std::string_view kernel_name(Kernel k);
Kernel parse_kernel(std::string_view text, std::string_view flag = "--kernel");
std::string_view pack_gqa_name(PackGqa p);
PackGqa parse_pack_gqa(std::string_view text, std::string_view flag = "--pack-gqa");
std::string_view regime_name(Regime r);
std::string_view bound_name(Bound b);

// Knobs beyond the shape and the GPU. Zero means "take it from the kernel configuration / GPU".
// options_from_config (gpu_spec.h) fills them from the configuration keys of the same meaning.
struct ModelOptions {
  Kernel kernel = Kernel::Fa3;
  std::int64_t tile_m = 0;        // T_M; 0: the kernel's kBlockM
  std::int64_t tile_n = 0;        // T_N; 0: the kernel's kBlockN
  std::int64_t occupancy = 0;     // O_limit; 0: the kernel's CTAs per SM (FA3: 1)
  std::int64_t num_sms = 0;       // N_SM; 0: the GPU's
  double l2_effective_bytes = 0;  // 0: the GPU's effective L2
  std::int64_t num_splits = 0;    // split-KV: 0 FA3's heuristic (what flash_attn_with_kvcache
                                  // does; 1 for every prefill shape of the paper), 1 none
                                  // (flash_attn_func), n forced (at most 256)
  PackGqa pack_gqa = PackGqa::Auto;  // Auto: FA3's heuristic (cuTile: off)
  std::int64_t cluster = 0;       // CTAs sharing K/V by multicast; 0: FA3's launch rule for the tiles
                                  // in use, as the simulator's FA3 applies it (simfa-attn, cuTile: 1)
};

struct Result {
  // Resolved configuration.
  std::int64_t tile_m = 0, tile_n = 0, occupancy = 0, num_sms = 0, num_splits = 1;
  std::int64_t cluster = 1;       // FA3 cluster size (K/V multicast across 2 CTAs)
  bool pack_gqa = false;
  double l2_effective_bytes = 0;
  std::int64_t ctas = 0;          // CTAs (thread blocks) of the attention kernel, N_blocks
  std::int64_t ctas_per_group = 0;  // CTAs that read the same K/V range (one KV group, one split)

  // Work and traffic (bytes).
  double flops = 0;               // executed: 4·D·Σ over processed tiles of valid rows × cols
  double flops_useful = 0;        // unmasked score elements × 4·D (= flops when non-causal)
  double l2_bytes = 0;            // demand at L2 from every CTA (Eq. 2, + combine kernel)
  double l2_bytes_coalesced = 0;  // with FA3's cluster multicast: K/V demand / cluster size
  double dram_ideal_bytes = 0;    // Eq. 3
  double dram_real_bytes = 0;     // Eq. 6
  double dram_bytes = 0;          // the one the regime selects
  double combine_l2_bytes = 0;    // split-KV: partial O/LSE writes and the combine kernel
  double combine_dram_bytes = 0;
  double kv_head_bytes = 0;       // 2·P·S·D, the working set of Eq. 4
  double waves = 0;               // Eq. 5: W_grp
  Regime regime = Regime::Ideal;
  double r_traffic = 0;           // Eq. 7: l2_bytes / dram_real_bytes
  double intensity = 0;           // Eq. 11: flops / l2_bytes

  // Asymptotic forms (Eqs. 8, 9, 10, 12).
  double l2_bytes_asym = 0, dram_real_asym = 0, r_traffic_asym = 0, intensity_asym = 0;

  // Latency estimate: max of compute time and each level's traffic over its bandwidth.
  double compute_us = 0, l2_us = 0, dram_us = 0, latency_us = 0;
  Bound bound = Bound::Compute;

  // Baselines.
  double genz_dram_bytes = 0;       // ideal cache always (= Eq. 3)
  double genz_latency_us = 0;
  double llmviewer_dram_bytes = 0;  // L2 demand charged to DRAM
  double llmviewer_latency_us = 0;
};

// Evaluates the model. Validates `shape`, `gpu` and `opt` (UserError naming the field's flag).
Result analyze(const spec::AttentionShape& shape, const GpuSpec& gpu, const ModelOptions& opt = {});

// FA3's num_splits heuristic (fa3-kernel.md §7, hopper/heuristics.h) for the given inputs.
int fa3_num_splits_heuristic(std::int64_t total_mblocks, std::int64_t num_sms,
                             std::int64_t num_n_blocks, std::int64_t num_m_blocks,
                             std::int64_t size_one_kv_head, bool causal, int max_splits = 128);
// FA3's PackGQA heuristic (fa3-kernel.md §5, hopper/heuristics.h): pack when the Q-tile
// quantisation efficiency improves by more than 10/9.
bool fa3_should_pack_gqa(std::int64_t seqlen_q, std::int64_t group, std::int64_t tile_m);

}  // namespace simfa::model
