/* Compiles evlog_format.h as C11 (it is shared with C and CUDA code). */
#include "simfa/evlog_format.h"

int simfa_format_c11_check(void) {
  simfa_evlog_entry e = {0};
  simfa_tensormap_desc t = {0};
  return (int)sizeof e + (int)t.rank + simfa_evlog_event_valid(SIMFA_EV_WAIT_WG_0);
}
