// Configuration keys of the FA3 workload (fa3.*).
#pragma once

namespace simfa {
class ParamRegistry;
}

namespace simfa::workload {

// Registers every fa3.* key (the SM pipe rates the bubble model uses, sm.*_per_cycle, are the
// core's: core/params.cpp).
void register_workload_params(ParamRegistry& r);

}  // namespace simfa::workload
