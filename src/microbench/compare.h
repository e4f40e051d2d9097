// Reading measured microbenchmark CSVs (the shared format: a header line, '#' comment lines
// allowed, comma-separated values) and comparing a simulated Result against them.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "microbench/result.h"
#include "sim/csv.h"

namespace simfa::microbench {

using Csv = CsvTable;

// A measured CSV (sim/csv.h); UserError (file and line) when the file cannot be read, has no
// header or a row has the wrong width.
Csv read_measured_csv(const std::string& path);

// The SM clock the measurement ran at, from the file's `clock_mhz` column (reference format);
// nullopt when the file has no such column. Throws UserError (file and line) for a value that is
// not a positive number, or when the rows disagree (one simulated clock per run).
std::optional<double> measured_clock_mhz(const Csv& measured);

// Canonical text of a numeric key ("1.0" and "1" compare equal); other text is kept as is.
std::string canonical_key(const std::string& text);

// Fills each row's measured value from the rows of `measured` with the same keys (when several
// measured rows share keys, their mean), then the MAPE and maximum absolute error. Rows without a
// measured counterpart are left out of the figures. Throws UserError when the CSV lacks a key or
// value column, or when no row matches.
void compare(Result& r, const Csv& measured);

}  // namespace simfa::microbench
