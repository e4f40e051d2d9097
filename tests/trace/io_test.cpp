// Text format: reading, writing, exact round trips, directories.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/error.h"
#include "trace/io.h"

namespace simfa::trace {
namespace {

const char* kCanonical = R"(SIMFA_TRACE 1
KERNEL name=demo ctas=2 cluster=2 smem=1024 regs=4096 threads=384 stages=2 stage_arrivals=4 groups=16
DEF_TMAP 0 2 128,4096 256 64,176 2
DEF_TMAP 3 1 1024 - 256 4 base=0x10000
CTA 0
WG 0 role=producer
ACQUIRE_STAGE 0 tx=45056
TMA_TENSOR 0x0 0x10000 0 0 mc=0x3
TMA_BULK 0x100 0x20000 1024 1
LDG 0x1000 4
WG 1 role=consumer
MB_WAIT 0
BAR_WAIT 1 1
WGMMA 0 0x400 0x800 64 176 16 f16 1 SS 0 0
WGMMA 1 0x0 0x800 64 128 16 bf16 0 RS 0 1
WGMMA_COMMIT 0
BAR_ARRIVE 2
WGMMA_WAIT 1 1
RELEASE_STAGE 0 mc=0x3
BUBBLE 988
TMA_STORE 0x0 0x30000 3 0
TMA_COMMIT 0
TMA_WAIT 0 0 read=1
WG 2
BUBBLE 1
BUBBLE 4300 fixed=1
CTA 1
WG 0
BUBBLE 2
)";

TEST(TraceIo, CanonicalTextRoundTripsExactly) {
  MemoryTrace t = read_trace_text(kCanonical, "demo.sft");
  std::ostringstream os;
  write_trace(os, t);
  EXPECT_EQ(os.str(), kCanonical);
  MemoryTrace t2 = read_trace_text(os.str(), "again.sft");
  ASSERT_EQ(t2.ctas.size(), 2u);
  EXPECT_EQ(t2.ctas[0].wgs[1].code, t.ctas[0].wgs[1].code);
  EXPECT_EQ(t2.info.tmaps, t.info.tmaps);
}

TEST(TraceIo, FixedBubbleFlag) {
  MemoryTrace t = read_trace_text("SIMFA_TRACE 1\nKERNEL\nCTA 0\nWG 0\nBUBBLE 7 fixed=1\nBUBBLE 8 fixed=0\n", "f.sft");
  ASSERT_EQ(t.ctas[0].wgs[0].code.size(), 2u);
  EXPECT_EQ(t.ctas[0].wgs[0].code[0], Instr::bubble(7, true));
  EXPECT_EQ(t.ctas[0].wgs[0].code[1], Instr::bubble(8));
  EXPECT_THROW(read_trace_text("SIMFA_TRACE 1\nKERNEL\nCTA 0\nWG 0\nBUBBLE 7 fixed=2\n", "f.sft"), simfa::UserError);
  EXPECT_THROW(read_trace_text("SIMFA_TRACE 1\nKERNEL\nCTA 0\nWG 0\nBUBBLE 7 mc=1\n", "f.sft"), simfa::UserError);
}

TEST(TraceIo, CommentsWhitespaceAndAliases) {
  MemoryTrace t = read_trace_text(
      "# a comment\nSIMFA_TRACE 1  # header\n\nKERNEL\nCTA 0\nWG 0\n  bubbles   12   # Table 3 spelling\n", "x");
  ASSERT_EQ(t.ctas[0].wgs[0].code.size(), 1u);
  EXPECT_EQ(t.ctas[0].wgs[0].code[0], Instr::bubble(12));
  EXPECT_EQ(t.info.ctas, 1u);
  EXPECT_EQ(t.info.threads, 128u);
}

TEST(TraceIo, AcquireTxIsInferredFromTheLoadsThatFollow) {
  MemoryTrace t = read_trace_text(
      "SIMFA_TRACE 1\nKERNEL cluster=2\nDEF_TMAP 0 2 128,4096 256 64,88 2\n"
      "CTA 0\nWG 0\nACQUIRE_STAGE 1\nTMA_TENSOR 0 0 0 1 mc=3\nTMA_TENSOR 0 128 0 1 mc=3\nACQUIRE_STAGE 1\n"
      "CTA 1\nWG 0\nBUBBLE 1\n",
      "x");
  // Two 64 x 88 FP16 boxes, each multicast to 2 CTAs: 2 x 11264 x 2 = 45056 bytes per CTA.
  EXPECT_EQ(t.ctas[0].wgs[0].code[0].tx_bytes(), 45056u);
  EXPECT_EQ(t.ctas[0].wgs[0].code[3].tx_bytes(), 0u);
}

TEST(TraceIo, DirectoryOfFilesAndWriterRoundTrip) {
  namespace fs = std::filesystem;
  MemoryTrace t = read_trace_text(kCanonical, "demo.sft");
  const fs::path dir = fs::temp_directory_path() / "simfa_io_test_dir";
  fs::remove_all(dir);
  write_trace_dir(dir.string(), t);
  EXPECT_TRUE(fs::exists(dir / "kernel.sft"));
  EXPECT_TRUE(fs::exists(dir / "cta_000001.sft"));
  MemoryTrace back = read_trace_paths({dir.string()});
  ASSERT_EQ(back.ctas.size(), 2u);
  EXPECT_EQ(back.ctas[0].wgs[1].code, t.ctas[0].wgs[1].code);
  EXPECT_EQ(back.info.name, "demo");
  EXPECT_EQ(back.ctas[0].wgs[0].role, "producer");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace simfa::trace
