// Running independent tasks on a few threads: `work` is started on min(jobs, tasks) threads (at
// least one; on the calling thread alone when that is one) and each call takes tasks from a shared
// counter of its own until none is left. Used by validate, ablate and sweep.
#pragma once
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace simfa {

template <class Work>
void run_workers(unsigned jobs, std::size_t tasks, Work&& work) {
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, jobs), std::max<std::size_t>(tasks, 1)));
  if (threads <= 1) {
    work();
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
}

}  // namespace simfa
