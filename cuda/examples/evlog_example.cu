// Tiny warp-specialised kernel showing where the simfa logger's call sites go (a mock of the FA3
// mainloop: warp group 0 "loads" K/V tiles through a shared-memory ring, warp groups 1 and 2
// "multiply"). Built by cmake/cuda.cmake with and without -DSIMFA_EVLOG_ENABLED; the disabled
// build must contain no logger code. Runs on any sm_90 GPU: ./evlog_example out.evlog
#include <cstdio>
#include <exception>

#include "simfa/evlog.cuh"
#include "simfa/evlog_host.h"

namespace {

constexpr int kStages = 2;
constexpr int kTile = 128;  // floats per tile
constexpr int kWarpGroup = 128;

// Plain shared-memory ring instead of TMA + mbarriers so the example needs no Hopper-only PTX;
// the event call sites are where the real kernel's cp.async.bulk / try_wait / wgmma would be.
__global__ void mock_fa3(const float* k, const float* v, float* out, int n_tiles,
                         SimfaEvlogDev evlog) {
  __shared__ float ring_k[kStages][kTile];
  __shared__ float ring_v[kStages][kTile];
  const int wg = threadIdx.x / kWarpGroup;
  const int t = threadIdx.x % kWarpGroup;
  float acc = 0.f;
  SIMFA_EVLOG(evlog, SIMFA_EV_TILE_START, 0, blockIdx.x);
  if (wg == 0) SIMFA_EVLOG(evlog, SIMFA_EV_TMA_Q_ISSUE, 0, blockIdx.x);
  for (int j = 0; j < n_tiles; ++j) {
    const int s = j % kStages;
    if (wg == 0) {  // producer
      SIMFA_EVLOG(evlog, SIMFA_EV_TMA_K_ISSUE, s, j);
      ring_k[s][t] = k[j * kTile + t];
      SIMFA_EVLOG(evlog, SIMFA_EV_TMA_V_ISSUE, s, j);
      ring_v[s][t] = v[j * kTile + t];
    }
    __syncthreads();  // stands in for the K and V mbarriers
    if (wg != 0) {    // consumers
      SIMFA_EVLOG(evlog, SIMFA_EV_WAIT_K_START, s, j);
      SIMFA_EVLOG(evlog, SIMFA_EV_GEMM_QK_ISSUE, s, j);
      float sc = ring_k[s][t] * (wg == 1 ? 1.f : -1.f);
      SIMFA_EVLOG(evlog, SIMFA_EV_WAIT_WG_1, s, j);
      sc = __expf(sc);
      SIMFA_EVLOG(evlog, SIMFA_EV_WAIT_V_START, s, j);
      SIMFA_EVLOG(evlog, SIMFA_EV_GEMM_PV_ISSUE, s, j);
      acc += sc * ring_v[s][t];
      SIMFA_EVLOG(evlog, SIMFA_EV_WAIT_WG_0, s, j);
    }
    __syncthreads();  // stands in for the stage-release mbarriers
  }
  if (wg != 0) {
    SIMFA_EVLOG(evlog, SIMFA_EV_EPILOGUE_START, 0, blockIdx.x);
    out[(blockIdx.x * 2 + (wg - 1)) * kWarpGroup + t] = acc;
    SIMFA_EVLOG(evlog, SIMFA_EV_EPILOGUE_END, 0, blockIdx.x);
  }
  SIMFA_EVLOG(evlog, SIMFA_EV_USER_BASE + 1, 0, 0);  // a user-defined event
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "evlog_example.evlog";
  const int n_tiles = 8, n_blocks = 4;
  const dim3 grid(n_blocks), block(3 * kWarpGroup);
  try {
    float *k = nullptr, *v = nullptr, *out = nullptr;
    if (cudaMalloc(&k, n_tiles * kTile * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&v, n_tiles * kTile * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&out, n_blocks * 2 * kWarpGroup * sizeof(float)) != cudaSuccess) {
      std::fprintf(stderr, "evlog_example: cudaMalloc failed (no GPU?)\n");
      return 1;
    }
    cudaMemset(k, 0, n_tiles * kTile * sizeof(float));
    cudaMemset(v, 0, n_tiles * kTile * sizeof(float));
    simfa::EvlogHost log(grid, block, /*entries_per_warp=*/64, SIMFA_CLOCK_GLOBALTIMER_NS);
    mock_fa3<<<grid, block>>>(k, v, out, n_tiles, log.dev());
    if (cudaGetLastError() != cudaSuccess) {
      std::fprintf(stderr, "evlog_example: launch failed\n");
      return 1;
    }
    log.copy_back();
    log.write(path);
    std::printf("evlog_example: wrote %s\n", path);
    cudaFree(k);
    cudaFree(v);
    cudaFree(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "evlog_example: %s\n", e.what());
    return 1;
  }
  return 0;
}
