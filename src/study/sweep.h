// Running a study's points into the results database: locally on N threads (run_sweep), or across
// MPI ranks (study/mpi_sweep.h). Points already stored are skipped, so a sweep killed at any
// moment and started again computes only what is missing.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "study/db.h"
#include "study/point.h"
#include "study/study.h"

namespace simfa::study {

struct SweepCounts {
  std::size_t points = 0;   // in the study
  std::size_t stored = 0;   // already in the database when the sweep started
  std::size_t to_run = 0;   // points - stored
  std::size_t ran = 0;      // finished in this sweep
  std::size_t failed = 0;   // of those, status != ok
};

struct SweepOptions {
  unsigned jobs = 1;
  // Called before each point and polled during simulations: may throw InterruptedError (Ctrl-C).
  std::function<void()> check_interrupt;
  std::function<void(const core::RunProgress&)> poll;
  // Called (under a lock, in completion order) after each finished point.
  std::function<void(const SweepCounts&, const Row&)> on_point;
};

// The points of `s` not yet in `db`, in expansion order; sets counts.points/stored/to_run.
std::vector<Point> pending_points(const Study& s, ResultsDb& db, SweepCounts& counts);

// Runs `todo` on opt.jobs threads, storing each row as it finishes. InterruptedError: the rows
// finished so far are committed, then it is rethrown.
SweepCounts run_sweep(const Study& s, ResultsDb& db, const std::vector<Point>& todo, SweepCounts counts,
                      const SweepOptions& opt);

}  // namespace simfa::study
