// simfa device-side event logger (header-only, nvcc). Paper §5.1.
//
// Contract:
//  - Each warp owns a fixed buffer of `entries_per_warp` entries at index
//      buf = linear blockIdx * warps_per_block + (linear threadIdx / 32)
//    located without atomics; its entry count lives in counts[buf] and only that warp's lane 0
//    reads or writes it, so no synchronisation is needed.
//  - SIMFA_EVLOG(dev, event, stage, payload) is a warp-level statement: call it where all lanes
//    (or at least lane 0) of the warp pass; only lane 0 records. It writes one 16-byte entry with
//    a single vector store and bumps the count. When the buffer is full it records nothing and
//    sets overflow[buf] = 1 (the log reader turns that into a warning).
//  - Without SIMFA_EVLOG_ENABLED the macro expands to ((void)0): its arguments are not evaluated
//    and the kernel contains no logger code (tests/instr checks the PTX/SASS for this).
//  - The timestamp read is `asm volatile` with a memory clobber, so the compiler keeps it in
//    program order with the surrounding inline-asm (cp.async.bulk, wgmma, mbarrier) and memory
//    operations; the hardware may still overlap asynchronous work issued before it.
#ifndef SIMFA_EVLOG_CUH
#define SIMFA_EVLOG_CUH

#include <stdint.h>

#include "simfa/evlog_format.h"

// Kernel-argument view of the device buffers; built by simfa::EvlogHost::dev(). Trivially
// copyable so it can be passed by value as a kernel parameter.
struct SimfaEvlogDev {
  simfa_evlog_entry* entries;  // [num_warps * entries_per_warp]
  uint32_t* counts;            // [num_warps], zeroed before launch
  uint32_t* overflow;          // [num_warps], zeroed before launch
  uint32_t entries_per_warp;
  uint32_t warps_per_block;
  uint32_t clock_kind;  // simfa_clock_kind
};

#if defined(SIMFA_EVLOG_ENABLED) && defined(__CUDACC__)

namespace simfa_evlog_detail {

__device__ __forceinline__ uint64_t read_clock(uint32_t clock_kind) {
  uint64_t t;
  if (clock_kind == SIMFA_CLOCK_CLOCK64) {
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
  } else {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
  }
  return t;
}

__device__ __forceinline__ void record(const SimfaEvlogDev& dev, uint32_t event, uint32_t stage,
                                       uint32_t payload) {
  const uint32_t tid =
      threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);  // linear thread id
  if ((tid & 31u) != 0u) return;                                            // lane 0 only
  const uint32_t block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const uint32_t warp = tid >> 5;
  if (dev.entries == nullptr || warp >= dev.warps_per_block) return;  // misconfigured: drop
  const uint32_t buf = block * dev.warps_per_block + warp;
  const uint32_t n = dev.counts[buf];
  if (n >= dev.entries_per_warp) {
    dev.overflow[buf] = 1u;
    return;
  }
  const uint64_t ts = read_clock(dev.clock_kind);
  // One st.global.v4.u32: timestamp lo, hi, (stage << 16 | event), (pad << 16 | payload).
  uint4 v;
  v.x = static_cast<uint32_t>(ts);
  v.y = static_cast<uint32_t>(ts >> 32);
  v.z = (event & 0xFFFFu) | ((stage & 0xFFFFu) << 16);
  v.w = payload & 0xFFFFu;
  *reinterpret_cast<uint4*>(dev.entries + static_cast<uint64_t>(buf) * dev.entries_per_warp + n) =
      v;
  dev.counts[buf] = n + 1u;
}

}  // namespace simfa_evlog_detail

#define SIMFA_EVLOG(dev, event, stage, payload)                                                   \
  ::simfa_evlog_detail::record((dev), static_cast<uint32_t>(event), static_cast<uint32_t>(stage), \
                               static_cast<uint32_t>(payload))
#else
#define SIMFA_EVLOG(dev, event, stage, payload) ((void)0)
#endif

#endif  // SIMFA_EVLOG_CUH
