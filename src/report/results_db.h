// Reading the results database of `simfa sweep` (SQLite, src/study/schema.h) for `simfa report`:
// every row of table `points` and of table `studies`, as text and numbers, in a fixed order (so the
// report of the same database is the same bytes). Read only; the file is never written.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace simfa::report {

// One value of the database. NULL: `null`. INTEGER and REAL: `number` (and `text`, the number
// written out: integers without decimals). TEXT: `text`, and `number` too when the whole text
// reads as a finite number ("4", "0.5"; config-key columns hold the study's text).
struct DbCell {
  bool null = true;
  bool is_number = false;
  double number = 0;
  std::string text;
};

struct DbStudy {
  std::string name;
  DbCell file, text, points, started_at, simfa_version;  // null when the table lacks the column
};

struct ResultsDb {
  std::string path;                           // as given
  std::vector<std::string> columns;           // of table `points`, in the table's order
  std::vector<std::vector<DbCell>> points;    // by study, point_index, point_key
  std::vector<DbStudy> studies;               // table `studies` (empty when absent), by name

  // Index of a column of `points`, or npos.
  std::size_t column(std::string_view name) const;
  // The cell of `row` in `name`; a null cell when the table has no such column.
  const DbCell& cell(const std::vector<DbCell>& row, std::string_view name) const;
  // The columns that are no fixed column of schema.h: the configuration keys studies vary or set.
  std::vector<std::string> config_columns() const;
  // The studies of the points and of table `studies`, by name.
  std::vector<std::string> study_names() const;

  static constexpr std::size_t npos = std::size_t(-1);
};

// Reads the database at `path`. UserError naming the file when it is missing or no regular file,
// is not an SQLite database, has no table `points`, or cannot be read.
ResultsDb read_results_db(const std::string& path);

}  // namespace simfa::report
