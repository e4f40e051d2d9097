// SQLite results database (see db.h).
#include "study/db.h"

#include <filesystem>
#include <ostream>

#include <fmt/format.h>
#include <sqlite3.h>

#include "sim/csv.h"
#include "sim/error.h"
#include "sim/files.h"
#include "study/schema.h"

namespace simfa::study {
namespace {

std::string ident(std::string_view name) {
  std::string r = "\"";
  for (char c : name) {
    if (c == '"') r += '"';
    r += c;
  }
  return r + "\"";
}

const char* sql_type(ColumnType t) {
  switch (t) {
    case ColumnType::Integer: return "INTEGER";
    case ColumnType::Real: return "REAL";
    case ColumnType::Text: return "TEXT";
  }
  return "TEXT";
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const std::string& sql, const std::string& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), int(sql.size()), &st_, nullptr) != SQLITE_OK)
      throw UserError(fmt::format("{}: {}", path, sqlite3_errmsg(db)));
  }
  ~Stmt() { sqlite3_finalize(st_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  sqlite3_stmt* get() { return st_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

}  // namespace

ResultsDb::ResultsDb(const std::string& path, bool create) : path_(path) {
  std::error_code ec;
  if (!create) check_input_file(path, "results database");
  else if (std::filesystem::exists(path, ec)) check_input_file(path, "results database");
  else check_output_path(path, "results database");
  const int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READWRITE;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw UserError(fmt::format("{}: cannot open the results database: {}", path, why));
  }
  sqlite3_busy_timeout(db_, 10000);
  try {
    // The first read finds out whether the file is a database at all.
    exec("PRAGMA foreign_keys = ON");
    bool has_points = false;
    {
      Stmt st(db_, "SELECT name FROM sqlite_master WHERE type='table' AND name='points'", path_);
      const int rc = sqlite3_step(st.get());
      if (rc == SQLITE_ROW) has_points = true;
      else if (rc != SQLITE_DONE) throw UserError(fmt::format("{}: {}", path_, sqlite3_errmsg(db_)));
    }
    if (has_points) {
      const auto cols = point_columns();
      if (std::find(cols.begin(), cols.end(), "point_key") == cols.end())
        throw UserError(fmt::format("{}: its table 'points' is not a simfa results table (no point_key column)", path_));
    } else if (!create) {
      throw UserError(fmt::format("{}: no table 'points': not a simfa results database (simfa sweep writes one)", path_));
    }
    if (create) {
      std::string sql = fmt::format("CREATE TABLE IF NOT EXISTS points ({} INTEGER PRIMARY KEY", ident(kRowIdColumn));
      for (const Column& c : kPointColumns) sql += fmt::format(", {} {}", ident(c.name), sql_type(c.type));
      sql += ", UNIQUE(point_key))";
      exec(sql);
      sql = "CREATE TABLE IF NOT EXISTS studies (";
      bool first = true;
      for (const Column& c : kStudyColumns) {
        sql += fmt::format("{}{} {}{}", first ? "" : ", ", ident(c.name), sql_type(c.type),
                           c.name == "name" ? " PRIMARY KEY" : "");
        first = false;
      }
      exec(sql + ")");
      // A database from an older simfa: add the columns it lacks.
      const auto have = point_columns();
      for (const Column& c : kPointColumns)
        if (std::find(have.begin(), have.end(), c.name) == have.end())
          exec(fmt::format("ALTER TABLE points ADD COLUMN {} {}", ident(c.name), sql_type(c.type)));
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

ResultsDb::~ResultsDb() {
  if (!db_) return;
  try {
    flush();
  } catch (...) {
  }
  sqlite3_close(db_);
}

void ResultsDb::exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw UserError(fmt::format("{}: {}", path_, why));
  }
}

std::vector<std::string> ResultsDb::point_columns() {
  std::vector<std::string> cols;
  Stmt st(db_, "PRAGMA table_info(points)", path_);
  while (sqlite3_step(st.get()) == SQLITE_ROW)
    cols.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 1)));
  return cols;
}

