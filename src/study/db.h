// The results database of `simfa sweep` (SQLite; columns in study/schema.h). One process writes
// it (with MPI, rank 0). Rows are committed in small batches (at most kCommitSeconds apart), each
// batch one transaction, so a sweep killed at any moment leaves every committed row whole and
// loses at most the last fraction of a second of results, which a resumed sweep computes again;
// point_key is UNIQUE, so nothing is stored twice.
#pragma once
#include <chrono>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "study/point.h"
#include "study/study.h"

struct sqlite3;

namespace simfa::study {

class ResultsDb {
 public:
  static constexpr double kCommitSeconds = 0.25;

  // Opens (and with `create`, creates) the database. UserError naming the path when it cannot be
  // opened, is not an SQLite database, or holds a `points` table that is not simfa's.
  ResultsDb(const std::string& path, bool create);
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb& operator=(const ResultsDb&) = delete;

  // Records the study (table `studies`) and adds a column for each configuration key it sets.
  void begin_study(const Study& s, double points);
  // Deletes the rows of study `name` whose status is not ok (so that a sweep runs them again);
  // returns how many.
  std::size_t forget_failed(const std::string& name);
  // The keys of the points of study `name` already stored.
  std::set<std::string> done_keys(const std::string& name);
  // Stores a row (ignored when its point_key is present); committed within kCommitSeconds.
  void insert(const Row& row);
  // Commits what insert() has not yet committed.
  void flush();
  // Every column of table `points` but `id` and `json`, one row per point (of `study` when not
  // empty; ordered by study and point_index). UserError for an unknown study.
  void export_csv(std::ostream& out, const std::string& study);
  // Names of the studies stored.
  std::vector<std::string> studies();

 private:
  void exec(const std::string& sql);
  std::vector<std::string> point_columns();
  std::string path_;
  sqlite3* db_ = nullptr;
  bool in_txn_ = false;
  std::chrono::steady_clock::time_point txn_start_;
};

}  // namespace simfa::study
