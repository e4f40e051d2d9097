// Resolution of the FA3 launch configuration: FA3's own rules (tile table, UseSchedulerBarrier,
// cluster, PackGQA heuristic, scheduler choice, grid) for each "auto" key, user overrides checked.
#include "workload/fa3_kernel.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/error.h"

namespace simfa::workload {

namespace {

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

int kernel_head_dim(std::int64_t d) {
  for (int k : {64, 96, 128, 192, 256})
    if (d <= k) return k;
  user_error("head_dim (--head-dim) {} is above 256, the largest FA3 supports", d);
}

// hopper/heuristics.h should_pack_gqa (non-varlen): pack when it improves the M-tile efficiency by
// more than 10/9.
bool should_pack_gqa(std::int64_t seqlen_q, std::int64_t group, int tile_m) {
  if (group <= 1) return false;
  auto eff = [&](std::int64_t rows) { return double(rows) / double(cdiv(rows, tile_m) * tile_m); };
  return eff(seqlen_q) < 0.9 * eff(seqlen_q * group);
}

// Columns of one TMA box: the swizzle width (128, 64 or 32 bytes, the largest that divides a row)
// for FA3's per-slab copies, or the whole row.
int tma_columns(int head_dim, int bytes, bool whole) {
  if (whole) return head_dim;
  for (int sw : {128, 64, 32})
    if ((head_dim * bytes) % sw == 0) return std::min(head_dim, sw / bytes);
  return head_dim;
}

bool tri(const Config& c, const char* key, bool auto_value) {
  const std::string& v = c.s(key);
  return v == "auto" ? auto_value : v == "on";
}

// simfa-attn (gpu/attn/attn_kernel.cuh) is compiled for one shape class and one structure: every
// structural key must stay automatic or name the kernel's own choice (fa3.intra_wg_overlap is the
// kernel's template parameter and stays free; fa3.grid is a launch parameter).
void check_simfa_attn(const spec::AttentionShape& s, const Config& cfg) {
  constexpr const char* kWhat = "fa3.kernel = simfa-attn";
  spec::simfa_attn_check(s);
  struct Fixed {
    const char* key;
    std::initializer_list<const char*> ok;  // accepted values; the first automatic one comes first
    const char* kernel;                     // what the kernel does instead
  };
  static const Fixed fixed[] = {
      {"fa3.version", {"current"}, "FA3's current mainloop"},
      {"fa3.recipe", {"source"}, "the source recipe"},
      {"fa3.tile_m", {"0", "128"}, "kBlockM = 128"},
      {"fa3.tile_n", {"0", "176"}, "kBlockN = 176"},
      {"fa3.stages", {"2"}, "kStages = 2"},
      {"fa3.pingpong", {"auto", "on"}, "the ping-pong on named barriers 2 and 3"},
      {"fa3.cluster", {"auto", "1"}, "no cluster"},
      {"fa3.scheduler", {"auto", "static"}, "the static persistent scheduler"},
      {"fa3.pack_gqa", {"auto", "off"}, "no PackGQA"},
      {"fa3.tma_per_tile", {"auto", "swizzle"}, "one TMA per 64-column box"},
      {"fa3.consumer_waits", {"auto", "first"}, "steady-state K/V waits by the first consumer only"},
      {"fa3.pingpong_placement", {"auto", "source"}, "the source placement of the ping-pong"},
      {"fa3.bubbles", {"auto", "source"}, "the source placement of the bubbles"},
  };
  for (const Fixed& f : fixed) {
    const std::string v = cfg.render(f.key);
    bool ok = false;
    for (const char* a : f.ok) ok = ok || v == a;
    if (!ok)
      user_error("{} = {}: {} has {}; leave {} at {}", f.key, v, kWhat, f.kernel, f.key, *f.ok.begin());
  }
}

}  // namespace

namespace {
constinit const Variant<Version> kCurrent{"current", "HEAD 0251105a", Version::Current};
constinit const Variant<Version> kOriginal{"original", "first release 7f67966c", Version::Original};
constinit const Variant<Recipe> kSourceRecipe{"source", "follows the FA3 code", Recipe::Source};
constinit const Variant<Recipe> kPaperRecipe{"paper", "the seed paper's §5.2 translation", Recipe::Paper};
constinit const Variant<int> kClusterAuto{"auto", "FA3's launch rule", 0};
constinit const Variant<int> kCluster1{"1", "no cluster", 1};
constinit const Variant<int> kCluster2{"2", "pairs of CTAs, K/V multicast", 2};
}  // namespace

const VariantList<Impl>& kernel_variants() { return spec::attention_kernels(); }
const VariantList<Version>& version_variants() {
  static const VariantList<Version> list("fa3.version", "FA3 version", {&kCurrent, &kOriginal});
  return list;
}
const VariantList<Recipe>& recipe_variants() {
  static const VariantList<Recipe> list("fa3.recipe", "trace recipe", {&kSourceRecipe, &kPaperRecipe});
  return list;
}
const VariantList<int>& cluster_variants() {
  static const VariantList<int> list("fa3.cluster", "cluster size", {&kClusterAuto, &kCluster1, &kCluster2});
  return list;
}

std::string Fa3Kernel::name() const {
  if (impl == Impl::SimfaAttn) return fmt::format("simfa_attn_fwd_hdim{}_{}", head_dim, spec::dtype_name(shape.dtype));
  std::string_view v;
  for (const auto* x : version_variants().all())
    if (x->make == version) v = x->name;
  return fmt::format("fa3_fwd_hdim{}_{}_{}{}{}", head_dim, spec::dtype_name(shape.dtype), v,
                     shape.causal ? "_causal" : "", paper_recipe ? "_paper" : "");
}

namespace {
constexpr std::pair<SchedKind, std::string_view> kSchedNames[] = {
    {SchedKind::Static, "static"}, {SchedKind::Dynamic, "dynamic"}, {SchedKind::Counter, "counter"}};
}  // namespace

const char* sched_name(SchedKind s) {
  for (const auto& [kind, name] : kSchedNames)
    if (kind == s) return name.data();
  throw InternalError("sched_name: unknown SchedKind");
}

SchedKind sched_from_name(std::string_view name) {
  for (const auto& [kind, name_of] : kSchedNames)
    if (name_of == name) return kind;
  throw InternalError("sched_from_name: no scheduler named '" + std::string(name) + "' (fa3.scheduler's choices)");
}

Fa3Kernel resolve_fa3(const spec::AttentionShape& shape, const Config& cfg, int num_sms) {
  shape.validate();
  Fa3Kernel k;
  k.shape = shape;
  k.impl = kernel_variants().get(cfg.s("fa3.kernel")).make;
  if (k.impl == Impl::CuTile)
    user_error("fa3.kernel = cutile ({}): cuTile's FlashAttention (the paper's §6, on GB10) is modelled by the "
               "analytic model only (simfa analyze); the cycle simulator synthesizes fa3 and simfa-attn",
               cfg.origin("fa3.kernel"));
  const bool own = k.impl == Impl::SimfaAttn;
  if (own) check_simfa_attn(shape, cfg);
  k.version = version_variants().get(cfg.s("fa3.version")).make;
  k.paper_recipe = recipe_variants().get(cfg.s("fa3.recipe")).make == Recipe::Paper;
  const bool cur = k.version == Version::Current;
  const bool fp8 = shape.dtype == spec::DType::FP8_E4M3;
  k.head_dim = kernel_head_dim(shape.head_dim);

  // Tiles: HEAD's tile_size_fwd_sm90 (src/spec), or the original release's table (fa3-kernel.md
  // §0: hdim 64 192x128, hdim 128 128x176 / causal 128x128, hdim 256 128x80; P in registers).
  spec::Fa3TileConfig t = spec::fa3_default_tiles(shape.head_dim, shape.dtype, shape.causal);
  bool cluster_eligible = t.cluster_eligible;
  if (!cur) {
    if (k.head_dim == 64) t.tile_m = 192, t.tile_n = 128;
    t.pv_rs = true;
    cluster_eligible = k.head_dim >= 128 && !shape.causal;  // original: cluster 2 whenever non-causal
  }
  if (own) t = spec::simfa_attn_tiles(), cluster_eligible = false;
  if (cfg.i("fa3.tile_m")) t.tile_m = static_cast<int>(cfg.i("fa3.tile_m"));
  if (cfg.i("fa3.tile_n")) t.tile_n = static_cast<int>(cfg.i("fa3.tile_n"));
  k.tile_m = t.tile_m;
  k.tile_n = t.tile_n;
  k.pv_rs = t.pv_rs;
  if (k.tile_m % 64 != 0 || k.tile_m < 64 || k.tile_m > 256)
    user_error("fa3.tile_m = {}: must be 64, 128, 192 or 256 (each consumer WarpGroup owns 64 rows)",
               k.tile_m);
  k.consumer_wgs = k.tile_m / 64;
  k.stages = static_cast<int>(cfg.i("fa3.stages"));

  k.elem_bytes = spec::dtype_bytes(shape.dtype);
  k.out_bytes = spec::dtype_out_bytes(shape.dtype);
  k.mma_dtype = fp8 ? trace::DType::E4M3
                    : (shape.dtype == spec::DType::BF16 ? trace::DType::BF16 : trace::DType::F16);
  k.mma_k = 32 / k.elem_bytes;
  if (k.tile_n % 8 != 0 || k.tile_n % k.mma_k != 0 || k.tile_n > 256 || k.tile_n < k.mma_k)
    user_error("fa3.tile_n = {}: must be a multiple of {} (the WGMMA K of {}) and of 8, at most 256",
               k.tile_n, k.mma_k, spec::dtype_name(shape.dtype));

  // Intra-WarpGroup overlap and the ping-pong barrier (fa3-kernel.md §3.1 UseSchedulerBarrier;
  // the original enabled it for hdim <= 128).
  k.intra_wg_overlap = tri(cfg, "fa3.intra_wg_overlap", true);
  bool pp_auto;
  if (cur) {
    const bool hd_ok = fp8 ? k.head_dim >= 128 : k.head_dim <= 128;
    pp_auto = k.intra_wg_overlap ? (k.consumer_wgs >= 2 && hd_ok) : k.consumer_wgs == 2;
  } else {
    pp_auto = k.consumer_wgs >= 2 && k.head_dim <= 128;
  }
  k.pingpong = tri(cfg, "fa3.pingpong", pp_auto);
  if (k.pingpong && k.consumer_wgs < 2)
    user_error("fa3.pingpong = on needs at least 2 consumer WarpGroups (fa3.tile_m >= 128), got {}",
               k.consumer_wgs);

  // PackGQA (current only; the original release had none).
  const std::string& pg = cfg.s("fa3.pack_gqa");
  // Packed Q/O tiles are modelled as TMA boxes of whole query positions (G heads each), so the
  // automatic choice also needs G to divide kBlockM (docs/fa3-workload.md).
  k.pack_gqa = pg == "auto" ? (cur && !own && k.tile_m % shape.group == 0 &&
                               should_pack_gqa(shape.seqlen_q, shape.group, k.tile_m))
                            : pg == "on";
  if (k.pack_gqa && shape.group > 1 && k.tile_m % shape.group != 0)
    user_error("fa3.pack_gqa = on needs fa3.tile_m ({}) to be a multiple of the group size {}",
               k.tile_m, shape.group);
  if (k.pack_gqa && shape.group == 1) k.pack_gqa = false;
  k.sched_heads = k.pack_gqa ? shape.heads_kv : shape.heads_q();

  // Scheduler.
  const std::string& sc = cfg.s("fa3.scheduler");
  // auto: causal tiles differ in length, and both releases balance them with an atomic counter.
  // The original's causal scheduler is the first counter scheduler (74b0761f), not 7f67966c's
  // static one: Shah et al.'s Fig. 5 causal times lie below what any static assignment of those
  // tiles can reach (docs/fa3-workload.md "Tile schedulers").
  if (sc == "auto")
    k.scheduler = !shape.causal ? SchedKind::Static : cur ? SchedKind::Dynamic : SchedKind::Counter;
  else
    k.scheduler = sched_from_name(sc);

  // Cluster (fa3-kernel.md §0; spec::fa3_cluster_size for HEAD).
  const std::int64_t rows = shape.seqlen_q * (k.pack_gqa ? shape.group : 1);
  const int cl = cluster_variants().get(cfg.s("fa3.cluster")).make;
  if (cl == 0) {
    if (cur) {
      t.cluster_eligible = cluster_eligible;
      k.cluster = spec::fa3_cluster_size(shape, t, /*split=*/false, k.pack_gqa);
    } else {
      k.cluster = cluster_eligible ? 2 : 1;
    }
    if (claims_tiles(k.scheduler) || own) k.cluster = 1;
  } else {
    k.cluster = cl;
  }
  if (k.cluster > 1 && claims_tiles(k.scheduler))
    user_error("fa3.cluster = 2 cannot be combined with fa3.scheduler = {} (FA3 clusters only "
               "the static scheduler's neighbouring M-blocks)",
               sched_name(k.scheduler));
  if (k.cluster > 1 && k.tile_n % (2 * 8) != 0)
    user_error("fa3.cluster = 2 splits each K/V tile in two; fa3.tile_n = {} must be a multiple of 16",
               k.tile_n);
  k.m_blocks = cdiv(cdiv(rows, k.tile_m), k.cluster) * k.cluster;
  k.n_blocks = cdiv(shape.seqlen_kv, k.tile_n);

  // Grid: the SM count (current), 132 hard-coded (original); a multiple of the cluster size.
  std::int64_t grid = cfg.i("fa3.grid");
  if (grid == 0) grid = cur ? num_sms : 132;
  grid = grid / k.cluster * k.cluster;
  if (grid < 1) user_error("fa3.grid = {} is smaller than the cluster size {}", cfg.i("fa3.grid"), k.cluster);
  k.grid = static_cast<std::uint32_t>(grid);
  k.l2_swizzle_budget = cfg.f("fa3.l2_swizzle_budget");
  k.dynamic_overhead_blocks = cfg.f("fa3.dynamic_overhead_blocks");

  // Recipe details.
  const std::string& tp = cfg.s("fa3.tma_per_tile");
  const bool whole = tp == "tile" || (tp == "auto" && k.paper_recipe);
  k.tma_cols = tma_columns(k.head_dim, k.elem_bytes, whole);
  k.tma_cols_o = tma_columns(k.head_dim, k.out_bytes, whole);
  const std::string& cw = cfg.s("fa3.consumer_waits");
  k.first_wg_waits_only = cw == "first" || (cw == "auto" && cur && k.pingpong && !k.paper_recipe);
  const std::string& pl = cfg.s("fa3.pingpong_placement");
  k.paper_pingpong = k.pingpong && (pl == "paper" || (pl == "auto" && k.paper_recipe));
  const std::string& bb = cfg.s("fa3.bubbles");
  k.paper_bubbles = bb == "paper" || (bb == "auto" && k.paper_recipe);
  if (k.first_wg_waits_only && !k.pingpong)
    user_error("fa3.consumer_waits = first needs the ping-pong barrier (fa3.pingpong), which orders "
               "the other consumers after the first one's waits");
  if (k.first_wg_waits_only && k.paper_pingpong)
    user_error("fa3.consumer_waits = first needs fa3.pingpong_placement = source");
  if (k.paper_pingpong && k.consumer_wgs != 2)
    user_error("fa3.pingpong_placement = paper is defined for 2 consumer WarpGroups, got {}",
               k.consumer_wgs);
  if (k.paper_pingpong && !k.intra_wg_overlap)
    user_error("fa3.pingpong_placement = paper needs fa3.intra_wg_overlap = on");

  if (own) {
    k.o_from_registers = true;
    k.pingpong_bar = 2;  // kBarSched0 / kBarSched1 of attn_kernel.cuh
  }

  k.mask_ops_per_element = cfg.f("fa3.mask_ops_per_element");
  k.pipe_rates = pipe_rates(cfg);
  const PipeRates& p = k.pipe_rates;
  const std::string& bcm = cfg.s("fa3.bubble_costs");
  if (bcm == "pipes" || (bcm == "auto" && !k.paper_recipe)) {
    k.bubbles = compute_bubbles_pipes(64, k.tile_n, k.head_dim, k.elem_bytes, k.out_bytes,
                                      k.mask_ops_per_element, p);
  } else {
    UnitRates r;
    r.fp32_ops = static_cast<int>(cfg.i("sm.fp32_ops_per_cycle"));
    r.fp16_ops = static_cast<int>(cfg.i("sm.fp16_ops_per_cycle"));
    r.mufu_ops = static_cast<int>(cfg.i("sm.mufu_ops_per_cycle"));
    r.smem_bytes = static_cast<int>(cfg.i("sm.smem_bytes_per_cycle"));
    k.bubbles = compute_bubbles(64, k.tile_n, k.head_dim, k.elem_bytes, k.out_bytes,
                                k.mask_ops_per_element, r);
  }
  return k;
}

BlockRange block_range(const Fa3Kernel& k, std::int64_t m_block) {
  BlockRange r;
  r.n_max = k.n_blocks;
  r.mask_from = r.n_max;  // no causal masking beyond the first block
  if (!k.shape.causal) return r;
  const std::int64_t L = k.shape.seqlen_q, S = k.shape.seqlen_kv, G = k.shape.group;
  // Query rows covered by this M-block (PackGQA rows hold G heads per query position).
  std::int64_t row_end = (m_block + 1) * k.tile_m;
  std::int64_t row_begin = m_block * k.tile_m;
  if (k.pack_gqa) row_end = (row_end - 1) / G + 1, row_begin = row_begin / G;
  const std::int64_t lim = row_end + S - L;
  r.n_max = lim <= 0 ? 0 : std::min(k.n_blocks, cdiv(lim, k.tile_n));
  if (k.version == Version::Current) {
    r.mask_from = std::max(r.n_min, floor_div(row_begin + S - L, k.tile_n));
  } else {
    // 7f67966c: the first block plus ceil(kBlockM / kBlockN) more are masked.
    r.mask_from = r.n_max - 1 - cdiv(k.tile_m, k.tile_n);
  }
  return r;
}

bool block_masked(const Fa3Kernel& k, const BlockRange& r, std::int64_t n) {
  if (n == r.n_max - 1) return true;
  return k.shape.causal && n >= r.mask_from;
}

}  // namespace simfa::workload
