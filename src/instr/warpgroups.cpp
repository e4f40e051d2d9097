// WarpGroup deduplication: per block and WarpGroup pick the longest warp stream, compare the
// others to it entry by entry on (event, stage, payload), classify the role by event kind.
#include "instr/warpgroups.h"

#include <algorithm>

#include "instr/error.h"

namespace simfa::instr {

const char* role_name(WgRole r) {
  switch (r) {
    case WgRole::Producer:
      return "producer";
    case WgRole::Consumer:
      return "consumer";
    default:
      return "idle";
  }
}

namespace {

constexpr std::uint32_t kWarpsPerWg = 4;

bool same_event(const Entry& a, const Entry& b) {
  return a.event == b.event && a.stage == b.stage && a.payload == b.payload;
}

bool is_producer_event(std::uint16_t e) {
  return e == SIMFA_EV_TMA_Q_ISSUE || e == SIMFA_EV_TMA_K_ISSUE || e == SIMFA_EV_TMA_V_ISSUE;
}
bool is_consumer_event(std::uint16_t e) {
  return e >= SIMFA_EV_WAIT_K_START && e <= SIMFA_EV_WAIT_WG_0;
}

std::string describe(const Entry& e) {
  const char* n = simfa_evlog_event_name(e.event);
  return std::string(n ? n : "?") + " stage " + std::to_string(e.stage) + " payload " +
         std::to_string(e.payload);
}

}  // namespace

DedupResult dedupe_warpgroups(const EventLog& log) {
  DedupResult out;
  const std::uint32_t wpb = log.warps_per_block();
  const std::uint32_t n_wg = (wpb + kWarpsPerWg - 1) / kWarpsPerWg;
  const std::uint64_t n_blocks = log.num_blocks();
  out.ctas.resize(n_blocks);
  std::uint64_t disagreements = 0;
  for (std::uint64_t b = 0; b < n_blocks; ++b) {
    CtaStreams& cta = out.ctas[b];
    cta.block = b;
    cta.wgs.resize(n_wg);
    for (std::uint32_t g = 0; g < n_wg; ++g) {
      WgStream& s = cta.wgs[g];
      s.wg = g;
      const std::uint32_t first = g * kWarpsPerWg;
      const std::uint32_t last = std::min(first + kWarpsPerWg, wpb);
      std::uint32_t rep = first;
      for (std::uint32_t w = first; w < last; ++w)
        if (log.warp(b, w).entries.size() > log.warp(b, rep).entries.size()) rep = w;
      const WarpLog& r = log.warp(b, rep);
      for (std::uint32_t w = first; w < last; ++w) {
        const WarpLog& o = log.warp(b, w);
        if (w == rep || o.entries.empty()) continue;
        const bool short_ok = o.overflow || o.entries.size() == r.entries.size();
        std::size_t i = 0;
        while (i < o.entries.size() && same_event(o.entries[i], r.entries[i])) ++i;
        if (i == o.entries.size() && short_ok) continue;
        if (disagreements++ < 4) {
          std::string what = i < o.entries.size()
                                 ? "entry " + std::to_string(i) + " is " + describe(o.entries[i]) +
                                       " vs " + describe(r.entries[i])
                                 : "it has " + std::to_string(o.entries.size()) + " entries vs " +
                                       std::to_string(r.entries.size()) + " (no overflow)";
          out.warnings.push_back(log.source + ": block " + std::to_string(b) + " WarpGroup " +
                                 std::to_string(g) + ": warp " + std::to_string(w) +
                                 " disagrees with warp " + std::to_string(rep) + ": " + what +
                                 "; using warp " + std::to_string(rep));
        }
      }
      s.representative = rep;
      s.truncated = r.overflow;
      s.events = r.entries;
      bool prod = false, cons = false;
      for (const Entry& e : s.events) {
        prod = prod || is_producer_event(e.event);
        cons = cons || is_consumer_event(e.event);
      }
      if (prod && cons)
        throw_log_error(log.source, "block " + std::to_string(b) + " WarpGroup " +
                                        std::to_string(g) +
                                        " records both producer (TMA_*_ISSUE) and consumer "
                                        "(WAIT/GEMM) events; not a warp-specialised kernel");
      s.role = prod ? WgRole::Producer : cons ? WgRole::Consumer : WgRole::Idle;
    }
  }
  if (disagreements > 4)
    out.warnings.push_back(log.source + ": " + std::to_string(disagreements - 4) +
                           " more WarpGroup disagreements not listed");
  return out;
}

}  // namespace simfa::instr
