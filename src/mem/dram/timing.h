// DRAM timing constraints in command-clock cycles (tCK), JEDEC names. Values come from the
// `dram.timing.*` keys; docs/dram.md derives each preset's values from nanoseconds.
#pragma once
#include <cstdint>

namespace simfa::mem {

using DCycle = std::uint64_t;  // DRAM command-clock cycles (tCK), the DRAM's own clock domain

struct DramTiming {
  DCycle tCL = 17;      // RD to first read data
  DCycle tCWL = 9;      // WR to first write data
  DCycle tRCD_rd = 26;  // ACT to RD, same bank
  DCycle tRCD_wr = 13;  // ACT to WR, same bank
  DCycle tRP = 22;      // PRE to ACT (and to REF), same bank
  DCycle tRAS = 37;     // ACT to PRE, same bank
  DCycle tRC = 59;      // ACT to ACT, same bank
  DCycle tCCD_S = 2;    // column to column, different bank group (same pseudo-channel)
  DCycle tCCD_L = 4;    // column to column, same bank group
  DCycle tRRD_S = 4;    // ACT to ACT, different bank group
  DCycle tRRD_L = 5;    // ACT to ACT, same bank group
  DCycle tFAW = 20;     // at most four ACTs per pseudo-channel in any tFAW window
  DCycle tWR = 27;      // end of write data to PRE, same bank
  DCycle tRTP = 8;      // RD to PRE, same bank
  DCycle tWTR_S = 6;    // end of write data to RD, different bank group
  DCycle tWTR_L = 9;    // end of write data to RD, same bank group
  DCycle tRTRS = 2;     // data-bus turnaround from read data to write data
  DCycle tREFI = 5070;  // average refresh interval (all-bank); per-bank: tREFI / banks
  DCycle tRFC = 585;    // all-bank refresh cycle time
  DCycle tRFCpb = 260;  // per-bank refresh cycle time
  DCycle tBL = 2;       // data burst duration: burst_length / transfers_per_clock (derived)

  // RD to WR on the same pseudo-channel: read data must clear the bus before write data starts.
  DCycle rd_to_wr() const { return tCL + tBL + tRTRS > tCWL ? tCL + tBL + tRTRS - tCWL : 1; }
  // WR to RD: write data plus the write-to-read turnaround.
  DCycle wr_to_rd_s() const { return tCWL + tBL + tWTR_S; }
  DCycle wr_to_rd_l() const { return tCWL + tBL + tWTR_L; }
  // WR to PRE, same bank: write recovery after the last write data.
  DCycle wr_to_pre() const { return tCWL + tBL + tWR; }
};

}  // namespace simfa::mem
