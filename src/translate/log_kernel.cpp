// Which FA3 kernel a log was recorded from: the shape from the Q and K TensorMaps, the launch from
// the header, the remaining fa3.* choices from the configuration; then the log's TensorMaps (Q, K,
// V, and O for FA3 itself) must be the ones that kernel uses.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "sim/config.h"
#include "sim/error.h"
#include "translate/fa3_log_source.h"
#include "translate/log_maps.h"
#include "workload/emitter.h"

namespace simfa::translate {

BubbleMode parse_bubble_mode(const std::string& text) {
  if (text == "model") return BubbleMode::Model;
  if (text == "measured") return BubbleMode::Measured;
  user_error("--bubbles {}: expected 'model' or 'measured'", text);
}

trace::TensorMap to_trace_map(const simfa_tensormap_desc& d) {
  trace::TensorMap m;
  m.id = static_cast<std::uint16_t>(d.id);
  m.rank = static_cast<std::uint8_t>(d.rank);
  for (std::uint32_t i = 0; i < d.rank && i < SIMFA_EVLOG_MAX_RANK; ++i) {
    m.dims[i] = d.dims[i];
    m.strides[i] = d.strides_bytes[i];
    m.box[i] = d.box[i];
  }
  m.esz = d.elem_bytes;
  m.base = d.base;
  return m;
}

simfa_tensormap_desc normalized(const simfa_tensormap_desc& d) {
  const std::uint32_t rank = std::min<std::uint32_t>(d.rank, SIMFA_EVLOG_MAX_RANK);
  std::uint32_t order[SIMFA_EVLOG_MAX_RANK] = {0, 1, 2, 3, 4};
  // Ascending stride; on a tie (a dimension of extent 1 may carry the stride of the next one, e.g.
  // simfa-attn's [D, S, H, B] with one KV head) the extent-1 dimension is the inner one.
  if (rank > 1)
    std::stable_sort(order + 1, order + rank, [&](std::uint32_t a, std::uint32_t b) {
      if (d.strides_bytes[a] != d.strides_bytes[b]) return d.strides_bytes[a] < d.strides_bytes[b];
      return d.dims[a] < d.dims[b];
    });
  simfa_tensormap_desc n = d;
  for (std::uint32_t i = 0; i < rank; ++i) {
    n.dims[i] = d.dims[order[i]];
    n.strides_bytes[i] = d.strides_bytes[order[i]];
    n.box[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(d.box[order[i]], d.dims[order[i]]));
  }
  return n;
}

std::uint64_t tensor_end(const simfa_tensormap_desc& d) {
  std::uint64_t end = d.base + d.elem_bytes;
  for (std::uint32_t i = 0; i < d.rank && i < SIMFA_EVLOG_MAX_RANK; ++i)
    end += (d.dims[i] - 1) * (i == 0 ? std::uint64_t(d.elem_bytes) : d.strides_bytes[i]);
  return end;
}

namespace {

const char* const kMapNames[4] = {"Q", "K", "V", "O"};

simfa_tensormap_desc need_map(const instr::EventLog& log, std::uint32_t id, workload::Impl impl) {
  const auto* m = log.tensormap(id);
  if (!m && impl == workload::Impl::SimfaAttn)
    user_error("{}: no TensorMap with id {} ({}): a log of the simfa-attn kernel records its Q, K and V "
               "TensorMaps (ids 0..2, EvlogHost::add_tensormap)",
               log.source, id, kMapNames[id]);
  if (!m)
    user_error("{}: no TensorMap with id {} ({}): an FA3 log records the Q, K, V and O TensorMaps "
               "(ids 0..3, EvlogHost::add_tensormap){}",
               log.source, id, kMapNames[id],
               id == SIMFA_TMAP_O && log.tensormap(SIMFA_TMAP_Q) && log.tensormap(SIMFA_TMAP_K)
                   ? "; simfa's own kernel (gpu/attn) stores O without one: translate its logs with --kernel "
                     "simfa-attn"
                   : "");
  return normalized(*m);
}

bool same_geometry(const trace::TensorMap& a, const trace::TensorMap& b) {
  return a.rank == b.rank && a.dims == b.dims && a.strides == b.strides && a.box == b.box && a.esz == b.esz;
}

void set_if_default(Config& cfg, const char* key, std::int64_t value, const std::string& origin) {
  if (cfg.origin(key) == "default") cfg.set(key, std::to_string(value), origin);
}

}  // namespace

workload::Fa3Kernel fa3_kernel_from_log(const instr::EventLog& log, const Config& cfg_in, int num_sms,
                                        const TranslateOptions& opt) {
  const workload::Impl impl = workload::kernel_variants().get(cfg_in.s("fa3.kernel")).make;
  if (impl == workload::Impl::CuTile)
    user_error("fa3.kernel = cutile ({}): a log translates FA3's or simfa-attn's kernel; cuTile's is modelled by the "
               "analytic model only (simfa analyze)",
               cfg_in.origin("fa3.kernel"));
  const bool own = impl == workload::Impl::SimfaAttn;
  const auto q = need_map(log, SIMFA_TMAP_Q, impl);
  const auto kk = need_map(log, SIMFA_TMAP_K, impl);
  need_map(log, SIMFA_TMAP_V, impl);
  if (own && log.tensormap(SIMFA_TMAP_O))
    user_error("{}: the log has an O TensorMap (id 3), but the simfa-attn kernel stores O from registers "
               "and records none: an FA3 log? (translate it with --kernel fa3)",
               log.source);
  if (!own) need_map(log, SIMFA_TMAP_O, impl);

  spec::AttentionShape s;
  if (kk.rank != 4)
    user_error("{}: TensorMap 1 (K) has rank {}; FA3's K is [batch, seqlen, heads, dim] (rank 4)", log.source,
               kk.rank);
  const std::int64_t D = static_cast<std::int64_t>(kk.dims[0]), Hk = static_cast<std::int64_t>(kk.dims[1]);
  s.head_dim = D;
  s.heads_kv = Hk;
  s.seqlen_kv = static_cast<std::int64_t>(kk.dims[2]);
  s.batch = static_cast<std::int64_t>(kk.dims[3]);
  std::int64_t hq = 0;
  if (q.rank == 4) {
    hq = static_cast<std::int64_t>(q.dims[1]);
    s.seqlen_q = static_cast<std::int64_t>(q.dims[2]);
  } else if (q.rank == 5) {  // PackGQA view: [batch, seqlen, heads_kv, group, dim]
    hq = static_cast<std::int64_t>(q.dims[1] * q.dims[2]);
    s.seqlen_q = static_cast<std::int64_t>(q.dims[3]);
  } else {
    user_error("{}: TensorMap 0 (Q) has rank {}; FA3's Q is rank 4 (rank 5 with PackGQA)", log.source, q.rank);
  }
  if (static_cast<std::int64_t>(q.dims[0]) != D || static_cast<std::int64_t>(q.dims[q.rank - 1]) != s.batch)
    user_error("{}: TensorMaps 0 (Q) and 1 (K) disagree on the head dimension or the batch", log.source);
  if (Hk == 0 || hq % Hk != 0)
    user_error("{}: Q has {} heads, K has {}: the query heads must be a multiple of the KV heads", log.source,
               hq, Hk);
  s.group = hq / Hk;
  if (kk.elem_bytes == 1) {
    s.dtype = spec::DType::FP8_E4M3;
  } else if (kk.elem_bytes == 2) {
    s.dtype = opt.dtype16;
  } else {
    user_error("{}: TensorMap 1 (K) has {}-byte elements; FA3 runs FP16, BF16 or FP8", log.source,
               kk.elem_bytes);
  }
  s.causal = opt.causal;

  // Launch shape from the header.
  const std::uint64_t blocks = log.num_blocks();
  const std::uint32_t wgs = (log.warps_per_block() + 3) / 4;
  if (wgs < 2 || wgs > 5)
    user_error("{}: {} warps per block = {} WarpGroups; an FA3 CTA has one producer and 1-4 consumer "
               "WarpGroups",
               log.source, log.warps_per_block(), wgs);
  Config cfg = cfg_in;
  const std::string origin = "log " + log.source;
  set_if_default(cfg, "fa3.tile_m", 64 * (wgs - 1), origin);
  set_if_default(cfg, "fa3.grid", static_cast<std::int64_t>(blocks), origin);
  workload::Fa3Kernel k = workload::resolve_fa3(s, cfg, num_sms);
  // kBlockN from the K box (tile_n / cluster rows, unless the whole sequence is shorter).
  const auto box_rows = static_cast<std::int64_t>(kk.box[2]);
  const std::int64_t tile_n = box_rows * k.cluster;
  if (cfg.origin("fa3.tile_n") == "default" && box_rows < s.seqlen_kv && tile_n != k.tile_n && tile_n <= 256 &&
      tile_n % 16 == 0) {  // otherwise the TensorMap check below explains the mismatch
    cfg.set("fa3.tile_n", std::to_string(tile_n), origin);
    k = workload::resolve_fa3(s, cfg, num_sms);
  }

  if (k.grid != blocks)
    user_error("{}: the log has {} CTAs but the FA3 kernel's grid is {} (fa3.grid = {}, cluster {})", log.source,
               blocks, k.grid, cfg.i("fa3.grid"), k.cluster);
  if (static_cast<std::uint32_t>(k.consumer_wgs) + 1 != wgs)
    user_error("{}: the log has {} WarpGroups per CTA, the FA3 kernel {} (fa3.tile_m = {})", log.source, wgs,
               k.consumer_wgs + 1, k.tile_m);

  // The log's TensorMaps must be the kernel's (simfa-attn's O and LSE stores have none).
  const workload::Fa3Emitter em(k);
  for (std::uint32_t id = 0; id < (own ? 3u : 4u); ++id) {
    const trace::TensorMap logged = to_trace_map(normalized(*log.tensormap(id)));
    const trace::TensorMap& want = em.kernel_info().tmap(static_cast<std::uint16_t>(id));
    if (!same_geometry(logged, want))
      user_error("{}: TensorMap {} ({}) of the log does not match the FA3 kernel {} ({}x{} tiles, cluster {}): "
                 "log '{}', kernel '{}'; set the kernel's keys with --set (fa3.tile_n, fa3.cluster, "
                 "fa3.pack_gqa, fa3.tma_per_tile, fa3.recipe) or --kernel / --causal / --dtype",
                 log.source, id, kMapNames[id], k.name(), k.tile_m, k.tile_n, k.cluster, trace::format(logged),
                 trace::format(want));
  }
  return k;
}

}  // namespace simfa::translate
