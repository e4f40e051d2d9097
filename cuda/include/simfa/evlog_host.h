// simfa::EvlogHost: host side of the device logger (C++ + CUDA runtime; compile with nvcc or any
// host compiler that sees cuda_runtime.h and links cudart). Allocates one zeroed buffer per warp
// of the launch, hands the kernel a SimfaEvlogDev, copies the buffers back and writes the log
// file (layout in docs/instrumentation.md; encoder shared with the emulator in evlog_file.h).
//
// Usage:
//   simfa::EvlogHost log(grid, block, /*entries_per_warp=*/4096, SIMFA_CLOCK_GLOBALTIMER_NS);
//   log.add_tensormap(k_map_desc);           // every TensorMap the kernel uses (optional)
//   kernel<<<grid, block, smem>>>(..., log.dev());
//   log.copy_back();                         // synchronises with the device
//   log.write("run.evlog");
// Errors (CUDA failures, bad arguments, I/O) throw std::runtime_error naming the call.
#ifndef SIMFA_EVLOG_HOST_H
#define SIMFA_EVLOG_HOST_H

#include <cuda_runtime.h>
#include <stdint.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "simfa/evlog.cuh"
#include "simfa/evlog_file.h"

namespace simfa {

class EvlogHost {
 public:
  EvlogHost(dim3 grid, dim3 block, uint32_t entries_per_warp, uint32_t clock_kind) {
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
      throw std::runtime_error("simfa::EvlogHost: grid and block dimensions must be >= 1");
    if (clock_kind != SIMFA_CLOCK_GLOBALTIMER_NS && clock_kind != SIMFA_CLOCK_CLOCK64)
      throw std::runtime_error("simfa::EvlogHost: unknown clock kind " +
                               std::to_string(clock_kind));
    h_.grid[0] = grid.x, h_.grid[1] = grid.y, h_.grid[2] = grid.z;
    h_.block[0] = block.x, h_.block[1] = block.y, h_.block[2] = block.z;
    h_.warps_per_block = evlog::warps_for_threads(uint64_t{block.x} * block.y * block.z);
    h_.entries_per_warp = entries_per_warp;
    h_.clock_kind = clock_kind;
    h_.clock_rate_hz = clock_kind == SIMFA_CLOCK_GLOBALTIMER_NS ? 1000000000ull : query_sm_clock();
    const uint64_t warps = evlog::num_warps(h_);
    if (warps > 0xFFFFFFFFull)
      throw std::runtime_error("simfa::EvlogHost: more than 2^32 warps in the launch");
    n_entries_ = warps * entries_per_warp;
    try {  // a throwing constructor runs no destructor: free what was allocated
      check(cudaMalloc(&dev_.entries, (n_entries_ ? n_entries_ : 1) * sizeof(simfa_evlog_entry)),
            "cudaMalloc(entries: " + std::to_string(n_entries_) + " x 16 bytes)");
      check(cudaMalloc(&dev_.counts, warps * sizeof(uint32_t)), "cudaMalloc(counts)");
      check(cudaMalloc(&dev_.overflow, warps * sizeof(uint32_t)), "cudaMalloc(overflow)");
      check(cudaMemset(dev_.counts, 0, warps * sizeof(uint32_t)), "cudaMemset(counts)");
      check(cudaMemset(dev_.overflow, 0, warps * sizeof(uint32_t)), "cudaMemset(overflow)");
    } catch (...) {
      release();
      throw;
    }
    dev_.entries_per_warp = entries_per_warp;
    dev_.warps_per_block = h_.warps_per_block;
    dev_.clock_kind = clock_kind;
  }
  ~EvlogHost() { release(); }
  EvlogHost(const EvlogHost&) = delete;
  EvlogHost& operator=(const EvlogHost&) = delete;

  // Kernel argument; valid while this object lives.
  SimfaEvlogDev dev() const { return dev_; }

  // Records a TensorMap the kernel uses; written into the log header. Ids must be unique.
  void add_tensormap(const TensorMapDesc& t) {
    if (t.rank < 1 || t.rank > SIMFA_EVLOG_MAX_RANK)
      throw std::runtime_error("simfa::EvlogHost::add_tensormap: rank " + std::to_string(t.rank) +
                               " outside 1.." + std::to_string(SIMFA_EVLOG_MAX_RANK));
    for (const TensorMapDesc& o : tensormaps_)
      if (o.id == t.id)
        throw std::runtime_error("simfa::EvlogHost::add_tensormap: duplicate id " +
                                 std::to_string(t.id));
    tensormaps_.push_back(t);
  }

  // Overrides the clock rate stored in the header (e.g. a locked SM clock for clock64 logs).
  void set_clock_rate_hz(uint64_t hz) { h_.clock_rate_hz = hz; }

  // Waits for the device and copies counts, overflow flags and entries to the host.
  void copy_back() {
    const uint64_t warps = evlog::num_warps(h_);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize before copy_back");
    counts_.resize(warps);
    overflow_.resize(warps);
    entries_.resize(n_entries_);
    check(cudaMemcpy(counts_.data(), dev_.counts, warps * sizeof(uint32_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy(counts)");
    check(cudaMemcpy(overflow_.data(), dev_.overflow, warps * sizeof(uint32_t),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy(overflow)");
    if (n_entries_)
      check(cudaMemcpy(entries_.data(), dev_.entries, n_entries_ * sizeof(simfa_evlog_entry),
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy(entries)");
    copied_ = true;
  }

  // Writes the log file; requires copy_back() first.
  void write(const std::string& path) const {
    if (!copied_) throw std::runtime_error("simfa::EvlogHost::write: call copy_back() first");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("simfa::EvlogHost::write: cannot open '" + path + "'");
    evlog::BufferView v{counts_.data(), overflow_.data(), entries_.data()};
    if (!evlog::write_file(out, h_, tensormaps_, v))
      throw std::runtime_error("simfa::EvlogHost::write: write to '" + path + "' failed");
  }

  // Host copies (after copy_back), for callers that inspect the log in-process.
  const std::vector<uint32_t>& counts() const { return counts_; }
  const std::vector<uint32_t>& overflow() const { return overflow_; }
  const std::vector<simfa_evlog_entry>& entries() const { return entries_; }

 private:
  static void check(cudaError_t e, const std::string& what) {
    if (e != cudaSuccess)
      throw std::runtime_error("simfa::EvlogHost: " + what + " failed: " + cudaGetErrorString(e));
  }
  // SM clock in Hz from the current device, 0 when unknown.
  static uint64_t query_sm_clock() {
    int dev = 0, khz = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) != cudaSuccess) return 0;
    return khz > 0 ? uint64_t(khz) * 1000ull : 0;
  }
  void release() {
    cudaFree(dev_.entries);
    cudaFree(dev_.counts);
    cudaFree(dev_.overflow);
    dev_ = SimfaEvlogDev{};
  }

  evlog::FileHeader h_;
  SimfaEvlogDev dev_{};
  uint64_t n_entries_ = 0;
  std::vector<TensorMapDesc> tensormaps_;
  std::vector<uint32_t> counts_, overflow_;
  std::vector<simfa_evlog_entry> entries_;
  bool copied_ = false;
};

}  // namespace simfa

#endif  // SIMFA_EVLOG_HOST_H
