// Local sweeps: worker threads take the next pending point; each finished row is stored at once.
#include "study/sweep.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/error.h"
#include "sim/threads.h"

namespace simfa::study {

std::vector<Point> pending_points(const Study& s, ResultsDb& db, SweepCounts& counts) {
  std::vector<Point> all = expand(s);
  const std::set<std::string> done = db.done_keys(s.name);
  std::vector<Point> todo;
  for (auto& p : all)
    if (!done.count(p.key)) todo.push_back(std::move(p));
  counts.points = all.size();
  counts.to_run = todo.size();
  counts.stored = counts.points - counts.to_run;
  return todo;
}

SweepCounts run_sweep(const Study& s, ResultsDb& db, const std::vector<Point>& todo, SweepCounts counts,
                      const SweepOptions& opt) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::exception_ptr error;
  EvalOptions eo;
  eo.poll = opt.poll;
  auto work = [&] {
    for (;;) {
      if (stop) return;
      const std::size_t i = next++;
      if (i >= todo.size()) return;
      try {
        if (opt.check_interrupt) opt.check_interrupt();
        const Row row = evaluate_point(s.name, todo[i], eo);
        std::lock_guard<std::mutex> lock(mu);
        db.insert(row);
        ++counts.ran;
        if (row["status"] != "ok") ++counts.failed;
        if (opt.on_point) opt.on_point(counts, row);
      } catch (...) {  // InterruptedError, or the database failing: stop every worker
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        stop = true;
        return;
      }
    }
  };
  run_workers(opt.jobs, todo.size(), work);
  db.flush();
  if (error) std::rethrow_exception(error);
  return counts;
}

}  // namespace simfa::study
