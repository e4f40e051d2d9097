// The per-WarpGroup programs of one FA3 CTA, written as coroutines that follow the FA3 source
// step by step (fa3-kernel.md §2-§6; the mapping is in docs/fa3-workload.md).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "trace/isa.h"
#include "workload/emitter.h"
#include "workload/fa3_kernel.h"
#include "workload/sampler.h"
#include "workload/step_gen.h"
#include "workload/tile_scheduler.h"

namespace simfa::workload {

// Everything the programs of every CTA share; immutable once built.
struct Fa3Plan {
  Fa3Kernel k;
  Fa3Emitter em;
  TileSchedule sched;
  explicit Fa3Plan(Fa3Kernel kernel) : k(std::move(kernel)), em(k), sched(k) {}
  Fa3Plan(const Fa3Plan&) = delete;
  Fa3Plan& operator=(const Fa3Plan&) = delete;
};

// The producer WarpGroup (warp 0's elected lane issues every load) of CTA `cta`. With a sampler
// (sampled simulation, may be null) the programs skip the blocks it fast-forwards.
StepGen producer_program(std::shared_ptr<const Fa3Plan> plan, std::uint32_t cta,
                         std::vector<trace::Instr>* out, Fa3Sampler* smp = nullptr);
// Consumer WarpGroup `wg` (0-based among the consumers) of CTA `cta`.
StepGen consumer_program(std::shared_ptr<const Fa3Plan> plan, std::uint32_t cta, int wg,
                         std::vector<trace::Instr>* out, Fa3Sampler* smp = nullptr);

}  // namespace simfa::workload
