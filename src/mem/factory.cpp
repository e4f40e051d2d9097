// Chooses the memory system from the configuration.
#include <fmt/format.h>

#include "mem/fixed.h"
#include "mem/port.h"
#include "sim/config.h"
#include "sim/error.h"
#ifdef SIMFA_HAVE_HIERARCHY
#include "mem/dram_probe.h"
#include "mem/hierarchy.h"
#include "mem/tag_array.h"
#include "sim/host.h"
#endif

namespace simfa::mem {

std::unique_ptr<MemorySystem> make_memory_system(const Config& cfg, Engine& engine, int num_sms) {
  const std::string& model = cfg.s("mem.model");
  if (model == "fixed") {
    FixedMemoryParams p;
    p.latency = cfg.u("mem.fixed.latency");
    p.bytes_per_cycle = cfg.f("mem.fixed.bytes_per_cycle");
    p.queue = static_cast<std::uint32_t>(cfg.u("mem.fixed.queue"));
    p.line_bytes = static_cast<std::uint32_t>(cfg.u("mem.line_bytes"));
    return std::make_unique<FixedMemory>(p, engine, num_sms);
  }
#ifdef SIMFA_HAVE_HIERARCHY
  if (model == "hierarchy") {
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
        p, engine, num_sms,
        [&cfg, &engine](DramClient* c) { return make_dram(cfg, engine, c); });
  }
#endif
  throw UserError(fmt::format("mem.model = '{}' is not available in this build", model));
}

}  // namespace simfa::mem
