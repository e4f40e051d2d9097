// The host machine's memory, for estimates made before a large allocation: a run that cannot fit
// is a clear error saying how much it needs, not std::bad_alloc (or the kernel's OOM killer) later.
#pragma once
#include <cstdint>
#include <string_view>

namespace simfa {

// Physical memory of this machine in bytes (0 when unknown).
std::uint64_t host_memory_bytes();

// UserError "WHAT would take about N GiB of host memory; this machine has M GiB" when `bytes` exceeds
// three quarters of the physical memory. Does nothing when the size of the memory is unknown.
void check_host_memory(std::uint64_t bytes, std::string_view what);

}  // namespace simfa
