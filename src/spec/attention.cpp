// Attention shape validation, the Llama-3 presets (paper Table 6) and FA3's tile table
// (tile_size_fwd_sm90, via fa3-kernel.md §0 for FP16/BF16).
#include "spec/attention.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::spec {

int dtype_bytes(DType t) { return t == DType::FP8_E4M3 ? 1 : 2; }

int dtype_out_bytes(DType t) { return 2; }  // FP8 forward writes BF16 O; FP16/BF16 write their own

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::FP16: return "fp16";
    case DType::BF16: return "bf16";
    case DType::FP8_E4M3: return "fp8_e4m3";
  }
  return "?";
}

DType parse_dtype(std::string_view text, std::string_view flag) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "fp16" || s == "half" || s == "float16") return DType::FP16;
  if (s == "bf16" || s == "bfloat16") return DType::BF16;
  if (s == "fp8_e4m3" || s == "fp8" || s == "e4m3" || s == "float8_e4m3fn") return DType::FP8_E4M3;
  user_error("{}: unknown data type '{}' (expected fp16, bf16 or fp8_e4m3)", flag, text);
}

std::string flag_of(std::string_view field) {
  std::string f = "--";
  for (char c : field) f += (c == '_') ? '-' : c;
  return f;
}

namespace {
void check_range(std::string_view field, std::int64_t v, std::int64_t lo, std::int64_t hi) {
  if (v < lo) user_error("{} ({}) must be at least {}, got {}", field, flag_of(field), lo, v);
  if (v > hi) user_error("{} ({}) must be at most {}, got {}", field, flag_of(field), hi, v);
}
}  // namespace

void AttentionShape::validate() const {
  // Upper bounds: FA3 holds sequence lengths in 32-bit ints and puts heads on a grid dimension.
  check_range("batch", batch, 1, 1 << 20);
  check_range("seqlen_q", seqlen_q, 1, (std::int64_t{1} << 31) - 1);
  check_range("seqlen_kv", seqlen_kv, 1, (std::int64_t{1} << 31) - 1);
  check_range("heads_kv", heads_kv, 1, 65535);
  check_range("group", group, 1, 1024);
  check_range("head_dim", head_dim, 1, 1024);
  // Every count the model forms is at most the FLOP count 4·B·H·L·S·D; keep it in 62 bits so the
  // integer arithmetic is exact.
  const double flops = 4.0 * double(batch) * double(heads_q()) * double(seqlen_q) *
                       double(seqlen_kv) * double(head_dim);
  if (flops > 4.0e18)
    user_error("shape too large: 4·B·H·L·S·D = {:.3g} exceeds the 4e18 that the model counts "
               "exactly (reduce --batch, --seqlen-q or --seqlen-kv)", flops);
}

const std::vector<ModelPreset>& model_presets() {
  // Paper Table 6 (Llama 3 family): hidden size, H_Q, H_KV, G, D.
  static const std::vector<ModelPreset> presets = {
      {"llama3-8b", 4096, 32, 8, 4, 128},
      {"llama3-70b", 8192, 64, 8, 8, 128},
      {"llama3-405b", 16384, 128, 8, 16, 128},
  };
  return presets;
}

const ModelPreset& find_model(std::string_view name) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  // Accept the marketing spellings too: "llama-3-405b", "llama3.1-405b".
  std::string norm;
  for (char c : s)
    if (c != '-' && c != '_' && c != '.') norm += c;
  for (const auto& p : model_presets()) {
    std::string pn;
    for (char c : p.name)
      if (c != '-') pn += c;
    if (norm == pn || (norm.rfind("llama31", 0) == 0 && "llama3" + norm.substr(7) == pn)) return p;
  }
  std::string list;
  for (const auto& p : model_presets()) list += (list.empty() ? "" : ", ") + p.name;
  user_error("--model: unknown model '{}' (known: {})", name, list);
}

AttentionShape shape_for_model(std::string_view model, std::int64_t batch, std::int64_t seqlen_q,
                               std::int64_t seqlen_kv, DType dtype, bool causal) {
  const ModelPreset& p = find_model(model);
  AttentionShape s;
  s.batch = batch;
  s.seqlen_q = seqlen_q;
  s.seqlen_kv = seqlen_kv;
  s.heads_kv = p.heads_kv;
  s.group = p.group;
  s.head_dim = p.head_dim;
  s.dtype = dtype;
  s.causal = causal;
  s.validate();
  return s;
}

