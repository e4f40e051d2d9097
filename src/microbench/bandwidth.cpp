// TMA and DRAM bandwidth: each case simulates a prefix of the reference kernel's walk (at least
// `sim_bytes` and `min_copies_per_block` copies per block). An observer collects every copy's
// completion time; the throughput is taken over the middle three quarters of the completions, so
// the start-up ramp and the tail of the shortened walk do not bias it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "api/run.h"
#include "core/observer.h"
#include "mem/dram/params.h"
#include "microbench/microbench.h"
#include "sim/error.h"

namespace simfa::microbench {
namespace {

class Completions final : public core::Observer {
 public:
  bool wants(std::uint16_t) const override { return true; }
  void span(const core::Span& s) override {
    if (s.kind == core::SpanKind::TmaLoad) ends.push_back(s.end);
  }
  std::vector<Cycle> ends;
};

struct Measured {
  double bytes_per_cycle = 0;
  RunResult run;
  std::uint64_t copies = 0;
};

// Throughput over the middle three quarters of the completions of `copies` copies of `bytes`.
double middle_rate(std::vector<Cycle>& ends, std::uint64_t bytes, Cycle cycles) {
  std::sort(ends.begin(), ends.end());
  const std::size_t n = ends.size(), lo = n / 8, hi = n - 1 - n / 8;
  if (hi > lo && ends[hi] > ends[lo])
    return static_cast<double>((hi - lo) * bytes) / static_cast<double>(ends[hi] - ends[lo]);
  return static_cast<double>(n * bytes) / static_cast<double>(cycles);
}

Measured measure(const Config& cfg, const Options& o, const CopyShape& shape, std::uint32_t blocks) {
  const std::uint64_t bytes = shape.bytes();
  if (shape.tiles() == 0) user_error("the {} box does not fit the array once", shape.kind);
  // A prefix of the walk; beyond one pass (a small --array-mib) the walk wraps around.
  const std::uint64_t copies = std::max<std::uint64_t>(o.min_copies_per_block * blocks,
                                                       (o.sim_bytes + bytes - 1) / bytes);
  CopySource src(shape, blocks, copies);
  Completions obs;
  RunOptions ro;
  ro.skip_idle = o.skip_idle;
  ro.observer = &obs;
  Measured m;
  m.run = run_trace(src, cfg, ro);
  m.copies = copies;
  SIMFA_ASSERT(obs.ends.size() == copies, "microbench bandwidth", "{} completions of {} copies",
               obs.ends.size(), copies);
  m.bytes_per_cycle = middle_rate(obs.ends, bytes, m.run.cycles);
  return m;
}

}  // namespace

Result tma_bandwidth(const Config& cfg, const Options& o) {
  Result r;
  r.name = "tma-bandwidth";
  r.key_columns = {"copy_kind", "box_elems", "load_kib", "blocks"};
  r.value_column = "throughput_gbs";
  const double clock = cfg.f("gpu.clock");
  const int sms = static_cast<int>(cfg.i("gpu.num_sms"));
  r.info["gpu"] = cfg.s("gpu.name");
  r.info["sim_bytes_per_case"] = o.sim_bytes;
  r.info["array_bytes"] = o.array_bytes;
  const auto cases = o.cases.empty() ? default_bandwidth_cases(sms, o.array_bytes) : o.cases;
  for (const auto& c : cases) {
    const Measured m = measure(cfg, o, c.shape, c.blocks);
    const double gbs = m.bytes_per_cycle * clock / 1e9;
    Row row;
    row.keys = {c.shape.kind, c.shape.box_text(), fmt::format("{:.2f}", c.shape.load_kib()),
                std::to_string(c.blocks)};
    row.value = gbs;
    row.extra = {{"sim_copies", static_cast<double>(m.copies)},
                 {"dram_read_bytes", m.run.stat("gpu.dram.read_bytes")},
                 {"lts_bytes", m.run.stat("lts__t_bytes.sum")},
                 {"mshr_stall_cycles", m.run.stat("gpu.l2.mshr_stall_cycles")},
                 {"dram_row_hit_rate", m.run.stat("gpu.dram.row_hit_rate")},
                 {"dram_read_latency", m.run.stat("gpu.dram.avg_read_latency")},
                 {"sim_wall_s", m.run.sim_wall_s}};
    if (o.progress)
      o.progress(fmt::format("tma-bandwidth {} {} {:.2f} KiB x {} blocks: {:.1f} GB/s",
                             c.shape.kind, c.shape.box_text(), c.shape.load_kib(), c.blocks, gbs));
    r.rows.push_back(std::move(row));
  }
  return r;
}

Result kv_stream(const Config& cfg, const Options& o) {
  Result r;
  r.name = "kv-stream";
  r.key_columns = {"ctas"};
  r.value_column = "throughput_gbs";
  const double clock = cfg.f("gpu.clock");
  const auto sms = static_cast<std::uint32_t>(cfg.i("gpu.num_sms"));
  r.info["gpu"] = cfg.s("gpu.name");
  r.info["tiles_per_cta"] = o.kv_copies;
  KvStreamSource src(sms, o.kv_copies, o.kv_rows);
  Completions obs;
  RunOptions ro;
  ro.skip_idle = o.skip_idle;
  ro.observer = &obs;
  const RunResult run = run_trace(src, cfg, ro);
  const double bpc = middle_rate(obs.ends, KvStreamSource::kTileBytes, run.cycles);
  Row row;
  row.keys = {std::to_string(sms)};
  row.value = bpc * clock / 1e9;
  row.extra = {{"cycles", static_cast<double>(run.cycles)},
               {"lts_requests", run.stat("lts__t_requests.sum")},
               {"lrc_merges", run.stat("gpu.lrc.merges")},
               {"l2_hit_rate_pct", run.stat("lts__t_sector_hit_rate.pct")},
               {"sim_wall_s", run.sim_wall_s}};
  if (o.progress)
    o.progress(fmt::format("kv-stream {} CTAs: {:.1f} GB/s, {} cycles", sms, row.value, run.cycles));
  r.rows.push_back(std::move(row));
  return r;
}

Result dram_bandwidth(const Config& cfg, const Options& o) {
  Result r;
  r.name = "dram-bandwidth";
  r.key_columns = {"blocks"};
  r.value_column = "throughput_gbs";
  const double clock = cfg.f("gpu.clock");
  const auto sms = static_cast<std::uint32_t>(cfg.i("gpu.num_sms"));
  const double peak = mem::dram_params_from(cfg).peak_bytes_per_second();
  r.info["gpu"] = cfg.s("gpu.name");
  r.info["peak_gbs"] = peak / 1e9;
  const CopyShape shape = CopyShape::parse("bulk", "", 16, o.array_bytes);
  const std::uint32_t blocks = o.dram_blocks_per_sm * sms;
  const Measured m = measure(cfg, o, shape, blocks);
  const double bps = m.bytes_per_cycle * clock;
  Row row;
  row.keys = {std::to_string(blocks)};
  row.value = bps / 1e9;
  row.extra = {{"peak_gbs", peak / 1e9},
               {"fraction_pct", 100.0 * bps / peak},
               {"dram_row_hit_rate", m.run.stat("gpu.dram.row_hit_rate")},
               {"sim_wall_s", m.run.sim_wall_s}};
  r.info["fraction_pct"] = 100.0 * bps / peak;
  if (o.progress)
    o.progress(fmt::format("dram-bandwidth {} blocks: {:.1f} GB/s = {:.1f}% of {:.1f} GB/s",
                           blocks, bps / 1e9, 100.0 * bps / peak, peak / 1e9));
  r.rows.push_back(std::move(row));
  return r;
}

}  // namespace simfa::microbench
