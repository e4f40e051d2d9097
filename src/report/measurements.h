// Validation against measured kernel timings: the measurements CSV (one attention case per row),
// per-case errors, MAPE and the maximum error, as a table and as JSON.
//
// CSV: a header naming the columns, then one row per case. Required columns:
//   case, batch, seqlen, heads, head_dim, causal, measured_us
// optional: seqlen_kv (default seqlen; kv_seqlen is the same column by its old name), heads_kv (default heads: MHA), dtype (fp16), clock_mhz
// (the clock the GPU was set to; default the preset's; the power limit applies), measured_clock_mhz
// (the clock measured during the run: simulated exactly; not with clock_mhz), gpu (the command's
// --gpu). `heads` counts query heads; heads_kv must divide
// it. Empty optional cells take the default. Lines starting with '#' and blank lines are skipped.
// Fields are plain (no quoting); surrounding spaces are ignored.
//
// Other workloads (api/workload.h): an optional `workload` column names the row's workload (empty:
// fa3). With that column the attention columns are required per FA3 row rather than in the
// header. A row of another workload gives that workload's shape keys as columns (gemm: m, n, k,
// and batch, dtype), checked by the workload itself, and leaves the attention columns empty.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace simfa::report {

struct MeasuredCase {
  std::string name;
  std::string where;  // "file.csv:12", for messages
  std::int64_t batch = 1, seqlen = 0, seqlen_kv = 0, heads = 0, heads_kv = 0, head_dim = 0;
  bool causal = false;
  double measured_us = 0;
  std::string dtype = "fp16";
  double clock_mhz = 0;  // 0: the GPU preset's
  bool clock_measured = false;  // the row gave measured_clock_mhz (into clock_mhz)
  std::string gpu;       // empty: the command's --gpu
  std::string workload = "fa3";  // the registry's name (api/workload.h)
  // A non-FA3 row: its shape keys as given ({column, text}); the FA3 fields above stay unset.
  std::vector<std::pair<std::string, std::string>> shape;
};

// Reads and checks the whole file. Throws UserError with one line naming file:line and column:
// missing or unknown or repeated column, wrong field count, non-numeric or non-positive size,
// bad causal/dtype value, heads not a multiple of heads_kv, no rows, unreadable file.
std::vector<MeasuredCase> read_measurements(const std::string& path);
std::vector<MeasuredCase> parse_measurements(std::istream& in, const std::string& name);

struct CaseResult {
  std::string name;
  double measured_us = 0, simulated_us = 0;
  double error_pct = 0;  // 100 * (simulated - measured) / measured
};

struct ErrorSummary {
  double mape_pct = 0;           // mean of |error_pct|
  double max_abs_error_pct = 0;  // max of |error_pct|
  std::size_t cases = 0;
};

double error_pct(double simulated, double measured);
ErrorSummary summarize(const std::vector<CaseResult>& results);
// The per-case table and the summary lines, for the terminal.
std::string validation_table(const std::vector<CaseResult>& results, const ErrorSummary& s);
// {"mape_pct", "max_abs_error_pct", "cases": [{case, measured_us, simulated_us, error_pct}]}
nlohmann::ordered_json validation_json(const std::vector<CaseResult>& results, const ErrorSummary& s);

}  // namespace simfa::report
