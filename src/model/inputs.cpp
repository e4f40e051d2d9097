// Resolution of user-stated inputs (flags, keywords, sweep values) into shape and options.
#include "model/inputs.h"

#include <cmath>

#include "sim/error.h"

namespace simfa::model {
namespace {

std::int64_t integer(const char* key, double v) {
  if (!std::isfinite(v) || v != std::floor(v))
    user_error("{} ({}): {} is not an integer", key, spec::flag_of(key), v);
  if (v < 1) user_error("{} ({}) must be at least 1, got {}", key, spec::flag_of(key), v);
  if (v > 9.0e15) user_error("{} ({}) is too large: {}", key, spec::flag_of(key), v);
  return std::int64_t(v);
}


}  // namespace

void resolve_point(const PointInputs& in, const PointContext& ctx, spec::AttentionShape& s,
                   ModelOptions& o) {
  s.batch = in.batch ? integer("batch", *in.batch) : 1;
  const std::int64_t seqlen = in.seqlen ? integer("seqlen", *in.seqlen) : 0;
  s.seqlen_q = in.seqlen_q ? integer("seqlen_q", *in.seqlen_q) : seqlen;
  if (seqlen && in.seqlen_q && s.seqlen_q != seqlen)
    user_error("seqlen (--seqlen) {} and seqlen_q (--seqlen-q) {} disagree: both give the query length L (use "
               "seqlen_kv, --seqlen-kv, for S)",
               seqlen, s.seqlen_q);
  s.seqlen_kv = in.seqlen_kv ? integer("seqlen_kv", *in.seqlen_kv) : seqlen;
  if (s.seqlen_q == 0 || s.seqlen_kv == 0)
    user_error("seqlen (--seqlen), or seqlen_q (--seqlen-q) and seqlen_kv (--seqlen-kv), is required");
  auto from_preset = [&](const char* key, const std::optional<double>& v, std::int64_t preset_value,
                         std::int64_t fallback) {
    if (v) return integer(key, *v);
    if (ctx.preset) return preset_value;
    if (fallback) return fallback;
    user_error("{} ({}) is required without a model preset (--model)", key, spec::flag_of(key));
  };
  const auto* p = ctx.preset;
  s.heads_kv = from_preset("heads_kv", in.heads_kv, p ? p->heads_kv : 0, 0);
  s.group = from_preset("group", in.group, p ? p->group : 0, 1);
  s.head_dim = from_preset("head_dim", in.head_dim, p ? p->head_dim : 0, 0);
  s.dtype = ctx.dtype;
  s.causal = in.causal;

  o = ctx.base;
  if (in.tile_m) o.tile_m = integer("tile_m", *in.tile_m);
  if (in.tile_n) o.tile_n = integer("tile_n", *in.tile_n);
  if (in.occupancy) o.occupancy = integer("occupancy", *in.occupancy);
  if (in.num_sms) o.num_sms = integer("num_sms", *in.num_sms);
  if (in.splits) o.num_splits = integer("splits", *in.splits);
  if (in.l2_effective_mib) {
    const double v = *in.l2_effective_mib;
    if (!(v > 0) || !std::isfinite(v))
      user_error("l2_effective_mib (--l2-effective-mib) must be a positive number of MiB, got {}",
                 v);
    o.l2_effective_bytes = v * 1024.0 * 1024.0;
  }
}

}  // namespace simfa::model