Fa3TileConfig fa3_default_tiles(std::int64_t head_dim, DType dtype, bool causal) {
  if (head_dim < 1) user_error("head_dim (--head-dim) must be at least 1, got {}", head_dim);
  if (head_dim > 256)
    user_error("head_dim (--head-dim) {} is above 256, the largest FA3 supports; give --tile-m and "
               "--tile-n to model another kernel", head_dim);
  // FA3's mha_fwd (hopper/flash_api.cpp) checks head_size % alignment == 0: 8 elements, 16 for FP8.
  const int alignment = dtype == DType::FP8_E4M3 ? 16 : 8;
  if (head_dim % alignment != 0)
    user_error("head_dim (--head-dim) {} is not a multiple of {}, which FA3 requires{}; give --tile-m and "
               "--tile-n to model another kernel", head_dim, alignment, alignment == 16 ? " for FP8" : "");
  Fa3TileConfig t;
  auto set = [&](int m, int n, bool rs, const char* src) {
    t.tile_m = m;
    t.tile_n = n;
    t.pv_rs = rs;
    t.consumer_wgs = m / 64;
    t.source = src;
  };
  // FA3 rounds head_dim up to 64, 96, 128, 192 or 256 and picks the tile for the rounded value.
  if (dtype != DType::FP8_E4M3) {
    // fa3-kernel.md §0 (tile_size_fwd_sm90, FP16/BF16, HEAD 0251105a).
    if (head_dim <= 64)
      set(192, causal ? 128 : 192, causal, "fa3-kernel.md §0, hdim 64");
    else if (head_dim <= 96)
      set(192, 144, false, "fa3-kernel.md §0, hdim 96");
    else if (head_dim <= 128)
      set(128, causal ? 128 : 176, true, "fa3-kernel.md §0, hdim 128");
    else if (head_dim <= 192)
      set(128, 112, true, "fa3-kernel.md §0, hdim 192 (dv = 192 > 128)");
    else
      set(128, 80, true, "fa3-kernel.md §0, hdim 256");
    t.cluster_eligible = head_dim > 96 && !causal;  // hdim >= 128 after rounding
  } else {
    // FP8 (element_size 1) branch of tile_size_fwd_sm90 (hopper/tile_size.h), row-major V, no
    // softcap, not paged: not covered by fa3-kernel.md, read from the same function. FP8 halves
    // the bytes per K/V row, so the same shared memory holds a longer kBlockN; the tile does not
    // depend on causality there. [uncertain: not verified by a compile probe]
    if (head_dim <= 64)
      set(192, 160, true, "tile_size.h FP8 branch, hdim 64 [uncertain]");
    else if (head_dim <= 96)
      set(192, 128, true, "tile_size.h FP8 branch, hdim 96 [uncertain]");
    else if (head_dim <= 128)
      set(128, 224, true, "tile_size.h FP8 branch, hdim 128 [uncertain]");
    else if (head_dim <= 192)
      set(128, 160, true, "tile_size.h FP8 branch, hdim 192 [uncertain]");
    else
      set(128, 128, true, "tile_size.h FP8 branch, hdim 256 [uncertain]");
    // fa3-kernel.md §0: with FP8 the cluster is used only for hdim 192.
    t.cluster_eligible = head_dim > 128 && head_dim <= 192 && !causal;
  }
  return t;
}

int fa3_cluster_size(const AttentionShape& shape, const Fa3TileConfig& tiles, bool split,
                     bool pack_gqa) {
  if (!tiles.cluster_eligible || split || shape.causal) return 1;
  const std::int64_t rows = shape.seqlen_q * (pack_gqa ? shape.group : 1);
  const std::int64_t m_blocks = (rows + tiles.tile_m - 1) / tiles.tile_m;
  return m_blocks % 2 == 0 ? 2 : 1;
}

namespace {
constinit const Variant<AttnKernel> kFa3Kernel{
    "fa3", "FlashAttention-3's hopper/ forward kernel (fa3.version picks the release)", AttnKernel::Fa3};
constinit const Variant<AttnKernel> kSimfaAttnKernel{
    "simfa-attn",
    "simfa's own gpu/attn kernel: FA3's current structure at head dim 128 FP16, tile 128x176, without cluster, "
    "PackGQA or TMA store; each consumer stores its O rows and LSE from registers",
    AttnKernel::SimfaAttn};
constinit const Variant<AttnKernel> kCuTileKernel{
    "cutile",
    "cuTile's FlashAttention of the paper's §6 (GB10; T_M 64, T_N 32, no PackGQA, no split): the analytic model "
    "only, the cycle simulator has no trace of it",
    AttnKernel::CuTile};
}  // namespace

const VariantList<AttnKernel>& attention_kernels() {
  static const VariantList<AttnKernel> list("fa3.kernel", "attention kernel",
                                            {&kFa3Kernel, &kSimfaAttnKernel, &kCuTileKernel});
  return list;
}

Fa3TileConfig simfa_attn_tiles() {
  Fa3TileConfig t;
  t.tile_m = 128;
  t.tile_n = 176;
  t.consumer_wgs = 2;
  t.pv_rs = true;
  t.intra_wg_overlap = true;
  t.stages = 2;
  t.ctas_per_sm = 1;
  t.cluster_eligible = false;
  t.source = "gpu/attn/attn_kernel.cuh: kBlockM 128, kBlockN 176, no cluster";
  return t;
}

void simfa_attn_check(const AttentionShape& s) {
  constexpr const char* kWhat = "fa3.kernel = simfa-attn";
  if (s.head_dim != 128)
    user_error("{}: the kernel is compiled for head_dim 128 (kD), got {} (--head-dim)", kWhat, s.head_dim);
  if (s.dtype != DType::FP16)
    user_error("{}: the kernel runs FP16 only, got {} (--dtype)", kWhat, dtype_name(s.dtype));
  if (s.causal) user_error("{}: the kernel has no causal mask (--causal)", kWhat);
}

Fa3TileConfig cutile_tiles() {
  Fa3TileConfig t;
  t.tile_m = 64;
  t.tile_n = 32;
  t.consumer_wgs = 1;
  t.pv_rs = false;
  t.intra_wg_overlap = false;
  t.stages = 2;
  t.ctas_per_sm = 1;  // not published for cuTile; one CTA per SM as the paper's wave model assumes
  t.cluster_eligible = false;
  t.source = "paper §6.1: cuTile auto-tuned T_M 64, T_N 32 (GB10)";
  return t;
}

nlohmann::ordered_json shape_json(const AttentionShape& s) {
  return {{"batch", s.batch},       {"seqlen_q", s.seqlen_q}, {"seqlen_kv", s.seqlen_kv},
          {"heads_kv", s.heads_kv}, {"group", s.group},       {"head_dim", s.head_dim},
          {"dtype", dtype_name(s.dtype)}, {"causal", s.causal}};
}

}  // namespace simfa::spec
