// `simfa sweep`: every point of a design study (docs/studies.md) into a results database, locally on
// N threads or across MPI ranks; resumable. `--csv` exports the database.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/progress.h"
#include "cli/report_cmds.h"
#include "sim/error.h"
#include "sim/files.h"
#include "study/db.h"
#include "study/mpi_sweep.h"
#include "study/sweep.h"

namespace simfa::cli {
namespace {

struct SweepArgs {
  std::string study, db, csv, export_study;
  unsigned jobs = 0;
  bool yes = false, retry_failed = false;
};

std::string duration_text(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{}m{:02d}s", int(s / 60), int(s) % 60);
  return fmt::format("{}h{:02d}m", int(s / 3600), int(s / 60) % 60);
}

// The progress line (stderr, when it is a terminal) and the summary of failed points.
class SweepProgress {
 public:
  explicit SweepProgress(std::string name)
      : name_(std::move(name)), tty_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}
  ~SweepProgress() { clear(); }
  // The line before the first point finishes (a point may take minutes).
  void start(const study::SweepCounts& c) {
    if (!tty_ || c.to_run == 0) return;
    std::fputs(fmt::format("\r\033[Ksweep {}: {}/{} points, running {}", name_, c.stored, c.points,
                           c.to_run == 1 ? "the last one" : "the first ones").c_str(),
               stderr);
    std::fflush(stderr);
    shown_ = true;
  }
  void point(const study::SweepCounts& c, const study::Row& row) {
    if (row["status"] != "ok" && first_failure_.empty())
      first_failure_ = fmt::format("point {} ({}): {}: {}", row["point_index"].get<std::size_t>(),
                                   row["point_key"].get<std::string>(), row["status"].get<std::string>(),
                                   row["message"].get<std::string>());
    if (!tty_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string left;
    if (c.ran > 0 && c.ran < c.to_run)
      left = fmt::format(", about {} left", duration_text(elapsed / double(c.ran) * double(c.to_run - c.ran)));
    const std::string line = fmt::format("\r\033[Ksweep {}: {}/{} points{}, {} elapsed{}", name_, c.stored + c.ran,
                                         c.points, c.failed ? fmt::format(" ({} failed)", c.failed) : "",
                                         duration_text(elapsed), left);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  const std::string& first_failure() const { return first_failure_; }

 private:
  std::string name_;
  bool tty_, shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::string first_failure_;
};

// Parses and checks the study, says how many points it has, and refuses a study over its limit
// without --yes.
study::Study prepare(const SweepArgs& a) {
  study::Study s = study::parse_study(a.study);
  const double n = study::count_points(s);
  std::string gpus;
  for (const auto& g : s.gpus) gpus += (gpus.empty() ? "" : ", ") + g.text;
  std::cerr << fmt::format("study {}: {:.0f} points ({}; {})\n", s.name, n, gpus,
                           s.simulate && s.analyze ? "simulate and analyze" : s.simulate ? "simulate" : "analyze");
  if (n > double(s.max_points) && !a.yes)
    user_error("{}: {:.0f} points, more than the study's limit of {} (max_points): run with --yes to go ahead", a.study,
               n, s.max_points);
  return s;
}

void summary(const study::Study& s, const study::SweepCounts& c, const SweepProgress& prog, const std::string& db) {
  std::cerr << fmt::format("study {}: {} point{} ran in {}{}; {} of {} stored in {}\n", s.name, c.ran, c.ran == 1 ? "" : "s",
                           duration_text(prog.elapsed()), c.failed ? fmt::format(", {} failed", c.failed) : "",
                           c.stored + c.ran, c.points, db);
  if (!prog.first_failure().empty())
    std::cerr << fmt::format("first failure: {}\n(every failed point's status and message are in the database: "
                             "select point_index, status, message from points where status != 'ok')\n",
                             prog.first_failure());
}

void forget_failed(const SweepArgs& a, const study::Study& s, study::ResultsDb& db) {
  if (!a.retry_failed) return;
  const std::size_t n = db.forget_failed(s.name);
  std::cerr << fmt::format("study {}: {} failed point{} to run again\n", s.name, n, n == 1 ? "" : "s");
}

void export_csv(const SweepArgs& a, study::ResultsDb& db) {
  if (a.csv.empty()) return;
  OutputFile out(a.csv);
  db.export_csv(out.stream(), a.export_study);
  out.commit();
}

void sweep_local(const SweepArgs& a) {
  if (a.study.empty()) {  // export only
    study::ResultsDb db(a.db, /*create=*/false);
    export_csv(a, db);
    return;
  }
  const study::Study s = prepare(a);
  study::ResultsDb db(a.db, /*create=*/true);
  db.begin_study(s, study::count_points(s));
  forget_failed(a, s, db);
  study::SweepCounts counts;
  const std::vector<study::Point> todo = study::pending_points(s, db, counts);
  if (counts.stored)
    std::cerr << fmt::format("study {}: {} points already in {}, {} to run\n", s.name, counts.stored, a.db,
                             counts.to_run);
  SweepProgress prog(s.name);
  study::SweepOptions opt;
  opt.jobs = a.jobs ? a.jobs : default_jobs();
  opt.check_interrupt = check_interrupted;
  opt.poll = interrupt_poll();
  opt.on_point = [&](const study::SweepCounts& c, const study::Row& row) { prog.point(c, row); };
  prog.start(counts);
  try {
    counts = study::run_sweep(s, db, todo, counts, opt);
  } catch (const InterruptedError&) {
    prog.clear();
    throw InterruptedError(fmt::format("interrupted (Ctrl-C): every finished point is stored in {}; simfa sweep {} "
                                       "--db {} again runs only the rest",
                                       a.db, a.study, a.db));
  }
  prog.clear();
  summary(s, counts, prog, a.db);
  export_csv(a, db);
}

// Under mpirun / srun: rank 0 checks, stores and hands out points; the other ranks evaluate them.
int sweep_mpi(const SweepArgs& a) {
  study::MpiSession mpi;
  if (mpi.size() == 1) {
    sweep_local(a);
    return 0;
  }
  study::SweepOptions opt;
  opt.check_interrupt = check_interrupted;
  opt.poll = interrupt_poll();
  if (mpi.rank() != 0) {
    try {
      return study::mpi_sweep_worker(mpi, opt) ? 0 : 2;
    } catch (const std::exception& e) {  // rank 0 would wait for this rank for ever: end them all
      std::cerr << fmt::format("simfa: error on MPI rank {}: {}\n", mpi.rank(), e.what());
      mpi.abort(dynamic_cast<const UserError*>(&e) ? 2 : 1);
    }
  }
  std::unique_ptr<study::Study> s;
  std::unique_ptr<study::ResultsDb> db;
  study::SweepCounts counts;
  std::vector<study::Point> todo;
  try {
    if (a.study.empty()) user_error("--csv without a study: run the export without mpirun");
    s = std::make_unique<study::Study>(prepare(a));
    db = std::make_unique<study::ResultsDb>(a.db, /*create=*/true);
    db->begin_study(*s, study::count_points(*s));
    forget_failed(a, *s, *db);
    todo = study::pending_points(*s, *db, counts);
  } catch (...) {
    study::mpi_share_study(nullptr);  // the workers stop; this rank reports the error
    throw;
  }
  study::mpi_share_study(s.get());
  std::cerr << fmt::format("study {}: {} points to run on {} MPI ranks ({} stored already)\n", s->name, counts.to_run,
                           mpi.size() - 1, counts.stored);
  SweepProgress prog(s->name);
  opt.on_point = [&](const study::SweepCounts& c, const study::Row& row) { prog.point(c, row); };
  prog.start(counts);
  try {
    counts = study::mpi_sweep_master(mpi, *db, todo, counts, opt);
  } catch (const std::exception& e) {  // the workers wait for rank 0: end them all
    prog.clear();
    std::cerr << fmt::format("simfa: error on MPI rank 0: {}\n", e.what());
    mpi.abort(dynamic_cast<const UserError*>(&e) ? 2 : 1);
  }
  prog.clear();
  summary(*s, counts, prog, a.db);
  export_csv(a, *db);
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sweep", "run every point of a design study (a TOML file: GPUs x overrides x variants x shapes; simulate "
               "and/or analyze) into an SQLite results database; resumable, parallel, MPI across nodes");
  auto a = std::make_shared<SweepArgs>();
  cmd->add_option("study", a->study, "the study file (docs/studies.md); leave out to only export --db with --csv")
      ->type_name("STUDY.toml");
  cmd->add_option("--db", a->db, "the results database (SQLite; created when missing, points already in it are "
                                 "skipped)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("-j,--jobs", a->jobs, "points run at once on this machine (default: every core); under mpirun, "
                                        "one per rank")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_flag("--yes", a->yes, "run a study with more points than its max_points");
  cmd->add_flag("--retry-failed", a->retry_failed, "run again the study's points stored with a status other than ok "
                                                    "(after a fix, or with other overrides of the same key)");
  cmd->add_option("--csv", a->csv, "after the sweep (or alone, without a study), write every column of the "
                                   "database's points but json to FILE")
      ->check(output_file());
  cmd->add_option("--study", a->export_study, "with --csv: only this study's points")->type_name("NAME");
  cmd->footer(
      "Examples:\n"
      "  simfa sweep examples/studies/fig9-dram.toml --db results.sqlite\n"
      "  mpirun -n 8 simfa sweep study.toml --db results.sqlite     (rank 0 writes, 7 ranks simulate)\n"
      "  simfa sweep --db results.sqlite --csv results.csv\n"
      "  simfa report results.sqlite -o report.html\n"
      "pandas: pd.read_sql('select * from points', sqlite3.connect('results.sqlite')). docs/studies.md.");
  cmd->callback([a] {
    if (a->study.empty() && a->csv.empty())
      user_error("simfa sweep: give a study file to run, or --csv FILE to export the database");
    if (!a->export_study.empty() && a->csv.empty()) user_error("--study {}: it selects what --csv exports", a->export_study);
    if (a->retry_failed && a->study.empty()) user_error("--retry-failed: give the study whose failed points to run again");
    if (study::mpi_launched()) {
      if (const int rc = sweep_mpi(*a); rc != 0) std::exit(rc);
      return;
    }
    sweep_local(*a);
  });
}

}  // namespace simfa::cli
