// The analytic model: resolves tiles, PackGQA and split-KV like FA3 does, counts the tiles of one
// KV group (tiles.h) and scales to the batch and heads; Eqs. 1-12 for the plain case, their
// extensions otherwise (docs/analytic-model.md), a max-of-three latency estimate and baselines.
#include "model/analysis.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "model/tiles.h"
#include "sim/error.h"

namespace simfa::model {

using spec::AttentionShape;
using spec::DType;
using i64 = std::int64_t;

std::string_view kernel_name(Kernel k) {
  for (const auto* v : spec::attention_kernels().all())
    if (v->make == k) return v->name;
  return "?";
}

Kernel parse_kernel(std::string_view text, std::string_view flag) {
  for (const auto* v : spec::attention_kernels().all())
    if (v->name == text) return v->make;
  user_error("{}: unknown kernel '{}' (expected one of: {})", flag, text, spec::attention_kernels().names_text());
}

std::string_view pack_gqa_name(PackGqa p) {
  switch (p) {
    case PackGqa::Auto: return "auto";
    case PackGqa::On: return "on";
    case PackGqa::Off: return "off";
  }
  return "?";
}

PackGqa parse_pack_gqa(std::string_view text, std::string_view flag) {
  if (text == "auto") return PackGqa::Auto;
  if (text == "on" || text == "true" || text == "1") return PackGqa::On;
  if (text == "off" || text == "false" || text == "0") return PackGqa::Off;
  user_error("{}: expected auto, on or off, got '{}'", flag, text);
}

std::string_view regime_name(Regime r) { return r == Regime::Ideal ? "ideal" : "realistic"; }

std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::Compute: return "compute";
    case Bound::L2: return "l2";
    case Bound::Dram: return "dram";
  }
  return "?";
}

bool fa3_should_pack_gqa(i64 seqlen_q, i64 group, i64 tile_m) {
  // hopper/heuristics.h should_pack_gqa (non-varlen), in the same float arithmetic.
  auto round_up = [](i64 a, i64 b) { return (a + b - 1) / b * b; };
  const float nopack = float(seqlen_q) / float(round_up(seqlen_q, tile_m));
  const float pack = float(seqlen_q * group) / float(round_up(seqlen_q * group, tile_m));
  return nopack < 0.9f * pack;
}

int fa3_num_splits_heuristic(i64 total_mblocks, i64 num_sms, i64 num_n_blocks, i64 num_m_blocks,
                             i64 size_one_kv_head, bool causal, int max_splits) {
  // hopper/heuristics.h num_splits_heuristic (fa3-kernel.md §7), same float arithmetic.
  if (float(total_mblocks) >= 0.8f * float(num_sms)) {
    const i64 size_l2 = i64{50} * 1024 * 1024;  // the 50 MB L2 FA3 assumes
    if (size_one_kv_head > size_l2 && num_m_blocks >= num_sms * 2 && !causal)
      return int(std::min<i64>((size_one_kv_head + size_l2 - 1) / size_l2, max_splits));
    return 1;
  }
  if (num_n_blocks <= 4) return 1;
  const int cap = int(std::min<i64>({i64(std::clamp(max_splits, 1, 128)), num_sms, num_n_blocks}));
  float eff[128];  // cap <= max_splits <= 128
  float best = 0.f;
  for (int s = 1; s <= cap; ++s) {
    const float waves = float(total_mblocks * s) / float(num_sms);
    // Integer ceiling: equal to ceil() of the float quotient unless that is within float
    // rounding of an integer, which needs waves·num_sms above 1e7.
    eff[s - 1] = waves / float((total_mblocks * s + num_sms - 1) / num_sms);
    best = std::max(best, eff[s - 1]);
  }
  for (int s = 1; s <= cap; ++s)
    if (eff[s - 1] >= 0.85f * best) return s;
  return 1;
}

namespace {

void check_opt(const char* field, i64 v, i64 lo, i64 hi) {
  if (v < lo || v > hi) [[unlikely]]
    user_error("{} ({}) must be between {} and {}, got {}", field, spec::flag_of(field), lo, hi, v);
}

}  // namespace

