// Result serialization: JSON for --json, CSV for --csv (same columns as the measured files).
#include "microbench/result.h"

#include <fmt/format.h>

namespace simfa::microbench {

nlohmann::ordered_json to_json(const Result& r) {
  nlohmann::ordered_json j;
  j["microbench"] = r.name;
  if (r.mape_pct) {
    j["mape_pct"] = *r.mape_pct;
    j["max_abs_error_pct"] = *r.max_abs_error_pct;
    j["compared_points"] = r.compared;
  }
  j["info"] = r.info;
  auto& rows = j["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : r.rows) {
    nlohmann::ordered_json o;
    for (std::size_t i = 0; i < r.key_columns.size(); ++i) o[r.key_columns[i]] = row.keys[i];
    o[r.value_column] = row.value;
    for (const auto& [k, v] : row.extra) o[k] = v;
    if (row.measured) {
      o["measured"] = *row.measured;
      o["error_pct"] = row.error_pct();
    }
    rows.push_back(std::move(o));
  }
  return j;
}

std::string to_csv(const Result& r) {
  std::string out;
  for (const auto& k : r.key_columns) out += k + ",";
  out += r.value_column;
  if (!r.rows.empty())
    for (const auto& [k, v] : r.rows.front().extra) out += "," + k;
  if (r.mape_pct) out += ",measured,error_pct";
  out += "\n";
  for (const auto& row : r.rows) {
    for (const auto& k : row.keys) out += k + ",";
    out += fmt::format("{:.6g}", row.value);
    for (const auto& [k, v] : row.extra) out += fmt::format(",{:.6g}", v);
    if (r.mape_pct) {
      if (row.measured)
        out += fmt::format(",{:.6g},{:.3f}", *row.measured, row.error_pct());
      else
        out += ",,";
    }
    out += "\n";
  }
  return out;
}

}  // namespace simfa::microbench
