// Assembles the parameter registry from every library's descriptors.
#include "api/run.h"
#include "core/params.h"
#include "mem/port.h"
#include "model/gpu_spec.h"
#include "workload/gemm/gemm_kernel.h"
#include "workload/params.h"

namespace simfa {

const ParamRegistry& param_registry() {
  static const ParamRegistry reg = [] {
    ParamRegistry r;
    core::register_core_params(r);
    mem::register_mem_params(r);
    workload::register_workload_params(r);
    workload::gemm::register_gemm_params(r);
    model::register_model_params(r);
    return r;
  }();
  return reg;
}

}  // namespace simfa
