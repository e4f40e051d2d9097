// Internal: per-WarpGroup translation of one CTA's deduplicated event streams (wg_translate.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "instr/event_log.h"
#include "instr/warpgroups.h"
#include "trace/isa.h"
#include "translate/fa3_log_source.h"
#include "workload/emitter.h"
#include "workload/tile_scheduler.h"

namespace simfa::translate {

// What every WarpGroup translator of a log shares (immutable).
struct TranslateCtx {
  const instr::EventLog* log = nullptr;
  const workload::Fa3Kernel* k = nullptr;
  const workload::Fa3Emitter* em = nullptr;
  const workload::TileSchedule* sched = nullptr;
  BubbleMode bubbles = BubbleMode::Model;
  double cycles_per_tick = 1.0;  // measured bubbles: simulated SM cycles per log clock tick
};

// One K or V load of the producer: ring stage and KV tile index, in issue order.
struct Load {
  std::uint16_t stage = 0;
  std::uint16_t n = 0;
  std::uint64_t ts = 0;  // timestamp of the TMA_*_ISSUE (one CTA runs on one SM: same clock)
};
struct ProducerLoads {
  std::vector<Load> k, v;
};

struct WgResult {
  std::vector<trace::Instr> code;
  std::uint64_t events = 0;
  std::uint64_t measured_bubbles = 0;
};

// The producer WarpGroup (WarpGroup 0) of CTA `cta`; fills `loads` for the consumers' checks.
WgResult translate_producer(const TranslateCtx& x, std::uint32_t cta, const instr::WgStream& s,
                            ProducerLoads& loads);
// Consumer `c` (0-based; WarpGroup c + 1) of CTA `cta`.
WgResult translate_consumer(const TranslateCtx& x, std::uint32_t cta, int c, const instr::WgStream& s,
                            const ProducerLoads& loads);

}  // namespace simfa::translate
