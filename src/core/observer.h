// Hook for timelines: the core reports spans of time per (SM, CTA, WarpGroup) to an observer when
// one is attached. Spans are reported when they end; nothing is recorded when no observer is set.
#pragma once
#include <cstdint>

#include "sim/types.h"

namespace simfa::core {

enum class SpanKind : std::uint8_t {
  Bubble,          // CUDA-core work (softmax etc.)
  WaitStage,       // MB_WAIT: waiting for a TMA fill
  WaitAcquire,     // ACQUIRE_STAGE: waiting for consumers to release a slot
  WaitBarrier,     // BAR_WAIT
  WaitWgmma,       // WGMMA_WAIT
  WaitTmaStore,    // TMA_WAIT
  WaitTmaQueue,    // TMA request queue full
  WaitWgmmaBuffer, // WGMMA issue buffer full
  WaitLoad,        // LDG
  TmaLoad,         // a TMA load from issue to completion (id = stage)
  TmaStore,        // a TMA store from issue to completion (id = group)
  WgmmaGroup,      // a WGMMA group from its first WGMMA's start to its completion (id = group)
  Cta,             // a CTA from dispatch to retirement
  kCount
};

const char* span_name(SpanKind k);

struct Span {
  SpanKind kind;
  std::uint16_t sm;
  std::uint8_t wg;
  std::uint16_t id;
  std::uint32_t cta;
  Cycle start, end;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual bool wants(std::uint16_t sm) const = 0;
  virtual void span(const Span& s) = 0;
};

}  // namespace simfa::core