Result analyze(const AttentionShape& shape, const GpuSpec& gpu, const ModelOptions& opt) {
  shape.validate();
  gpu.validate();
  if (opt.tile_m != 0) check_opt("tile_m", opt.tile_m, 1, 4096);
  if (opt.tile_n != 0) check_opt("tile_n", opt.tile_n, 1, 4096);
  if (opt.occupancy != 0) check_opt("occupancy", opt.occupancy, 1, 1024);
  if (opt.num_sms != 0) check_opt("num_sms", opt.num_sms, 1, 1 << 20);
  check_opt("splits", opt.num_splits, 0, 256);
  check_opt("cluster", opt.cluster, 0, 2);
  if (!(opt.l2_effective_bytes >= 0) || !std::isfinite(opt.l2_effective_bytes))
    user_error("l2_effective (--l2-effective-mib) must be a non-negative number");

  Result r;
  const i64 L = shape.seqlen_q, S = shape.seqlen_kv, G = shape.group, D = shape.head_dim;
  const i64 P = spec::dtype_bytes(shape.dtype), P_out = spec::dtype_out_bytes(shape.dtype);

  // Kernel configuration: tiles and occupancy from FA3's table (or cuTile's, or simfa-attn's), unless
  // given. FA3's table also says whether the shape may cluster; it rejects head dimensions FA3 does
  // not support, so it is read only when needed or when it cannot fail.
  const bool need_table = opt.tile_m == 0 || opt.tile_n == 0 || opt.occupancy == 0;
  spec::Fa3TileConfig tiles;
  switch (opt.kernel) {
    case Kernel::Fa3:
      if (need_table || (D <= 256 && D % (shape.dtype == DType::FP8_E4M3 ? 16 : 8) == 0))
        tiles = spec::fa3_default_tiles(D, shape.dtype, shape.causal);
      break;
    case Kernel::SimfaAttn:
      spec::simfa_attn_check(shape);
      tiles = spec::simfa_attn_tiles();
      for (auto [key, given, own] : {std::tuple{"fa3.tile_m", opt.tile_m, i64{tiles.tile_m}},
                                     std::tuple{"fa3.tile_n", opt.tile_n, i64{tiles.tile_n}}})
        if (given != 0 && given != own)
          user_error("{} = {}: fa3.kernel = simfa-attn is compiled for {}; leave {} at 0", key, given, own, key);
      if (opt.pack_gqa == PackGqa::On) user_error("fa3.pack_gqa = on: fa3.kernel = simfa-attn has no PackGQA");
      if (opt.num_splits > 1) user_error("fa3.splits = {}: fa3.kernel = simfa-attn has no split-KV", opt.num_splits);
      if (opt.cluster > 1) user_error("fa3.cluster = {}: fa3.kernel = simfa-attn has no cluster", opt.cluster);
      break;
    case Kernel::CuTile: tiles = spec::cutile_tiles(); break;
  }
  r.tile_m = opt.tile_m ? opt.tile_m : tiles.tile_m;
  r.tile_n = opt.tile_n ? opt.tile_n : tiles.tile_n;
  r.occupancy = opt.occupancy ? opt.occupancy : tiles.ctas_per_sm;
  r.num_sms = opt.num_sms ? opt.num_sms : gpu.num_sms;
  r.l2_effective_bytes = opt.l2_effective_bytes > 0 ? opt.l2_effective_bytes : gpu.effective_l2();
  const i64 T_M = r.tile_m, T_N = r.tile_n, n_conc = r.num_sms * r.occupancy;
  const i64 n_blocks = (S + T_N - 1) / T_N;

  // Split-KV (FA3 heuristic when asked for; cuTile and simfa-attn never split on their own).
  if (opt.num_splits == 0) {
    if (opt.kernel == Kernel::Fa3) {
      const i64 m_packed = (L * G + T_M - 1) / T_M;
      r.num_splits = fa3_num_splits_heuristic(shape.batch * shape.heads_kv * m_packed, r.num_sms,
                                              n_blocks, m_packed, S * 2 * D * P, shape.causal);
    } else {
      r.num_splits = 1;
    }
  } else {
    r.num_splits = opt.num_splits;
  }
  if (r.num_splits > n_blocks)
    user_error("splits (--splits) {} exceeds the {} KV blocks of seqlen_kv {} at tile_n {}",
               r.num_splits, n_blocks, S, T_N);
  const i64 s = r.num_splits;

  // PackGQA: FA3 packs when it splits, and otherwise when it improves tile quantisation.
  switch (opt.pack_gqa) {
    case PackGqa::On: r.pack_gqa = true; break;
    case PackGqa::Off:
      if (s > 1 && opt.kernel == Kernel::Fa3)
        user_error("fa3.pack_gqa = off (--pack-gqa) conflicts with {} splits: FA3 always packs GQA when it splits",
                   s);
      r.pack_gqa = false;
      break;
    case PackGqa::Auto:
      r.pack_gqa = opt.kernel == Kernel::Fa3 && G > 1 &&
                   (s > 1 || fa3_should_pack_gqa(L, G, T_M));
      break;
  }
  r.pack_gqa = r.pack_gqa && G > 1;  // packing one head per KV head changes nothing
  // Cluster: FA3's launch rule for the tiles in use (the rule of the simulator's FA3, so a given
  // fa3.tile_m or fa3.tile_n clusters as it does there).
  if (opt.cluster != 0) {
    r.cluster = opt.cluster;
  } else if (opt.kernel == Kernel::Fa3 && tiles.tile_m > 0) {
    spec::Fa3TileConfig used = tiles;
    used.tile_m = int(T_M);
    used.tile_n = int(T_N);
    r.cluster = spec::fa3_cluster_size(shape, used, s > 1, r.pack_gqa);
  } else {
    r.cluster = 1;
  }

  GroupGeometry geo;
  geo.seqlen_q = L;
  geo.seqlen_kv = S;
  geo.group = G;
  geo.pack_gqa = r.pack_gqa;
  geo.causal = shape.causal;
  geo.tile_m = T_M;
  geo.tile_n = T_N;
  geo.splits = s;
  geo.n_conc = n_conc;
  const GroupCounts c = count_group(geo);

  const double groups = double(shape.batch * shape.heads_kv);
  const double row_in = double(D * P);       // bytes of one Q, K or V row
  const double row_out = double(D * P_out);  // bytes of one O row
  const double row_partial = double((D + 1) * 4);  // FP32 O_partial row + its FP32 LSE

  r.ctas = shape.batch * shape.heads_kv * c.ctas;
  r.ctas_per_group = c.sharers;
  r.waves = double(c.waves);
  r.flops = 4.0 * double(D) * groups * double(c.score_elems);
  r.flops_useful = 4.0 * double(D) * groups * double(c.useful_elems);

  // L2 demand: Q tiles, K and V blocks, O tiles (Eq. 2); split-KV writes FP32 partials that the
  // combine kernel reads back before writing O.
  const double q_l2 = groups * double(c.q_rows) * row_in;
  const double kv_l2 = 2.0 * groups * double(c.kv_rows) * row_in;
  const double o_l2 = groups * double(c.o_rows) * row_out;
  const double partial_bytes = s > 1 ? groups * double(c.o_rows * s) * row_partial : 0.0;
  r.combine_l2_bytes = 2.0 * partial_bytes;
  r.l2_bytes = q_l2 + kv_l2 + o_l2 + r.combine_l2_bytes;
  r.l2_bytes_coalesced = r.l2_bytes - kv_l2 * (1.0 - 1.0 / double(r.cluster));

  // DRAM: Q and O once; K and V once (Eq. 3) or once per wave (Eq. 6). Partials stay in L2 unless
  // they overflow it; then they are written back and read again.
  const double base = groups * (double(c.q_rows_touched) * row_in + double(c.o_rows) * row_out);
  r.combine_dram_bytes = partial_bytes > r.l2_effective_bytes ? 2.0 * partial_bytes : 0.0;
  r.dram_ideal_bytes = base + 2.0 * groups * double(c.kv_rows_touched) * row_in;
  r.dram_real_bytes = base + 2.0 * groups * double(c.kv_rows_real) * row_in + r.combine_dram_bytes;
  r.kv_head_bytes = 2.0 * double(c.kv_rows_touched) * row_in;
  r.regime = r.l2_effective_bytes > r.kv_head_bytes ? Regime::Ideal : Regime::Realistic;  // Eq. 4
  r.dram_bytes = r.regime == Regime::Ideal ? r.dram_ideal_bytes + r.combine_dram_bytes
                                           : r.dram_real_bytes;
  r.r_traffic = r.l2_bytes / r.dram_real_bytes;  // Eq. 7
  r.intensity = r.flops / r.l2_bytes;            // Eq. 11

  // Asymptotic forms (Eqs. 8-10, 12); causal scales the K/V terms by the visible fraction.
  const double frac = double(c.useful_elems) / (double(G) * double(L) * double(S));
  const double kv_head_elems = double(P) * double(shape.batch * shape.heads_kv) * double(D);
  r.l2_bytes_asym = 2.0 * kv_head_elems * double(G) * (double(L) / double(T_M)) * double(S) * frac;
  r.dram_real_asym = 2.0 * kv_head_elems * double(S) *
                     (double(G) * double(L) / (double(r.num_sms) * double(T_M) * double(r.occupancy))) *
                     frac;
  r.r_traffic_asym = double(n_conc);
  r.intensity_asym = 2.0 * double(T_M) / double(P);

  // Latency: the slowest of the tensor pipes at peak and each memory level at its bandwidth.
  const double per_cycle =
      shape.dtype == DType::FP8_E4M3 ? gpu.flops_per_cycle_fp8 : gpu.flops_per_cycle_16bit;
  const double flops_per_s = double(r.num_sms) * per_cycle * gpu.clock_hz;
  r.compute_us = r.flops / flops_per_s * 1e6;
  r.l2_us = r.l2_bytes_coalesced / (gpu.l2_bytes_per_cycle * gpu.clock_hz) * 1e6;
  r.dram_us = r.dram_bytes / gpu.dram_bytes_per_s * 1e6;
  r.latency_us = r.compute_us;
  r.bound = Bound::Compute;
  if (r.l2_us > r.latency_us) r.latency_us = r.l2_us, r.bound = Bound::L2;
  if (r.dram_us > r.latency_us) r.latency_us = r.dram_us, r.bound = Bound::Dram;

  // Baselines: GenZ's ideal cache (Eq. 3), LLM-Viewer's roofline with L2 demand at DRAM.
  r.genz_dram_bytes = r.dram_ideal_bytes;
  r.genz_latency_us = std::max(r.compute_us, r.genz_dram_bytes / gpu.dram_bytes_per_s * 1e6);
  r.llmviewer_dram_bytes = r.l2_bytes;
  r.llmviewer_latency_us =
      std::max(r.compute_us, r.llmviewer_dram_bytes / gpu.dram_bytes_per_s * 1e6);
  return r;
}

}  // namespace simfa::model
