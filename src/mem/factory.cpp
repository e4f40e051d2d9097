// Chooses the memory system from the configuration.
#include <fmt/format.h>

#include "mem/fixed.h"
#include "mem/port.h"
#include "sim/config.h"
#include "sim/error.h"
#ifdef SIMFA_HAVE_HIERARCHY
#include "mem/dram_probe.h"
#include "mem/hierarchy.h"
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
    p.dram_reference_latency = mean_random_read_latency(cfg);
    return std::make_unique<Hierarchy>(
        p, engine, num_sms,
        [&cfg, &engine](DramClient* c) { return make_dram(cfg, engine, c); });
  }
#endif
  throw UserError(fmt::format("mem.model = '{}' is not available in this build", model));
}

}  // namespace simfa::mem
