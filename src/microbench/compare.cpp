// compare: measured rows are grouped by their canonical keys (mean of duplicates, as the
// reference tensor3d 16x16x16 rows appear twice), then joined to the simulated rows.
#include "microbench/compare.h"

#include <cmath>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/files.h"

namespace simfa::microbench {
Csv read_measured_csv(const std::string& path) {
  Csv c = read_csv(path, "CSV file");
  if (c.header_line == 0) user_error("{}: no header line", path);
  return c;
}

std::optional<double> measured_clock_mhz(const Csv& m) {
  std::size_t c = m.header.size();
  for (std::size_t i = 0; i < m.header.size(); ++i)
    if (m.header[i] == "clock_mhz") c = i;
  if (c == m.header.size()) return std::nullopt;
  auto line = [&](std::size_t r) { return r < m.lines.size() ? m.lines[r] : static_cast<int>(r) + 2; };
  std::optional<double> mhz;
  std::size_t first = 0;
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const std::string& text = m.rows[r][c];
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(v >= 1) || !std::isfinite(v))
      user_error("{}:{}: clock_mhz {} is not a clock in MHz", m.file, line(r), quote(text));
    if (!mhz) {
      mhz = v;
      first = r;
    } else if (v != *mhz) {
      user_error("{}:{}: clock_mhz {} differs from the {} MHz of line {}; the rows must share "
                 "one clock (or pass --clock-mhz)", m.file, line(r), text, *mhz, line(first));
    }
  }
  return mhz;
}

std::string canonical_key(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return text;
  return fmt::format("{:g}", v);
}

void compare(Result& r, const Csv& m) {
  std::vector<std::size_t> kc;
  for (const auto& k : r.key_columns) kc.push_back(m.column(k));
  const std::size_t vc = m.column(r.value_column);
  // The whole cell must be a positive finite number ("32.0abc", "nan", "1e999" and 0 are errors:
  // they made the MAPE NaN or a row's error silently 0).
  std::map<std::vector<std::string>, std::vector<double>> by_key;
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const auto& row = m.rows[i];
    std::vector<std::string> key;
    for (std::size_t c : kc) key.push_back(canonical_key(row[c]));
    const std::string& text = row[vc];
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || !(v > 0))
      user_error("{}:{}: {} in column {} is not a positive number", m.file,
                 i < m.lines.size() ? m.lines[i] : static_cast<int>(i) + 2, quote(text), r.value_column);
    by_key[key].push_back(v);
  }
  double sum = 0, worst = 0;
  std::size_t n = 0;
  for (auto& row : r.rows) {
    std::vector<std::string> key;
    for (const auto& k : row.keys) key.push_back(canonical_key(k));
    auto it = by_key.find(key);
    if (it == by_key.end()) continue;
    double mean = 0;  // of the rows with these keys, as a sum of v / n: no overflow
    for (double v : it->second) mean += v / static_cast<double>(it->second.size());
    row.measured = mean;
    const double e = std::abs(row.error_pct());
    sum += e;
    worst = std::max(worst, e);
    ++n;
  }
  if (n == 0) user_error("{}: no row matches the simulated points (keys: {})", m.file, fmt::join(r.key_columns, ", "));
  r.compared = n;
  r.mape_pct = sum / static_cast<double>(n);
  r.max_abs_error_pct = worst;
}

}  // namespace simfa::microbench
