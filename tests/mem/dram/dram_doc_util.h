// Test helpers shared by the DRAM tests and the hierarchy's HBM tests: the preset blocks of
// docs/dram.md, and hardware.md's HBM3 nanosecond timing table at a given tCK.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "mem/dram/params.h"

namespace simfa::mem::test {

// TOML blocks of docs/dram.md keyed by their first line ("# dram section of configs/gpu/X.toml").
// The including target defines SIMFA_SOURCE_DIR.
inline std::map<std::string, std::string> doc_blocks() {
  std::ifstream in(std::string(SIMFA_SOURCE_DIR) + "/docs/dram.md");
  std::map<std::string, std::string> blocks;
  std::string line, key, text;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```toml") {
      inside = true;
      key.clear();
      text.clear();
    } else if (inside && line == "```") {
      inside = false;
      blocks[key] = text;
    } else if (inside) {
      if (key.empty()) key = line;
      text += line + "\n";
    }
  }
  return blocks;
}

// Every nanosecond timing of hardware.md's HBM3 table, converted at `tck` ns per cycle.
inline void expect_hbm3_ns_table(const DramParams& p, double tck) {
  EXPECT_EQ(p.t.tCL, ns_to_tck(12.5, tck));
  EXPECT_EQ(p.t.tRCD_rd, ns_to_tck(19.375, tck));
  EXPECT_EQ(p.t.tRCD_wr, ns_to_tck(9.375, tck));
  EXPECT_EQ(p.t.tRP, ns_to_tck(16.25, tck));
  EXPECT_EQ(p.t.tRAS, ns_to_tck(28.125, tck));
  EXPECT_EQ(p.t.tRC, ns_to_tck(45, tck));
  EXPECT_EQ(p.t.tCWL, ns_to_tck(6.25, tck));
  EXPECT_EQ(p.t.tRRD_S, ns_to_tck(2.5, tck));
  EXPECT_EQ(p.t.tRRD_L, ns_to_tck(3.125, tck));
  EXPECT_EQ(p.t.tFAW, ns_to_tck(15, tck));
  EXPECT_EQ(p.t.tWR, ns_to_tck(20.625, tck));
  EXPECT_EQ(p.t.tRTP, ns_to_tck(5.625, tck));
  EXPECT_EQ(p.t.tWTR_S, ns_to_tck(4.375, tck));
  EXPECT_EQ(p.t.tWTR_L, ns_to_tck(6.25, tck));
  EXPECT_EQ(p.t.tREFI, ns_to_tck(3900, tck));
  EXPECT_EQ(p.t.tRFC, ns_to_tck(450, tck));
  EXPECT_EQ(p.t.tRFCpb, ns_to_tck(200, tck));
}

}  // namespace simfa::mem::test
