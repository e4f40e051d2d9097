// libFuzzer harness for the measured microbenchmark CSV reader (src/microbench/compare.*,
// `simfa microbench ... --compare FILE`). The input is written to a scratch file and read with
// read_measured_csv (the reader takes a path); then measured_clock_mhz and compare run against simulated
// results shaped like the latency and TMA-bandwidth microbenchmarks. Property: each step returns
// or throws simfa::UserError; the errors it computes are never NaN.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "microbench/compare.h"
#include "sim/error.h"

namespace {

const std::string& scratch_path() {
  static const std::string p = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/simfa_fuzz_microbench_" + std::to_string(getpid()) + ".csv";
  }();
  return p;
}

simfa::microbench::Result latency_result() {
  simfa::microbench::Result r;
  r.name = "tma-latency";
  r.key_columns = {"working_set_kib"};
  r.value_column = "latency_cycles";
  for (int kib : {2, 6, 10, 1024}) r.rows.push_back({{std::to_string(kib)}, 300.0 + kib, {}, std::nullopt});
  return r;
}

simfa::microbench::Result bandwidth_result() {
  simfa::microbench::Result r;
  r.name = "tma-bandwidth";
  r.key_columns = {"copy_kind", "box_elems", "load_kib", "blocks"};
  r.value_column = "throughput_gbs";
  r.rows.push_back({{"bulk", "", "1", "114"}, 220.0, {}, std::nullopt});
  r.rows.push_back({{"tensor3d", "16", "8", "228"}, 1000.0, {}, std::nullopt});
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace simfa::microbench;
  {
    std::FILE* f = std::fopen(scratch_path().c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
  }
  Csv csv;
  try {
    csv = read_measured_csv(scratch_path());
  } catch (const simfa::UserError&) {
    return 0;
  }
  for (const auto& row : csv.rows)
    if (row.size() != csv.header.size()) std::abort();
  try {
    if (auto mhz = measured_clock_mhz(csv); mhz && !(*mhz >= 1 && std::isfinite(*mhz))) std::abort();
  } catch (const simfa::UserError&) {
  }
  for (Result r : {latency_result(), bandwidth_result()}) {
    try {
      compare(r, csv);
    } catch (const simfa::UserError&) {
      continue;
    }
    if (r.compared == 0 || !r.mape_pct || !r.max_abs_error_pct) std::abort();
    // Measured values are positive and finite, so no error is NaN (a tiny one may give infinity).
    if (std::isnan(*r.mape_pct) || std::isnan(*r.max_abs_error_pct)) std::abort();
  }
  return 0;
}
