// derive_latencies: halves each round trip between its two directions (any odd cycle goes to the
// response), rounds the measured figures to whole cycles, and puts what a miss costs beyond the
// DRAM access on the L2-DRAM link.
#include "mem/latencies.h"

#include <cmath>

#include "sim/error.h"

namespace simfa::mem {

LinkLatencies derive_latencies(const L2Params& p, Cycle dram_unloaded) {
  const auto nh = static_cast<Cycle>(std::llround(p.near_hit_latency));
  const auto fh = static_cast<Cycle>(std::llround(p.far_hit_latency));
  const auto nm = static_cast<Cycle>(std::llround(p.near_miss_latency));
  const auto fm = static_cast<Cycle>(std::llround(p.far_miss_latency));
  const Cycle lk = p.lookup_latency;
  if (nh < lk + 2)
    user_error("mem.l2.near_hit_latency = {} must exceed mem.l2.lookup_latency = {} by 2", nh, lk);
  if (fh < nh + lk + 2)
    user_error("mem.l2.far_hit_latency = {} must exceed mem.l2.near_hit_latency + "
               "mem.l2.lookup_latency = {} by 2 (a far hit probes the near slice first)", fh, nh + lk);
  LinkLatencies l;
  l.req_near = (nh - lk) / 2;
  l.resp_near = nh - lk - l.req_near;
  const Cycle cross_total = fh - nh - lk;  // cross + extra response delay from the far partition
  l.cross = cross_total / 2;
  l.resp_far = l.resp_near + (cross_total - l.cross);
  l.req_far = l.req_near + lk + l.cross;
  const Cycle near_miss_base = l.req_near + dram_unloaded + l.resp_near;
  // A DRAM a few cycles slower than the measured miss leaves no link delay (misses come out that
  // much slower); far slower is a configuration error.
  if (nm * 11 < near_miss_base * 10)
    user_error("mem.l2.near_miss_latency = {} is far below the L2 path plus the DRAM's unloaded "
               "read latency ({} cycles): lower dram.ctrl_latency", nm, near_miss_base);
  l.dram_link = nm > near_miss_base ? nm - near_miss_base : 0;
  l.miss_excess = nm > near_miss_base ? 0 : near_miss_base - nm;
  const Cycle far_miss_base = l.req_far + dram_unloaded + l.dram_link + l.resp_far;
  if (fm + l.miss_excess < far_miss_base)
    user_error("mem.l2.far_miss_latency = {} is below the far path plus the DRAM access ({} "
               "cycles)", fm, far_miss_base);
  l.far_miss_extra = fm + l.miss_excess - far_miss_base;
  return l;
}

}  // namespace simfa::mem
