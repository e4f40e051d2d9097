// Refresh of one pseudo-channel, as a scheduled deadline (never polled): at `due` the refresh
// becomes pending, which reserves the banks it needs (all of them for REFab, one for REFpb); the
// channel then precharges them and issues the REF, which sets the next deadline one interval later
// (tREFI for all-bank, tREFI / banks for per-bank with a round-robin bank). Deadlines are
// staggered over the pseudo-channels of the whole DRAM so they do not all refresh together.
// Simplifications (docs/dram.md): no postponing or pulling in of refreshes, no tRREFD.
#pragma once
#include <cstdint>

#include "mem/dram/command.h"
#include "mem/dram/params.h"
#include "mem/dram/pc_timing.h"
#include "mem/dram/scheduler.h"

namespace simfa::mem {

class Refresh {
 public:
  Refresh(RefreshMode mode, const DramTiming& t, std::uint32_t banks, std::uint32_t pc_index,
          std::uint32_t total_pcs)
      : mode_(mode), banks_(banks) {
    interval_ = mode == RefreshMode::AllBank ? t.tREFI : t.tREFI / banks;
    const std::uint64_t stagger = static_cast<std::uint64_t>(pc_index) * interval_ / total_pcs;
    due_ = mode == RefreshMode::Off ? kNeverD : interval_ + stagger;
  }

  // Deadline of the next refresh that is not yet pending (kNeverD when pending or off).
  DCycle due() const { return pending_ ? kNeverD : due_; }
  bool pending() const { return pending_; }
  // Makes the refresh pending once its deadline has passed.
  void update(DCycle at) {
    if (!pending_ && at >= due_) pending_ = true;
  }
  // Banks reserved by the pending refresh.
  std::uint64_t blocked() const {
    if (!pending_) return 0;
    if (mode_ == RefreshMode::PerBank) return 1ULL << target_;
    return banks_ >= 64 ? ~0ULL : (1ULL << banks_) - 1;
  }
  // The refresh's next command (PRE of a reserved open bank, then REF) and when timing allows it.
  struct Step {
    Cmd cmd;
    std::uint32_t bank;
    DCycle ready;
  };
  Step step(const PcTiming& tm) const {
    if (mode_ == RefreshMode::PerBank) {
      if (tm.bank(target_).open_row != kNoRow)
        return {Cmd::Pre, target_, tm.earliest(Cmd::Pre, target_)};
      return {Cmd::RefPb, target_, tm.earliest(Cmd::RefPb, target_)};
    }
    Step s{Cmd::RefAb, 0, kNeverD};
    for (std::uint32_t b = 0; b < banks_; ++b)  // the open bank that can close first
      if (tm.bank(b).open_row != kNoRow && tm.earliest(Cmd::Pre, b) < s.ready)
        s = {Cmd::Pre, b, tm.earliest(Cmd::Pre, b)};
    if (s.cmd == Cmd::RefAb) s.ready = tm.earliest(Cmd::RefAb, 0);
    return s;
  }
  // Called when the REF has issued.
  void done() {
    pending_ = false;
    due_ += interval_;
    if (mode_ == RefreshMode::PerBank) target_ = (target_ + 1) % banks_;
  }
  DCycle interval() const { return interval_; }
  // Sampled simulation's spans (Dram::quiet_until): the refreshes due before `until` of an idle
  // pseudo-channel are skipped and counted instead of simulated; returns how many. The caller
  // checks that nothing waits and every bank is closed (a REF then changes no row state).
  std::uint64_t skip_before(DCycle until) {
    if (pending_ || mode_ == RefreshMode::Off || due_ >= until) return 0;
    const std::uint64_t m = (until - due_ + interval_ - 1) / interval_;
    due_ += m * interval_;
    if (mode_ == RefreshMode::PerBank) target_ = static_cast<std::uint32_t>((target_ + m) % banks_);
    return m;
  }

 private:
  RefreshMode mode_;
  std::uint32_t banks_;
  DCycle interval_ = 0;
  DCycle due_ = kNeverD;
  std::uint32_t target_ = 0;
  bool pending_ = false;
};

}  // namespace simfa::mem