void ResultsDb::begin_study(const Study& s, double points) {
  flush();
  exec("BEGIN");
  try {
    const auto have = point_columns();
    for (const auto& key : s.config_keys)
      if (std::find(have.begin(), have.end(), key) == have.end())
        exec(fmt::format("ALTER TABLE points ADD COLUMN {} TEXT", ident(key)));
    Stmt st(db_,
            "INSERT INTO studies (name, file, text, points, started_at, simfa_version) VALUES (?, ?, ?, ?, "
            "strftime('%Y-%m-%dT%H:%M:%SZ','now'), ?) ON CONFLICT(name) DO UPDATE SET file=excluded.file, "
            "text=excluded.text, points=excluded.points, started_at=excluded.started_at, "
            "simfa_version=excluded.simfa_version",
            path_);
    sqlite3_bind_text(st.get(), 1, s.name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st.get(), 2, s.file.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st.get(), 3, s.text.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st.get(), 4, sqlite3_int64(points));
    sqlite3_bind_text(st.get(), 5, simfa_version(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st.get()) != SQLITE_DONE) throw UserError(fmt::format("{}: {}", path_, sqlite3_errmsg(db_)));
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::size_t ResultsDb::forget_failed(const std::string& name) {
  flush();
  Stmt st(db_, "DELETE FROM points WHERE study = ? AND status != 'ok'", path_);
  sqlite3_bind_text(st.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.get()) != SQLITE_DONE) throw UserError(fmt::format("{}: {}", path_, sqlite3_errmsg(db_)));
  return static_cast<std::size_t>(sqlite3_changes(db_));
}

std::set<std::string> ResultsDb::done_keys(const std::string& name) {
  std::set<std::string> keys;
  Stmt st(db_, "SELECT point_key FROM points WHERE study = ?", path_);
  sqlite3_bind_text(st.get(), 1, name.c_str(), -1, SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW)
    keys.emplace(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0)));
  if (rc != SQLITE_DONE) throw UserError(fmt::format("{}: {}", path_, sqlite3_errmsg(db_)));
  return keys;
}

void ResultsDb::insert(const Row& row) {
  if (!in_txn_) {
    exec("BEGIN");
    in_txn_ = true;
    txn_start_ = std::chrono::steady_clock::now();
  }
  std::string cols, marks;
  for (const auto& [k, v] : row.items()) {
    cols += (cols.empty() ? "" : ", ") + ident(k);
    marks += marks.empty() ? "?" : ", ?";
  }
  Stmt st(db_, fmt::format("INSERT OR IGNORE INTO points ({}) VALUES ({})", cols, marks), path_);
  int i = 1;
  for (const auto& [k, v] : row.items()) {
    if (v.is_null()) sqlite3_bind_null(st.get(), i);
    else if (v.is_boolean()) sqlite3_bind_int64(st.get(), i, v.get<bool>() ? 1 : 0);
    else if (v.is_number_integer()) sqlite3_bind_int64(st.get(), i, v.get<sqlite3_int64>());
    else if (v.is_number()) sqlite3_bind_double(st.get(), i, v.get<double>());
    else if (v.is_string()) sqlite3_bind_text(st.get(), i, v.get_ref<const std::string&>().c_str(), -1, SQLITE_TRANSIENT);
    else sqlite3_bind_text(st.get(), i, v.dump().c_str(), -1, SQLITE_TRANSIENT);
    ++i;
  }
  if (sqlite3_step(st.get()) != SQLITE_DONE) throw UserError(fmt::format("{}: {}", path_, sqlite3_errmsg(db_)));
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - txn_start_).count() >= kCommitSeconds) flush();
}

void ResultsDb::flush() {
  if (!in_txn_) return;
  in_txn_ = false;
  exec("COMMIT");
}

std::vector<std::string> ResultsDb::studies() {
  std::vector<std::string> names;
  Stmt st(db_, "SELECT DISTINCT study FROM points ORDER BY study", path_);
  while (sqlite3_step(st.get()) == SQLITE_ROW)
    names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), 0)));
  return names;
}

void ResultsDb::export_csv(std::ostream& out, const std::string& study) {
  flush();
  if (!study.empty()) {
    const auto names = studies();
    if (std::find(names.begin(), names.end(), study) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw UserError(fmt::format("{}: no study '{}' (studies: {})", path_, study, list.empty() ? "none" : list));
    }
  }
  std::vector<std::string> cols;
  for (const auto& c : point_columns())
    if (c != kRowIdColumn && c != "json") cols.push_back(c);
  std::string sel, head;
  for (const auto& c : cols) {
    sel += (sel.empty() ? "" : ", ") + ident(c);
    head += (head.empty() ? "" : ",") + csv_field(c);
  }
  Stmt st(db_, fmt::format("SELECT {} FROM points{} ORDER BY study, point_index", sel,
                           study.empty() ? "" : " WHERE study = ?"),
          path_);
  if (!study.empty()) sqlite3_bind_text(st.get(), 1, study.c_str(), -1, SQLITE_TRANSIENT);
  out << head << "\n";
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    std::string line;
    for (int i = 0; i < int(cols.size()); ++i) {
      if (i) line += ',';
      switch (sqlite3_column_type(st.get(), i)) {
        case SQLITE_NULL: break;
        case SQLITE_INTEGER: line += std::to_string(sqlite3_column_int64(st.get(), i)); break;
        case SQLITE_FLOAT: line += fmt::format("{:.17g}", sqlite3_column_double(st.get(), i)); break;
        default: line += csv_field(reinterpret_cast<const char*>(sqlite3_column_text(st.get(), i)));
      }
    }
    out << line << "\n";
  }
  if (rc != SQLITE_DONE) throw UserError(fmt::format("{}: {}", path_, sqlite3_errmsg(db_)));
}

}  // namespace simfa::study
