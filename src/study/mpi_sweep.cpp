// MPI sweeps (see mpi_sweep.h). Messages: a worker sends its finished row (tag kResult; the first
// message, tag kReady, is empty) and receives the next point's index (kWork) or kStop.
#include "study/mpi_sweep.h"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "sim/error.h"

#ifdef SIMFA_HAVE_MPI
#include <mpi.h>
#endif

namespace simfa::study {

bool mpi_available() {
#ifdef SIMFA_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool mpi_launched() {
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
  if (launched && !mpi_available())
    throw UserError(
        "simfa sweep was started by an MPI launcher (mpirun, srun), but this simfa was built without MPI: every "
        "rank would run the whole study. Install libopenmpi-dev (scripts/install-deps) and rebuild, or run "
        "simfa sweep without the launcher (-j N uses this machine's cores)");
  return launched;
}

#ifdef SIMFA_HAVE_MPI
namespace {
constexpr int kReady = 1, kResult = 2, kWork = 3, kStop = 4;

void send_text(const std::string& s, int dest, int tag) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, dest, tag, MPI_COMM_WORLD);
}

void bcast_text(std::string& s) {
  long long n = static_cast<long long>(s.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  s.resize(static_cast<std::size_t>(n));
  MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
}
}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

void MpiSession::abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

void mpi_share_study(const Study* s) {
  int go = s ? 1 : 0;
  MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!go) return;
  std::string text = s->text, file = s->file;
  bcast_text(text);
  bcast_text(file);
}

SweepCounts mpi_sweep_master(MpiSession& mpi, ResultsDb& db, const std::vector<Point>& todo, SweepCounts counts,
                             const SweepOptions& opt) {
  std::size_t next = 0;
  int active = mpi.size() - 1;
  std::string buf;
  while (active > 0) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      try {
        if (opt.check_interrupt) opt.check_interrupt();
      } catch (const InterruptedError&) {
        db.flush();
        mpi.abort(130);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    buf.resize(static_cast<std::size_t>(n));
    MPI_Recv(buf.data(), n, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == kResult) {
      const Row row = Row::parse(buf);
      db.insert(row);
      ++counts.ran;
      if (row["status"] != "ok") ++counts.failed;
      if (opt.on_point) opt.on_point(counts, row);
    }
    if (next < todo.size()) {
      long long index = static_cast<long long>(todo[next++].index);
      MPI_Send(&index, 1, MPI_LONG_LONG, st.MPI_SOURCE, kWork, MPI_COMM_WORLD);
    } else {
      MPI_Send(nullptr, 0, MPI_LONG_LONG, st.MPI_SOURCE, kStop, MPI_COMM_WORLD);
      --active;
    }
  }
  db.flush();
  return counts;
}

bool mpi_sweep_worker(MpiSession& mpi, const SweepOptions& opt) {
  int go = 0;
  MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!go) return false;
  std::string text, file;
  bcast_text(text);
  bcast_text(file);
  const Study s = parse_study_text(text, file);
  const std::vector<Point> points = expand(s);
  EvalOptions eo;
  eo.poll = opt.poll;
  send_text("", 0, kReady);
  for (;;) {
    long long index = 0;
    MPI_Status st;
    MPI_Recv(&index, 1, MPI_LONG_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == kStop) break;
    if (index < 0 || static_cast<std::size_t>(index) >= points.size())
      throw InternalError("mpi_sweep_worker: a point index out of range");
    try {
      send_text(evaluate_point(s.name, points[static_cast<std::size_t>(index)], eo).dump(), 0, kResult);
    } catch (const InterruptedError&) {
      mpi.abort(130);
    }
  }
  return true;
}

#else  // no MPI in this build: nothing can call these (mpi_launched() refuses first)

MpiSession::MpiSession() { throw InternalError("MpiSession: simfa was built without MPI"); }
MpiSession::~MpiSession() = default;
void MpiSession::abort(int code) { std::exit(code); }
void mpi_share_study(const Study*) { throw InternalError("mpi_share_study: simfa was built without MPI"); }
SweepCounts mpi_sweep_master(MpiSession&, ResultsDb&, const std::vector<Point>&, SweepCounts, const SweepOptions&) {
  throw InternalError("mpi_sweep_master: simfa was built without MPI");
}
bool mpi_sweep_worker(MpiSession&, const SweepOptions&) {
  throw InternalError("mpi_sweep_worker: simfa was built without MPI");
}

#endif

}  // namespace simfa::study
