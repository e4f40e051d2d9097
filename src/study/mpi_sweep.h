// `mpirun -n N simfa sweep ...` (and `srun`): rank 0 reads the study, opens the database, hands
// point indices out one at a time to ranks 1..N-1 as they ask, and stores the rows they send back;
// it is the only rank that touches the database. Every rank needs the simfa binary and the GPU
// files the study names; the study's text travels from rank 0. Built only when CMake finds MPI
// (Debian: libopenmpi-dev); without it, a run under an MPI launcher is refused rather than run N
// times over.
#pragma once
#include <functional>
#include <string>

#include "study/sweep.h"

namespace simfa::study {

// True when an MPI launcher started this process (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK set
// by mpirun, mpiexec or srun). With no MPI in the build, UserError: it would run every point on
// every rank.
bool mpi_launched();
bool mpi_available();  // the build has MPI

// One MPI session: MPI_Init on construction, MPI_Finalize on destruction.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ends every rank at once (a broken sweep; Ctrl-C on rank 0).
  [[noreturn]] void abort(int code);

 private:
  int rank_ = 0, size_ = 1;
};

// Rank 0, after its checks: tells the workers whether to go on (`s` null: stop, the error is rank
// 0's to print) and, when they go, sends them the study.
void mpi_share_study(const Study* s);
// Rank 0: runs `todo` on ranks 1..N-1 (N >= 2) and stores the rows. Calls opt.on_point per row
// and opt.check_interrupt while it waits.
SweepCounts mpi_sweep_master(MpiSession& mpi, ResultsDb& db, const std::vector<Point>& todo, SweepCounts counts,
                             const SweepOptions& opt);
// Ranks 1..N-1: receives the study (false: rank 0 stopped before the sweep) and evaluates the
// points it is handed until told to stop.
bool mpi_sweep_worker(MpiSession& mpi, const SweepOptions& opt);

}  // namespace simfa::study
