// Reading measured microbenchmark CSVs (the shared format: a header line, '#' comment lines
// allowed, comma-separated values) and comparing a simulated Result against them.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "microbench/result.h"

namespace simfa::microbench {

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string file;
  // Index of a column; throws UserError naming the file when it is missing.
  std::size_t column(const std::string& name) const;
};

// Throws UserError (file and line) when the file cannot be read or a row has the wrong width.
Csv read_csv(const std::string& path);

// Canonical text of a numeric key ("1.0" and "1" compare equal); other text is kept as is.
std::string canonical_key(const std::string& text);

// Fills each row's measured value from the rows of `measured` with the same keys (when several
// measured rows share keys, their mean), then the MAPE and maximum absolute error. Rows without a
// measured counterpart are left out of the figures. Throws UserError when the CSV lacks a key or
// value column, or when no row matches.
void compare(Result& r, const Csv& measured);

}  // namespace simfa::microbench
