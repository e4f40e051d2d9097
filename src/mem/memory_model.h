// The memory systems behind the SMs (mem.model). A variant concept: each model's file defines its
// variant (fixed.cpp: "fixed", hierarchy.cpp: "hierarchy"), listed in memory_model.cpp; the SMs see
// only the port (port.h), never which model answers.
#pragma once
#include <memory>

#include "mem/port.h"
#include "sim/variants.h"

namespace simfa::mem {

// Builds the model for `num_sms` SMs from the configuration (its own mem.* keys).
using MemoryModelMake = std::unique_ptr<MemorySystem> (*)(const Config& cfg, Engine& engine, int num_sms);
using MemoryModelVariant = Variant<MemoryModelMake>;
// Every model, for mem.model.
const VariantList<MemoryModelMake>& memory_models();

}  // namespace simfa::mem
