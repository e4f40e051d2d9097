// Compile test: the logger headers stand alone (no other includes) and work in a kernel taking
// the device view by value, in 1-D and 3-D blocks, with a runtime clock kind.
#include "simfa/evlog_host.h"

__global__ void uses_logger_3d(SimfaEvlogDev log, int n) {
  for (int i = 0; i < n; ++i) SIMFA_EVLOG(log, SIMFA_EV_USER_BASE + i, i & 1, i);
}

void launch_for_compile_test(int n) {
  simfa::EvlogHost host(dim3(2, 2, 1), dim3(16, 4, 2), 16, SIMFA_CLOCK_CLOCK64);
  simfa_tensormap_desc t{};
  t.id = SIMFA_TMAP_K;
  t.rank = 1;
  host.add_tensormap(t);
  uses_logger_3d<<<dim3(2, 2, 1), dim3(16, 4, 2)>>>(host.dev(), n);
  host.copy_back();
  host.write("/dev/null");
}
