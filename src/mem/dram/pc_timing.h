// Timing state of one pseudo-channel: per bank (open row, earliest ACT/PRE/RD/WR), per bank group
// (tCCD_L, tRRD_L, tWTR_L), per pseudo-channel (tCCD_S, tRRD_S, tWTR_S, bus turnaround, tFAW,
// refresh). earliest() is the first cycle at which a command satisfies every constraint, so a
// command at earliest() - 1 would violate one: tests hold each constraint tight to the cycle.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "mem/dram/command.h"
#include "mem/dram/timing.h"

namespace simfa::mem {

inline constexpr std::uint32_t kNoRow = 0xFFFFFFFFu;

struct BankState {
  std::uint32_t open_row = kNoRow;
  std::uint32_t columns_since_act = 0;  // column commands since the row was opened
  DCycle next_act = 0, next_pre = 0, next_rd = 0, next_wr = 0;
};

class PcTiming {
 public:
  PcTiming(const DramTiming& t, std::uint32_t bank_groups, std::uint32_t banks_per_group);

  // First DRAM cycle at which `c` to `bank` satisfies the timing constraints (REFab: bank ignored;
  // it also requires every bank closed, which the caller checks with all_closed()).
  DCycle earliest(Cmd c, std::uint32_t bank) const {
    switch (c) {
      case Cmd::Act: {
        const BankState& b = banks_[bank];
        DCycle e = std::max({b.next_act, groups_[group_of(bank)].next_act, next_act_});
        if (acts_ >= 4) e = std::max(e, act_window_[acts_ % 4] + t_.tFAW);  // oldest of four
        return e;
      }
      case Cmd::Pre:
        return banks_[bank].next_pre;
      case Cmd::Rd:
        return std::max({banks_[bank].next_rd, groups_[group_of(bank)].next_rd, next_rd_});
      case Cmd::Wr:
        return std::max({banks_[bank].next_wr, groups_[group_of(bank)].next_wr, next_wr_});
      case Cmd::RefAb:
        return std::max(next_ref_, next_act_);
      case Cmd::RefPb:
        return banks_[bank].next_act;
    }
    return 0;
  }
  // Records `c` issued at cycle `at`; the caller has checked earliest(c, bank) <= at and the row
  // state (ACT to a closed bank, RD/WR/PRE to an open one).
  void issue(Cmd c, std::uint32_t bank, std::uint32_t row, DCycle at);

  const BankState& bank(std::uint32_t b) const { return banks_[b]; }
  std::uint32_t group_of(std::uint32_t bank) const {
    return group_shift_ >= 0 ? bank >> group_shift_ : bank / banks_per_group_;
  }
  bool all_closed() const { return open_banks_ == 0; }
  const DramTiming& timing() const { return t_; }

 private:
  struct GroupState {
    DCycle next_act = 0, next_rd = 0, next_wr = 0;
  };
  static void raise(DCycle& v, DCycle x) { v = v < x ? x : v; }

  DramTiming t_;
  std::uint32_t banks_per_group_;
  int group_shift_;  // log2(banks_per_group) when a power of two, else -1
  std::vector<BankState> banks_;
  std::vector<GroupState> groups_;
  DCycle next_act_ = 0, next_rd_ = 0, next_wr_ = 0, next_ref_ = 0;
  std::array<DCycle, 4> act_window_{};  // last four ACT cycles, ring buffer (tFAW)
  std::uint32_t acts_ = 0;              // ACTs issued (how much of the ring is valid)
  std::uint64_t open_banks_ = 0;        // bit b set while bank b has an open row
};

}  // namespace simfa::mem
