// Configuration keys of the analytic model (model.*). The GPU facts it reads (SMs, clock, L2,
// DRAM, tensor throughput) are the core and memory keys that the GPU presets set.
#include "model/gpu_spec.h"
#include "sim/config.h"

namespace simfa::model {

void register_model_params(ParamRegistry& r) {
  using T = ParamType;
  r.add({"model.l2_effective", T::Size, "0", "bytes",
         "L2 capacity of the analytic model's ideal-cache condition (Eq. 4); 0: the nominal L2 "
         "divided by its partitions",
         "paper §6.2.2: 25 MB, half of H800's partitioned 50 MB", 0, 1e15, {}});
  r.add({"model.occupancy", T::Int, "0", "CTAs",
         "O_limit of the analytic model: resident CTAs per SM (N_conc = N_SM x O_limit); 0: the kernel's (FA3, "
         "simfa-attn and cuTile: 1)",
         "fa3-kernel.md §0: launch bounds (threads, 1) and more than 160 KiB of shared memory", 0, 1024});
  r.add({"model.l2_bytes_per_cycle", T::Float, "3942", "bytes/cycle",
         "whole-GPU L2 throughput the analytic model's latency estimate divides L2 traffic by",
         "Luo et al. IPDPS'24 Table V: 3942 B/cycle with FP32.v4 loads (hardware.md)", 1e-3, 1e9, {}});
  r.add({"model.dram_bandwidth", T::Bandwidth, "0", "B/s",
         "DRAM bandwidth of the analytic model; 0: the peak of the dram.* configuration "
         "(channels x pseudo-channels x bus width x data rate)",
         "H800: 80 x 2 x 32 bit x 5200 MT/s = 3.33 TB/s (hardware.md: 3.35 TB/s)", 0, 1e16, {}});
}

}  // namespace simfa::model
