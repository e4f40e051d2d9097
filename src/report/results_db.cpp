// The results database reader (results_db.h), on SQLite's C interface.
#include "report/results_db.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <sqlite3.h>

#include "sim/error.h"
#include "sim/files.h"
#include "study/schema.h"

namespace simfa::report {
namespace {

struct CloseDb {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct Finalize {
  void operator()(sqlite3_stmt* st) const { sqlite3_finalize(st); }
};
using Db = std::unique_ptr<sqlite3, CloseDb>;
using Stmt = std::unique_ptr<sqlite3_stmt, Finalize>;

[[noreturn]] void fail(const std::string& path, sqlite3* db, int rc) {
  if (rc == SQLITE_NOTADB)
    user_error("{}: not an SQLite database (simfa report reads what simfa sweep --db writes)", path);
  user_error("{}: cannot read the results database: {}", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

Stmt prepare(const std::string& path, sqlite3* db, const std::string& sql) {
  sqlite3_stmt* st = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &st, nullptr);
  if (rc != SQLITE_OK) fail(path, db, rc);
  return Stmt(st);
}

// Steps `st`: true while there is a row.
bool step(const std::string& path, sqlite3* db, sqlite3_stmt* st) {
  const int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(path, db, rc);
}

std::string quote_name(std::string_view name) {
  std::string o = "\"";
  for (char c : name) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

DbCell read_cell(sqlite3_stmt* st, int i) {
  DbCell c;
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
      return c;
    case SQLITE_INTEGER: {
      const auto v = sqlite3_column_int64(st, i);
      c.null = false, c.is_number = true, c.number = double(v), c.text = std::to_string(v);
      return c;
    }
    case SQLITE_FLOAT: {
      const double v = sqlite3_column_double(st, i);
      c.null = false, c.is_number = std::isfinite(v), c.number = v, c.text = fmt::format("{}", v);
      return c;
    }
    case SQLITE_BLOB:
      c.null = false, c.text = fmt::format("<{} bytes of binary data>", sqlite3_column_bytes(st, i));
      return c;
    default: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
      c.null = false;
      c.text.assign(p ? p : "", std::size_t(sqlite3_column_bytes(st, i)));
      double v = 0;
      const char* end = c.text.data() + c.text.size();
      const auto r = std::from_chars(c.text.data(), end, v);
      if (!c.text.empty() && r.ec == std::errc() && r.ptr == end && std::isfinite(v))
        c.is_number = true, c.number = v;
      return c;
    }
  }
}

// Every row of `table`: its columns and rows.
void read_table(const std::string& path, sqlite3* db, const std::string& table, std::vector<std::string>& columns,
                std::vector<std::vector<DbCell>>& rows) {
  Stmt st = prepare(path, db, "SELECT * FROM " + quote_name(table));
  const int n = sqlite3_column_count(st.get());
  for (int i = 0; i < n; ++i) columns.emplace_back(sqlite3_column_name(st.get(), i));
  while (step(path, db, st.get())) {
    std::vector<DbCell> row;
    row.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i) row.push_back(read_cell(st.get(), i));
    rows.push_back(std::move(row));
  }
}

const DbCell kNull;

}  // namespace

std::size_t ResultsDb::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  return npos;
}

const DbCell& ResultsDb::cell(const std::vector<DbCell>& row, std::string_view name) const {
  const std::size_t i = column(name);
  return i < row.size() ? row[i] : kNull;
}

std::vector<std::string> ResultsDb::config_columns() const {
  std::vector<std::string> out;
  for (const auto& c : columns) {
    bool fixed = c == study::kRowIdColumn;
    for (const auto& f : study::kPointColumns) fixed |= f.name == c;
    if (!fixed) out.push_back(c);
  }
  return out;
}

std::vector<std::string> ResultsDb::study_names() const {
  std::set<std::string> names;
  for (const auto& s : studies) names.insert(s.name);
  for (const auto& row : points) names.insert(cell(row, "study").text);
  return {names.begin(), names.end()};
}

ResultsDb read_results_db(const std::string& path) {
  check_input_file(path, "results database");
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) fail(path, db.get(), rc);
  sqlite3_busy_timeout(db.get(), 10000);  // a sweep writing the file at the same time

  std::set<std::string> tables;
  {
    Stmt st = prepare(path, db.get(), "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (step(path, db.get(), st.get()))
      tables.insert(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0)));
  }
  if (!tables.count("points"))
    user_error("{}: no table 'points': not a results database of simfa sweep --db", path);

  ResultsDb out;
  out.path = path;
  read_table(path, db.get(), "points", out.columns, out.points);
  // A fixed order whatever order SQLite returns: study, point_index, point_key (unique), and the
  // whole row as text for rows that agree on those.
  const std::size_t c_study = out.column("study"), c_index = out.column("point_index"),
                    c_key = out.column("point_key");
  auto key = [&](const std::vector<DbCell>& r, std::size_t c) -> const DbCell& { return c < r.size() ? r[c] : kNull; };
  std::stable_sort(out.points.begin(), out.points.end(), [&](const auto& a, const auto& b) {
    if (key(a, c_study).text != key(b, c_study).text) return key(a, c_study).text < key(b, c_study).text;
    const double ia = key(a, c_index).number, ib = key(b, c_index).number;
    if (ia != ib) return ia < ib;
    if (key(a, c_key).text != key(b, c_key).text) return key(a, c_key).text < key(b, c_key).text;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
      if (a[i].text != b[i].text) return a[i].text < b[i].text;
    return false;
  });

  if (tables.count("studies")) {
    std::vector<std::string> cols;
    std::vector<std::vector<DbCell>> rows;
    read_table(path, db.get(), "studies", cols, rows);
    auto get = [&](const std::vector<DbCell>& r, std::string_view name) -> DbCell {
      for (std::size_t i = 0; i < cols.size(); ++i)
        if (cols[i] == name) return r[i];
      return {};
    };
    for (const auto& r : rows) {
      DbStudy s;
      s.name = get(r, "name").text;
      s.file = get(r, "file");
      s.text = get(r, "text");
      s.points = get(r, "points");
      s.started_at = get(r, "started_at");
      s.simfa_version = get(r, "simfa_version");
      out.studies.push_back(std::move(s));
    }
    std::stable_sort(out.studies.begin(), out.studies.end(),
                     [](const DbStudy& a, const DbStudy& b) { return a.name < b.name; });
  }
  return out;
}

}  // namespace simfa::report
