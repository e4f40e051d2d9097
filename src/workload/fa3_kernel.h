// The resolved configuration of one FA3 forward launch: the shape, the kernel version and recipe,
// every structural choice (tiles, WarpGroups, stages, overlap, ping-pong, cluster, scheduler,
// PackGQA) with "auto" keys resolved exactly as FA3's launch code does, plus the bubble costs and
// the per-M-block KV block ranges (causal masking).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/variants.h"
#include "spec/attention.h"
#include "trace/isa.h"
#include "workload/bubbles.h"

namespace simfa {
class Config;
}

namespace simfa::workload {

enum class Version : std::uint8_t { Current, Original };
// The kernel implementation (fa3.kernel, spec::attention_kernels()): FlashAttention-3 itself, or
// simfa's own gpu/attn kernel, which has FA3's current mainloop but its own epilogue
// (docs/fa3-workload.md "The simfa-attn kernel"). cuTile's kernel (CuTile) has no trace: resolve_fa3
// refuses it.
using Impl = spec::AttnKernel;
// Static: the persistent grid strides over the tile indices. Dynamic: current FA3's atomic-counter
// scheduler with LPT order and L2 sections. Counter: the first atomic-counter scheduler (74b0761f,
// three days after the release, up to 7a802796): tiles claimed in finish order, static mapping.
enum class SchedKind : std::uint8_t { Static, Dynamic, Counter };
// Both atomic-counter schedulers claim tiles at run time, through the producer and the
// tile-scheduler barriers (fa3-kernel.md §4.3).
inline bool claims_tiles(SchedKind s) { return s != SchedKind::Static; }
const char* sched_name(SchedKind s);
// The kind named by fa3.scheduler's value ("static", "dynamic", "counter"; the registry has
// already rejected any other).
SchedKind sched_from_name(std::string_view name);

// The names the configuration gives the kernel, its version, its trace recipe and an explicit
// cluster size (sim/variants.h): fa3.kernel, fa3.version, fa3.recipe and fa3.cluster's choices
// (workload/params.cpp) come from these lists, and resolve_fa3 maps a name through them.
enum class Recipe : std::uint8_t { Source, Paper };
const VariantList<Impl>& kernel_variants();
const VariantList<Version>& version_variants();
const VariantList<Recipe>& recipe_variants();
const VariantList<int>& cluster_variants();  // "auto" (0: FA3's launch rule), "1", "2"

struct Fa3Kernel {
  spec::AttentionShape shape;
  Impl impl = Impl::Fa3;
  Version version = Version::Current;
  bool paper_recipe = false;

  // Tiles and WarpGroups.
  int tile_m = 0, tile_n = 0;
  int head_dim = 0;       // kernel head dimension: shape.head_dim rounded up to 64/96/128/192/256
  int consumer_wgs = 0;   // tile_m / 64
  int stages = 2;
  bool pv_rs = true;      // PV GEMM with P from registers
  bool intra_wg_overlap = true;
  bool pingpong = true;
  int cluster = 1;
  bool pack_gqa = false;

  // Recipe details (fa3-kernel.md §8).
  int tma_cols = 64;               // columns (elements) per Q/K/V TMA instruction
  int tma_cols_o = 64;             // columns per O TMA store
  bool first_wg_waits_only = true; // steady-state K/V waits by consumer 0 only
  bool paper_pingpong = false;
  bool paper_bubbles = false;
  // simfa-attn: every consumer WarpGroup normalises its own 64 rows of O and stores them and their
  // LSE from registers with ordinary global stores: no smem staging, epilogue barrier, TMA store or
  // barrier_O. (The trace approximates the stores by TMA stores, docs/fa3-workload.md.)
  bool o_from_registers = false;
  std::uint16_t pingpong_bar = 9;  // named barrier of consumer 0's ping-pong turn; consumer c uses + c

  // Scheduling.
  SchedKind scheduler = SchedKind::Static;
  std::uint32_t grid = 0;
  std::int64_t m_blocks = 0;       // per scheduled head, rounded up to the cluster size
  std::int64_t sched_heads = 0;    // heads the scheduler iterates: H_Q, or H_KV with PackGQA
  std::int64_t n_blocks = 0;       // ceil(S / tile_n)
  double l2_swizzle_budget = 32.0 * 1024 * 1024;
  double dynamic_overhead_blocks = 1.0;

  // Data types.
  int elem_bytes = 2, out_bytes = 2;
  trace::DType mma_dtype = trace::DType::F16;
  int mma_k = 16;                  // K of one WGMMA: 32 bytes of A

  double mask_ops_per_element = 2.0;
  BubbleCosts bubbles;             // for one consumer WarpGroup (64 rows)
  PipeRates pipe_rates{};          // the sm.* pipe rates and latencies (pipe model, pipe_use.h)

  std::int64_t total_tiles() const { return shape.batch * sched_heads * m_blocks; }
  // barrier_O: the O store's smem read gates the next Q load (FA3's source recipe only).
  bool uses_barrier_o() const { return !paper_recipe && !o_from_registers; }
  // simfa-attn's epilogue per consumer, one bubble: O *= 1/row_sum (rescale_o), FP32 -> FP16
  // (convert_o), and the 64 x D x 2 bytes leaving the registers by st.global through the SM's
  // 128 B/cycle L1 data path, the rate and bytes of FA3's STSM term (stsm_o).
  std::uint32_t register_epilogue_bubble() const {
    return bubbles.rescale_o + bubbles.convert_o + bubbles.stsm_o;
  }
  int qk_wgmmas() const { return head_dim / mma_k; }
  int pv_wgmmas() const { return tile_n / mma_k; }
  std::string name() const;  // "fa3_fwd_hdim128_fp16_current", "simfa_attn_fwd_hdim128_fp16"
};

// Resolves the kernel for `shape` from the fa3.* and sm.* keys of `cfg` on a GPU of `num_sms` SMs.
// Throws UserError naming the key when a choice is impossible (tile sizes WGMMA cannot do, a
// cluster with a dynamic scheduler, ...).
Fa3Kernel resolve_fa3(const spec::AttentionShape& shape, const Config& cfg, int num_sms);

// The KV blocks one M-block visits, processed from n_max-1 down to n_min, and which of them pay
// for masking (fa3-kernel.md §4.1-4.2).
struct BlockRange {
  std::int64_t n_min = 0, n_max = 0;
  std::int64_t mask_from = 0;  // causal: blocks n >= mask_from (besides the first) are masked
  std::int64_t count() const { return n_max > n_min ? n_max - n_min : 0; }
};
BlockRange block_range(const Fa3Kernel& k, std::int64_t m_block);
// Whether block `n` of `r` pays for masking. `first` is n == n_max-1 (always masked: seqlen_k column
// mask), then causal blocks per the version's rule.
bool block_masked(const Fa3Kernel& k, const BlockRange& r, std::int64_t n);

}  // namespace simfa::workload
