// PcTiming: each issued command raises the "earliest next" cycle of the commands it constrains at
// the bank, bank-group and pseudo-channel level; earliest() takes the maximum over the levels a
// command touches, plus the four-activate window.
#include "mem/dram/pc_timing.h"

#include <algorithm>
#include <bit>

namespace simfa::mem {

PcTiming::PcTiming(const DramTiming& t, std::uint32_t bank_groups, std::uint32_t banks_per_group)
    : t_(t),
      banks_per_group_(banks_per_group),
      group_shift_(std::has_single_bit(banks_per_group) ? std::countr_zero(banks_per_group) : -1),
      banks_(bank_groups * banks_per_group),
      groups_(bank_groups) {}

void PcTiming::issue(Cmd c, std::uint32_t bank, std::uint32_t row, DCycle at) {
  switch (c) {
    case Cmd::Act: {
      BankState& b = banks_[bank];
      b.open_row = row;
      b.columns_since_act = 0;
      open_banks_ |= 1ULL << bank;
      raise(b.next_rd, at + t_.tRCD_rd);
      raise(b.next_wr, at + t_.tRCD_wr);
      raise(b.next_pre, at + t_.tRAS);
      raise(b.next_act, at + t_.tRC);
      raise(groups_[group_of(bank)].next_act, at + t_.tRRD_L);
      raise(next_act_, at + t_.tRRD_S);
      act_window_[acts_ % 4] = at;
      ++acts_;
      break;
    }
    case Cmd::Pre: {
      BankState& b = banks_[bank];
      b.open_row = kNoRow;
      open_banks_ &= ~(1ULL << bank);
      raise(b.next_act, at + t_.tRP);
      raise(next_ref_, at + t_.tRP);
      break;
    }
    case Cmd::Rd: {
      BankState& b = banks_[bank];
      GroupState& g = groups_[group_of(bank)];
      ++b.columns_since_act;
      raise(b.next_pre, at + t_.tRTP);
      raise(g.next_rd, at + t_.tCCD_L);
      raise(g.next_wr, at + std::max(t_.tCCD_L, t_.rd_to_wr()));
      raise(next_rd_, at + t_.tCCD_S);
      raise(next_wr_, at + std::max(t_.tCCD_S, t_.rd_to_wr()));
      break;
    }
    case Cmd::Wr: {
      BankState& b = banks_[bank];
      GroupState& g = groups_[group_of(bank)];
      ++b.columns_since_act;
      raise(b.next_pre, at + t_.wr_to_pre());
      raise(g.next_wr, at + t_.tCCD_L);
      raise(g.next_rd, at + t_.wr_to_rd_l());
      raise(next_wr_, at + t_.tCCD_S);
      raise(next_rd_, at + t_.wr_to_rd_s());
      break;
    }
    case Cmd::RefAb:
      raise(next_act_, at + t_.tRFC);
      raise(next_ref_, at + t_.tRFC);
      break;
    case Cmd::RefPb:
      raise(banks_[bank].next_act, at + t_.tRFCpb);
      break;
  }
}

}  // namespace simfa::mem
