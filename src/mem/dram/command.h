// DRAM commands and the record of an issued command (the command log used by timing tests).
#pragma once
#include <cstdint>

#include "mem/dram/timing.h"

namespace simfa::mem {

enum class Cmd : std::uint8_t { Act, Pre, Rd, Wr, RefAb, RefPb };

inline const char* cmd_name(Cmd c) {
  switch (c) {
    case Cmd::Act:
      return "ACT";
    case Cmd::Pre:
      return "PRE";
    case Cmd::Rd:
      return "RD";
    case Cmd::Wr:
      return "WR";
    case Cmd::RefAb:
      return "REFab";
    case Cmd::RefPb:
      return "REFpb";
  }
  return "?";
}

inline bool is_column(Cmd c) { return c == Cmd::Rd || c == Cmd::Wr; }

struct CmdRecord {
  DCycle at = 0;  // DRAM cycle of issue
  std::uint32_t channel = 0;
  std::uint32_t pc = 0;
  Cmd cmd = Cmd::Act;
  std::uint32_t bank = 0;  // flat bank index within the pseudo-channel (REFab: 0)
  std::uint32_t row = 0;   // ACT: row opened; RD/WR: row accessed
};

}  // namespace simfa::mem
