// First step of translating a log (paper §5.2): fold the per-warp event streams of each CTA into
// one stream per WarpGroup (4 consecutive warps) and tell producers from consumers.
//
// Contract: for each WarpGroup the warp with the most entries is the representative; its entries
// (with its timestamps) become the WarpGroup's stream. Every other warp of the group must have
// recorded nothing (FA3's producer issues from one elected warp) or the same (event, stage,
// payload) sequence, possibly cut short by its own overflow; a disagreement is a warning and the
// representative wins. A stream is `truncated` when the representative overflowed: events after
// its last entry are missing, which a translator must report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instr/event_log.h"

namespace simfa::instr {

enum class WgRole : std::uint8_t {
  Idle,      // recorded nothing, or only bookkeeping events
  Producer,  // TMA_Q/K/V_ISSUE
  Consumer,  // WAIT_*, GEMM_*, WAIT_WG_*
};
const char* role_name(WgRole r);

struct WgStream {
  std::uint32_t wg = 0;              // WarpGroup index within the CTA
  std::uint32_t representative = 0;  // warp within the block whose entries were kept
  WgRole role = WgRole::Idle;
  bool truncated = false;
  std::vector<Entry> events;
};

struct CtaStreams {
  std::uint64_t block = 0;
  std::vector<WgStream> wgs;  // ceil(warps_per_block / 4), in WarpGroup order
};

struct DedupResult {
  std::vector<CtaStreams> ctas;  // one per block, in linear block order
  std::vector<std::string> warnings;
};

// Folds `log` into WarpGroup streams. Throws UserError when a WarpGroup mixes producer and
// consumer events (the log cannot come from a warp-specialised kernel).
DedupResult dedupe_warpgroups(const EventLog& log);

}  // namespace simfa::instr
