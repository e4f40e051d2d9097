// CSV tables: one field split and one set of rules for every reader (see csv.h).
#include "sim/csv.h"

#include <istream>

#include <fmt/format.h>

#include "sim/error.h"
#include "sim/files.h"

namespace simfa {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = line.find(',');
    out.emplace_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return out;
}

std::size_t CsvTable::column(const std::string& name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return i;
  user_error("{}: no column '{}' (columns: {})", file, name, fmt::join(header, ", "));
}

std::string CsvTable::where(std::size_t row) const { return fmt::format("{}:{}", file, lines.at(row)); }

CsvTable parse_csv(std::istream& in, const std::string& name, CsvHeader header) {
  CsvTable t;
  t.file = name;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // UTF-8 BOM
    const std::string_view s = trim(line);
    if (s.empty() || s[0] == '#') continue;
    std::vector<std::string> fields = split_csv_line(s);
    if (header == CsvHeader::Required && t.header_line == 0) {
      t.header = std::move(fields);
      t.header_line = n;
      continue;
    }
    if (header == CsvHeader::Required && fields.size() != t.header.size())
      user_error("{}:{}: {} fields, but the header has {} columns", name, n, fields.size(), t.header.size());
    t.rows.push_back(std::move(fields));
    t.lines.push_back(n);
  }
  return t;
}

CsvTable read_csv(const std::string& path, std::string_view what, CsvHeader header) {
  std::ifstream in = open_input_file(path, what);
  return parse_csv(in, path, header);
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string r = "\"";
  for (char c : s) {
    if (c == '"') r += '"';
    r += c;
  }
  return r + "\"";
}

}  // namespace simfa
