// Reads the hierarchy's parameters from the configuration and checks that they fit together; the
// "hierarchy" memory model (mem.model) builds the hierarchy from them.
#include "mem/hierarchy_params.h"

#include <fmt/format.h>

#include "mem/dram/dram.h"
#include "mem/dram_probe.h"
#include "mem/hierarchy.h"
#include "mem/memory_model.h"
#include "mem/tag_array.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/host.h"

namespace simfa::mem {

HierarchyParams hierarchy_params_from(const Config& c) {
  HierarchyParams p;
  auto u32 = [&](const char* k) { return static_cast<std::uint32_t>(c.u(k)); };
  p.line_bytes = u32("mem.line_bytes");
  p.l1.enabled = c.b("mem.l1.enabled");
  p.l1.size = c.u("mem.l1.size");
  p.l1.assoc = u32("mem.l1.assoc");
  p.l1.replacement = c.s("mem.l1.replacement");
  p.l1.hit_latency = c.u("mem.l1.hit_latency");
  p.l1.miss_latency = c.u("mem.l1.miss_latency");
  p.lrc.enabled = c.b("mem.lrc.enabled");
  p.lrc.window = c.u("mem.lrc.window");
  p.lrc.entries = u32("mem.lrc.entries");
  p.xbar.sm_bytes_per_cycle = c.f("mem.xbar.sm_bytes_per_cycle");
  p.xbar.header_bytes = u32("mem.xbar.header_bytes");
  p.xbar.sm_queue = u32("mem.xbar.sm_queue");
  p.xbar.slice_buffer = u32("mem.xbar.slice_buffer");
  p.l2.size = c.u("mem.l2.size");
  p.l2.slices = u32("mem.l2.slices");
  p.l2.partitions = u32("mem.l2.partitions");
  p.l2.assoc = u32("mem.l2.assoc");
  p.l2.replacement = c.s("mem.l2.replacement");
  p.l2.hash = c.s("mem.l2.hash");
  p.l2.req_queue = u32("mem.l2.req_queue");
  p.l2.resp_queue = u32("mem.l2.resp_queue");
  p.l2.mshrs = u32("mem.l2.mshrs");
  p.l2.lookups_per_cycle = u32("mem.l2.lookups_per_cycle");
  p.l2.bytes_per_cycle = c.f("mem.l2.bytes_per_cycle");
  p.l2.lookup_latency = c.u("mem.l2.lookup_latency");
  p.l2.near_hit_latency = c.f("mem.l2.near_hit_latency");
  p.l2.far_hit_latency = c.f("mem.l2.far_hit_latency");
  p.l2.near_miss_latency = c.f("mem.l2.near_miss_latency");
  p.l2.far_miss_latency = c.f("mem.l2.far_miss_latency");
  p.l2.remote_copy = c.b("mem.l2.remote_copy.enabled");
  p.l2.rc_max_probability = c.f("mem.l2.remote_copy.max_probability");
  p.l2.rc_occupancy_threshold = c.f("mem.l2.remote_copy.occupancy_threshold");
  p.l2.seed = c.u("mem.seed");
  validate(p);
  return p;
}

void validate(const HierarchyParams& p) {
  if (p.line_bytes % 32 != 0 || p.line_bytes / 32 > 8)
    user_error("mem.line_bytes = {}: the hierarchy needs 32-byte sectors, at most 8 per line",
               p.line_bytes);
  if (p.l2.partitions > p.l2.slices)
    user_error("mem.l2.partitions = {} exceeds mem.l2.slices = {}", p.l2.partitions, p.l2.slices);
  if (p.l2.slices > 0xFFFF) user_error("mem.l2.slices = {}: at most 65535", p.l2.slices);
  const std::uint64_t slice_lines = p.l2.size / p.l2.slices / p.line_bytes;
  if (slice_lines < p.l2.assoc)
    user_error("mem.l2.size = {} bytes over {} slices holds less than one set of {} ways per slice",
               p.l2.size, p.l2.slices, p.l2.assoc);
  if (p.l2.mshrs >= 0xFFFF) user_error("mem.l2.mshrs = {}: at most 65534", p.l2.mshrs);
  if (p.l1.enabled && p.l1.size / p.line_bytes < p.l1.assoc)
    user_error("mem.l1.size = {} bytes holds less than one set of {} ways", p.l1.size, p.l1.assoc);
}

extern const MemoryModelVariant hierarchy_memory_model;
constinit const MemoryModelVariant hierarchy_memory_model{
    "hierarchy", "L1, L2 request coalescer, crossbar, hashed L2 slices with MSHRs, HBM (docs/memory.md)",
    [](const Config& cfg, Engine& engine, int num_sms) -> std::unique_ptr<MemorySystem> {
      HierarchyParams p = hierarchy_params_from(cfg);
      // The caches' tags dominate the host memory of the memory system: check before allocating.
      const std::uint64_t l1_sets = p.l1.size / p.line_bytes / p.l1.assoc;
      const std::uint64_t l2_sets = p.l2.size / p.l2.slices / p.line_bytes / p.l2.assoc;
      const std::uint64_t bytes = (p.l1.enabled ? num_sms * TagArray::host_bytes(l1_sets, p.l1.assoc) : 0) +
                                  p.l2.slices * TagArray::host_bytes(l2_sets, p.l2.assoc);
      check_host_memory(bytes, fmt::format("the caches of {} SMs (mem.l1.size = {}, gpu.num_sms = {}) and the L2 "
                                           "(mem.l2.size = {})",
                                           num_sms, cfg.render("mem.l1.size"), num_sms, cfg.render("mem.l2.size")));
      p.dram_reference_latency = mean_random_read_latency(cfg);
      return std::make_unique<Hierarchy>(
          p, engine, num_sms, [&cfg, &engine](DramClient* c) { return make_dram(cfg, engine, c); });
    }};

}  // namespace simfa::mem
