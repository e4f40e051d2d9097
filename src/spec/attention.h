// Workload description shared by the analytic model and the FA3 trace generator: the attention
// shape (batch, sequence lengths, heads, head dimension, precision, causality), the Llama-3 model
// presets of the paper's Table 6, and FA3's default tile configuration (fa3-kernel.md §0).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/variants.h"

namespace simfa::spec {

enum class DType { FP16, BF16, FP8_E4M3 };

// Bytes per element of Q, K and V in `t`.
int dtype_bytes(DType t);
// Bytes per element of the output O: FA3's FP8 forward writes BF16 output, the others write their
// input type.
int dtype_out_bytes(DType t);
// "fp16", "bf16", "fp8_e4m3".
std::string_view dtype_name(DType t);
// Parses "fp16" / "bf16" / "fp8_e4m3" (also "fp8", "e4m3", "half"). Throws UserError naming
// `flag` (e.g. "--dtype") on anything else.
DType parse_dtype(std::string_view text, std::string_view flag = "--dtype");

// One attention call. Field names map to command-line flags (seqlen_q <-> --seqlen-q) and to the
// Python keywords of the same name.
struct AttentionShape {
  std::int64_t batch = 1;        // B
  std::int64_t seqlen_q = 0;     // L
  std::int64_t seqlen_kv = 0;    // S
  std::int64_t heads_kv = 0;     // H_KV
  std::int64_t group = 1;        // G: query heads per KV head
  std::int64_t head_dim = 0;     // D (also the V head dimension)
  DType dtype = DType::FP16;
  bool causal = false;

  std::int64_t heads_q() const { return heads_kv * group; }
  // Throws UserError naming the field and its flag ("seqlen_q (--seqlen-q) must be at least 1,
  // got 0") when a field is out of range or the shape is too large for exact 64-bit counting.
  void validate() const;
};

// The shape's fields as JSON, in declaration order (batch ... causal): the "workload" of a run's
// document and the shape columns of an analytic point.
nlohmann::ordered_json shape_json(const AttentionShape& s);

// The CLI flag that sets `field` ("seqlen_q" -> "--seqlen-q").
std::string flag_of(std::string_view field);

// Llama-3 family attention configurations (paper Table 6).
struct ModelPreset {
  std::string name;         // "llama3-405b"
  std::int64_t hidden = 0;  // hidden size
  std::int64_t heads_q = 0;
  std::int64_t heads_kv = 0;
  std::int64_t group = 0;
  std::int64_t head_dim = 0;
};
const std::vector<ModelPreset>& model_presets();
// Throws UserError listing the known names when `name` is unknown.
const ModelPreset& find_model(std::string_view name);
// A shape for `model` with the given sequence lengths (validated).
AttentionShape shape_for_model(std::string_view model, std::int64_t batch, std::int64_t seqlen_q,
                               std::int64_t seqlen_kv, DType dtype = DType::FP16,
                               bool causal = false);

// The attention kernels simfa knows (the key fa3.kernel, the flag --kernel): FlashAttention-3's
// hopper/ forward kernel and simfa's own gpu/attn kernel, which the cycle simulator synthesizes and
// the analytic model covers, and cuTile's FlashAttention of the paper's §6 (GB10), which only the
// analytic model covers.
enum class AttnKernel : std::uint8_t { Fa3, SimfaAttn, CuTile };
const VariantList<AttnKernel>& attention_kernels();

// Tile configuration of the FA3 forward kernel on SM90 for one (head_dim, dtype, causal).
struct Fa3TileConfig {
  int tile_m = 0;          // kBlockM: query rows per CTA tile (T_M)
  int tile_n = 0;          // kBlockN: KV rows per mainloop block (T_N)
  int consumer_wgs = 0;    // MMA warpgroups (kBlockM / 64)
  bool pv_rs = false;      // PV GEMM with P in registers (RS) rather than shared memory (SS)
  bool intra_wg_overlap = true;
  int stages = 2;          // K/V pipeline stages (always 2 on SM90)
  int ctas_per_sm = 1;     // launch bounds (MaxThreads, 1): O_limit = 1
  bool cluster_eligible = false;  // cluster (2,1,1) when, in addition, the M-block count is even
  const char* source = "";        // where the numbers come from
};

// FA3's tile_size_fwd_sm90 for a non-local, non-paged call with head_dim_v == head_dim. FP16/BF16
// follow fa3-kernel.md §0; FP8 (E4M3) follows the element_size == 1 branch of the same function
// (see the .cpp). Throws UserError for head_dim above 256, which FA3 does not support.
Fa3TileConfig fa3_default_tiles(std::int64_t head_dim, DType dtype, bool causal);

// The cluster size FA3 launches with for `shape` (fa3-kernel.md §0): 2 only for FP16/BF16 with
// head_dim >= 128, non-causal, not split, and an even number of M-blocks; otherwise 1.
int fa3_cluster_size(const AttentionShape& shape, const Fa3TileConfig& tiles, bool split,
                     bool pack_gqa);

// The cuTile FlashAttention configuration of the paper's §6 (T_M 64, T_N 32, from cuTile's
// auto-tuning on GB10), the named alternative to FA3's tiles.
Fa3TileConfig cutile_tiles();

// simfa's own gpu/attn kernel (gpu/attn/attn_kernel.cuh): compiled for head_dim 128, FP16,
// non-causal, with tile 128x176, no cluster, no PackGQA, no split. simfa_attn_check names the
// first property of `shape` it cannot run (UserError).
Fa3TileConfig simfa_attn_tiles();
void simfa_attn_check(const AttentionShape& shape);

}  // namespace simfa::spec
