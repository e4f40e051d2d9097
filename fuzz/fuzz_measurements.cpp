// libFuzzer harness for the measurements CSV reader (src/report/measurements.*, `simfa validate
// --measurements`). Property: parse_measurements either returns cases that satisfy the documented
// checks or throws simfa::UserError; anything else (another exception, a crash, a sanitizer
// report, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "report/measurements.h"
#include "sim/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace simfa::report;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<MeasuredCase> cases;
  try {
    cases = parse_measurements(in, "fuzz.csv");
  } catch (const simfa::UserError&) {
    return 0;
  }
  if (cases.empty()) std::abort();
  for (const MeasuredCase& c : cases) {
    if (c.name.empty() || c.batch < 1 || c.seqlen < 1 || c.seqlen_kv < 1 || c.heads < 1 || c.heads_kv < 1 ||
        c.head_dim < 1 || !(c.measured_us > 0) || c.clock_mhz < 0 || c.heads % c.heads_kv != 0)
      std::abort();
  }
  return 0;
}
