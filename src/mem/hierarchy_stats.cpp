// Statistics of the memory hierarchy: per-slice counters, totals as formulas over the slices
// (evaluated only at output), and the Nsight Compute names (lts__*) an `ncu` report can be diffed
// against. The DRAM registers its own, including dram__bytes_read.sum and dram__bytes_write.sum.
#include <algorithm>

#include <fmt/format.h>

#include "mem/hierarchy.h"
#include "sim/stats.h"

namespace simfa::mem {

void Hierarchy::register_stats(Stats& s) {
  auto sum = [this](std::uint64_t SliceCounters::*f) {
    return [this, f] { return static_cast<double>(total(f)); };
  };
  s.counter("gpu.mem.requests", &accepted_, "requests", "line requests accepted from the SMs");
  s.counter("gpu.mem.responses", &responses_, "requests", "responses delivered to the SMs");
  s.counter("gpu.mem.refusals_credit", &refusals_credit_, "requests",
            "requests refused because the target slice's queue and crossbar buffer were full");
  s.counter("gpu.mem.refusals_port", &refusals_port_, "requests",
            "requests refused because the SM's injection queue was full");
  if (l1_) {
    s.counter("gpu.l1.hits", &l1_->hits, "requests", "ordinary loads served by the L1");
    s.counter("gpu.l1.misses", &l1_->misses, "requests", "ordinary loads that missed the L1");
  }
  s.counter("gpu.lrc.reads", &lrc_reads_, "requests", "reads that reached the coalescers");
  s.counter("gpu.lrc.merges", lrc_.merges_counter(), "requests",
            "reads merged into a request of the same SM pair already in flight");
  s.formula("gpu.l2.read_misses", sum(&SliceCounters::read_misses), "requests",
            "reads that needed DRAM data (new MSHR entries and merges)");
  s.formula("gpu.l2.mshr_merges", sum(&SliceCounters::mshr_merges), "requests",
            "misses merged into an MSHR entry already fetching the line");
  s.formula("gpu.l2.probes", sum(&SliceCounters::probes), "requests",
            "far-homed reads that probed the near mirror slice (RemoteCopy)");
  s.formula("gpu.l2.shadow_hits", sum(&SliceCounters::shadow_hits), "requests",
            "probes served by a shadow line");
  s.formula("gpu.l2.shadow_inserts", sum(&SliceCounters::shadow_inserts), "lines",
            "shadow lines inserted by the RemoteCopy proxy");
  s.formula("gpu.l2.evictions", sum(&SliceCounters::evictions), "lines", "valid lines evicted");
  s.formula("gpu.l2.writebacks", sum(&SliceCounters::writebacks), "lines",
            "dirty lines written back to DRAM");
  s.formula("gpu.l2.dirty_bytes", [this] { return dirty_bytes(); }, "bytes",
            "dirty data the L2 holds at the end: written and never written back to DRAM (DRAM write "
            "bytes plus this are the bytes written, each line once per write-back); a sampled run's "
            "from its counted sets, scaled as its DRAM bytes");
  s.counter("gpu.l2.dram_refusals", &dram_refusals_, "requests",
            "DRAM requests that waited: their channel's queue was full, or earlier requests to that channel were waiting");
  s.formula("gpu.l2.mshr_peak", [this] {
    std::uint64_t m = 0;
    for (const auto& sl : slices_) m = std::max(m, sl->counters().mshr_peak);
    return static_cast<double>(m);
  }, "entries", "largest MSHR occupancy of any slice (fetches; not the write-backs waiting for DRAM room)");
  s.formula("gpu.l2.mshr_occupancy_avg", [this] {
    const Cycle now = engine_.now();
    if (now == 0) return 0.0;
    double a = 0;
    for (const auto& sl : slices_) a += static_cast<double>(sl->mshr_area(now));
    return a / (static_cast<double>(now) * static_cast<double>(slices_.size()));
  }, "entries", "time-averaged MSHR occupancy per slice (fetches; not the write-backs waiting for DRAM room)");
  s.formula("gpu.l2.mshr_stall_cycles", [this] {
    double c = 0;
    for (const auto& sl : slices_) c += static_cast<double>(sl->mshr_stall_cycles(engine_.now()));
    return c;
  }, "slice-cycles", "cycles slices spent stalled on a full MSHR pool (fetches and write-backs waiting for DRAM room; summed over slices)");
  s.formula("gpu.l2.resp_stall_cycles", [this] {
    double c = 0;
    for (const auto& sl : slices_) c += static_cast<double>(sl->resp_stall_cycles(engine_.now()));
    return c;
  }, "slice-cycles", "cycles slices spent stalled on a full response queue (summed over slices)");
  // Nsight Compute names.
  s.formula("lts__t_requests.sum", sum(&SliceCounters::requests), "requests",
            "L2 requests (first lookup of each request after coalescing)");
  s.formula("lts__t_sectors.sum", sum(&SliceCounters::sectors), "sectors",
            "L2 sectors requested");
  s.formula("lts__t_bytes.sum", [this] { return 32.0 * static_cast<double>(total(&SliceCounters::sectors)); },
            "bytes", "L2 bytes requested (sectors x 32)");
  s.formula("lts__t_sectors_lookup_hit.sum", sum(&SliceCounters::hit_sectors), "sectors",
            "L2 sectors served without DRAM");
  s.formula("lts__t_sector_hit_rate.pct", [this] {
    const auto all = total(&SliceCounters::sectors);
    return all ? 100.0 * static_cast<double>(total(&SliceCounters::hit_sectors)) / static_cast<double>(all) : 0.0;
  }, "%", "L2 sector hit rate");
  for (std::uint32_t i = 0; i < slices_.size(); ++i)
    slices_[i]->register_stats(s, fmt::format("gpu.l2.slice[{}]", i));
  dram_->register_stats(s);
}

}  // namespace simfa::mem
