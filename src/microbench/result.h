// The result of one microbenchmark: a table whose rows are identified by key columns (the same
// columns as the measured CSVs of ../shared/reference/measured) and carry one compared value,
// plus free-form extra columns; and, after a comparison, each row's measured value and error.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simfa::microbench {

struct Row {
  std::vector<std::string> keys;            // values of Result::key_columns, as in the CSVs
  double value = 0;                         // Result::value_column
  std::vector<std::pair<std::string, double>> extra;  // further columns
  std::optional<double> measured;           // filled by compare()
  double error_pct() const { return measured && *measured != 0 ? 100.0 * ((value - *measured) / *measured) : 0; }
};

struct Result {
  std::string name;                      // "tma-latency"
  std::vector<std::string> key_columns;  // {"working_set_kib"}
  std::string value_column;              // "latency_cycles"
  std::vector<Row> rows;
  nlohmann::ordered_json info;           // run-wide facts (gpu, hops, ...)
  // Set by compare(): mean absolute percentage error and largest absolute error over the rows
  // that have a measured value.
  std::optional<double> mape_pct, max_abs_error_pct;
  std::size_t compared = 0;
};

nlohmann::ordered_json to_json(const Result& r);
// CSV: key columns, the value column, extra columns, then measured and error_pct when compared.
std::string to_csv(const Result& r);

}  // namespace simfa::microbench
