// The table of the model's output fields (see fields.h).
#include "model/fields.h"

#include <array>
#include <cmath>

namespace simfa::model {
namespace {

#define NUM(field, unit, doc) \
  ResultField { #field, unit, doc, false, [](const Result& r) { return double(r.field); }, nullptr }
#define TXT(field, unit, doc, fn)                                                        \
  ResultField {                                                                        \
    #field, unit, doc, true, nullptr, [](const Result& r) { return fn(r.field); } \
  }

const std::array kFields = {
    NUM(tile_m, "rows", "T_M: query rows per CTA tile"),
    NUM(tile_n, "rows", "T_N: KV rows per mainloop block"),
    NUM(occupancy, "CTAs/SM", "O_limit: resident CTAs per SM"),
    NUM(num_sms, "SMs", "N_SM"),
    NUM(num_splits, "", "split-KV pieces per tile (1: no split)"),
    NUM(pack_gqa, "", "1 when the G query heads of a KV head share Q tiles (PackGQA)"),
    NUM(cluster, "CTAs", "FA3 cluster size (2: K/V multicast to a CTA pair)"),
    NUM(l2_effective_bytes, "bytes", "L2 capacity of the ideal-cache condition (Eq. 4)"),
    NUM(ctas, "CTAs", "thread blocks of the attention kernel"),
    NUM(ctas_per_group, "CTAs", "CTAs that read the same K/V range"),
    NUM(flops, "FLOP", "tensor FLOPs of the processed tiles (Eq. 1 when non-causal)"),
    NUM(flops_useful, "FLOP", "FLOPs of the unmasked score elements"),
    NUM(l2_bytes, "bytes", "L2 demand of all CTAs (Eq. 2), with split-KV combine traffic"),
    NUM(l2_bytes_coalesced, "bytes", "L2 demand with FA3's cluster multicast of K/V"),
    NUM(dram_ideal_bytes, "bytes", "DRAM traffic with an ideal cache (Eq. 3)"),
    NUM(dram_real_bytes, "bytes", "DRAM traffic with K/V re-read per wave (Eq. 6)"),
    NUM(dram_bytes, "bytes", "DRAM traffic of the regime Eq. 4 selects"),
    NUM(combine_l2_bytes, "bytes", "split-KV partial O/LSE written and read back at L2"),
    NUM(combine_dram_bytes, "bytes", "split-KV partials spilled to DRAM"),
    NUM(kv_head_bytes, "bytes", "one KV head's K and V: 2·P·S·D (Eq. 4)"),
    NUM(waves, "", "W_grp: waves per KV group (Eq. 5)"),
    TXT(regime, "", "ideal (Eq. 3) or realistic (Eq. 6)", regime_name),
    NUM(r_traffic, "", "L2-to-DRAM traffic ratio (Eq. 7)"),
    NUM(intensity, "FLOP/byte", "FLOPs per byte of L2 traffic (Eq. 11)"),
    NUM(l2_bytes_asym, "bytes", "long-sequence form of the L2 demand (Eq. 8)"),
    NUM(dram_real_asym, "bytes", "long-sequence form of the realistic DRAM traffic (Eq. 9)"),
    NUM(r_traffic_asym, "", "long-sequence traffic ratio N_SM·O_limit (Eq. 10)"),
    NUM(intensity_asym, "FLOP/byte", "long-sequence intensity 2·T_M/P (Eq. 12)"),
    NUM(compute_us, "us", "tensor time at peak throughput"),
    NUM(l2_us, "us", "L2 traffic (coalesced) over the L2 bandwidth"),
    NUM(dram_us, "us", "DRAM traffic over the DRAM bandwidth"),
    NUM(latency_us, "us", "latency estimate: the largest of the three times"),
    TXT(bound, "", "which time sets the latency: compute, l2 or dram", bound_name),
    NUM(genz_dram_bytes, "bytes", "GenZ baseline: ideal-cache DRAM traffic (Eq. 3)"),
    NUM(genz_latency_us, "us", "GenZ baseline latency: max(compute, ideal DRAM time)"),
    NUM(llmviewer_dram_bytes, "bytes", "LLM-Viewer baseline: L2 demand charged to DRAM"),
    NUM(llmviewer_latency_us, "us", "LLM-Viewer baseline latency: max(compute, L2 demand / DRAM bandwidth)"),
};

#undef NUM
#undef TXT

}  // namespace

std::span<const ResultField> result_fields() { return kFields; }

const ResultField* find_result_field(std::string_view name) {
  for (const auto& f : kFields)
    if (name == f.name) return &f;
  return nullptr;
}

nlohmann::ordered_json point_json(const spec::AttentionShape& s, const ModelOptions& opt, const Result& r) {
  nlohmann::ordered_json j = spec::shape_json(s);
  j["kernel"] = model::kernel_name(opt.kernel);
  for (const auto& fd : model::result_fields()) {
    if (fd.text) {
      j[fd.name] = std::string(fd.text_of(r));
    } else {
      // Counts (bytes, FLOPs, CTAs, tiles) are exact integers: print them as such.
      const double v = fd.number(r);
      if (v == std::floor(v) && std::fabs(v) < 9.0e15)
        j[fd.name] = std::int64_t(v);
      else
        j[fd.name] = v;
    }
  }
  return j;
}

}  // namespace simfa::model
