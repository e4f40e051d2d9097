// Host side of the SM clock probe: the effective SM clock (MHz) measured over a short spin.
#pragma once

#include "host_util.h"
#include "ptx.cuh"

namespace simfa_gpu {

// Runs clock_probe_kernel for `ms` milliseconds and returns cycles per microsecond. Call it right
// after the measured work so it sees the same (boost / locked) clock.
inline double measure_sm_clock_mhz(double ms = 20.0) {
  unsigned long long* d = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&d, 2 * sizeof(unsigned long long)));
  clock_probe_kernel<<<1, 1>>>(static_cast<uint64_t>(ms * 1e6), d);
  SIMFA_CUDA_CHECK(cudaGetLastError());
  unsigned long long h[2] = {0, 0};
  SIMFA_CUDA_CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  SIMFA_CUDA_CHECK(cudaFree(d));
  return h[1] ? 1e3 * static_cast<double>(h[0]) / static_cast<double>(h[1]) : 0.0;
}

}  // namespace simfa_gpu
