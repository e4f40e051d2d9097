// The list of memory models (mem.model): one line per variant file; make_memory_system picks one.
#include "mem/memory_model.h"

#include "sim/config.h"

namespace simfa::mem {

extern const MemoryModelVariant fixed_memory_model;      // fixed.cpp
extern const MemoryModelVariant hierarchy_memory_model;  // hierarchy.cpp

const VariantList<MemoryModelMake>& memory_models() {
  static const VariantList<MemoryModelMake> list("mem.model", "memory model",
                                                 {&fixed_memory_model, &hierarchy_memory_model});
  return list;
}

std::unique_ptr<MemorySystem> make_memory_system(const Config& cfg, Engine& engine, int num_sms) {
  return memory_models().get(cfg.s("mem.model")).make(cfg, engine, num_sms);
}

}  // namespace simfa::mem
