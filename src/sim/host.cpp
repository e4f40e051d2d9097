// Host memory from sysconf (physical pages x page size).
#include "sim/host.h"

#include <unistd.h>

#include "sim/error.h"

namespace simfa {

std::uint64_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

void check_host_memory(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t have = host_memory_bytes();
  if (have == 0 || bytes <= have / 4 * 3) return;
  user_error("{} would take about {:.1f} GiB of host memory; this machine has {:.1f} GiB", what,
             static_cast<double>(bytes) / (1ull << 30), static_cast<double>(have) / (1ull << 30));
}

}  // namespace simfa
