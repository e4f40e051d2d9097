// Configuration keys of the FA3 workload (fa3.*) and the SM unit throughputs its bubble model uses.
#pragma once

namespace simfa {
class ParamRegistry;
}

namespace simfa::workload {

// Registers every fa3.* key, plus sm.fp32_ops_per_cycle, sm.fp16_ops_per_cycle,
// sm.mufu_ops_per_cycle and sm.smem_bytes_per_cycle (GPU properties that belong in
// core/params.cpp; kept here until the core registers them, see docs/fa3-workload.md).
void register_workload_params(ParamRegistry& r);

}  // namespace simfa::workload
