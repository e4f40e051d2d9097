// Every class of bad log gives a UserError with a clear message, or a warning when usable.
#include <gtest/gtest.h>

#include <limits>

#include "instr/error.h"
#include "instr/log_reader.h"
#include "log_test_util.h"

namespace simfa::instr {
namespace {

using test::Bytes;

// Parses `b` and returns the error message ("" if it parsed).
std::string error_of(const Bytes& b) {
  try {
    parse_log(b.data(), b.size(), "bad.evlog");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

Bytes good() { return test::small_emulator().encode(); }

#define EXPECT_ERROR(bytes, text)                                     \
  do {                                                                \
    const std::string msg_ = error_of(bytes);                         \
    EXPECT_NE(msg_.find(text), std::string::npos) << "got: " << msg_; \
    EXPECT_EQ(msg_.rfind("bad.evlog: ", 0), 0u) << "got: " << msg_;   \
  } while (0)

TEST(LogErrors, WrongMagic) {
  Bytes b = good();
  b[0] = 'X';
  EXPECT_ERROR(b, "not a simfa event log: bad magic (expected \"SIMFAEVL\") (offset 0)");
}

TEST(LogErrors, ShortFileThatIsNotALogIsBadMagicNotTruncation) {
  EXPECT_ERROR(Bytes({'P', 'K'}), "bad magic");
}

TEST(LogErrors, EmptyFile) { EXPECT_ERROR(Bytes{}, "empty file"); }

TEST(LogErrors, WrongVersion) {
  Bytes b = good();
  test::put32(b, test::kOffVersion, 2);
  EXPECT_ERROR(b, "unsupported log version 2 (this reader reads 1) (offset 8)");
}

TEST(LogErrors, TruncatedMagic) {
  const Bytes g = good();
  EXPECT_ERROR(Bytes(g.begin(), g.begin() + 5), "file truncated in magic");
}

TEST(LogErrors, TruncatedHeader) {
  const Bytes g = good();
  for (std::size_t n : {9u, 12u, 20u, 40u, 79u})
    EXPECT_ERROR(Bytes(g.begin(), g.begin() + n), "file truncated in header");
}

TEST(LogErrors, TruncatedTensormapTable) {
  const Bytes g = good();
  EXPECT_ERROR(Bytes(g.begin(), g.begin() + 150),
               "file truncated in tensormap table: needs 120 bytes, 70 left (offset 80)");
}

TEST(LogErrors, TruncatedWarpTable) {
  const Bytes g = good();
  EXPECT_ERROR(Bytes(g.begin(), g.begin() + test::kSmallWarpTable + 12),
               "file truncated in warp table (4 warps)");
}

TEST(LogErrors, TruncatedEntries) {
  const Bytes g = good();
  EXPECT_ERROR(Bytes(g.begin(), g.end() - 1),
               "file truncated in entries: counts promise 6 entries (96 bytes), 95 bytes left "
               "(offset 232)");
}

TEST(LogErrors, TrailingBytes) {
  Bytes b = good();
  b.push_back(0);
  EXPECT_ERROR(b, "1 trailing bytes after the last entry (offset 328)");
}

TEST(LogErrors, EntryCountBeyondBufferCapacity) {
  Bytes b = good();
  test::put32(b, test::kSmallWarpTable + 3 * 8, 5);  // block 1 warp 1, capacity 4
  EXPECT_ERROR(b,
               "entry count 5 of warp 3 = block 1 warp 1 exceeds the buffer capacity of 4 "
               "entries per warp (offset 224)");
}

TEST(LogErrors, HugeCountsNeverAllocateBeyondTheFile) {
  Bytes b = good();
  test::put32(b, test::kOffEntriesPerWarp, 0xFFFFFFFFu);
  test::put32(b, test::kSmallWarpTable, 0xFFFFFFF0u);
  EXPECT_ERROR(b, "file truncated in entries");
}

TEST(LogErrors, HugeWarpCountIsTruncationNotAllocation) {
  Bytes b = good();
  test::put32(b, test::kOffGrid, 0xFFFFFFFFu);
  test::put64(b, test::kOffNumWarps, 2ull * 0xFFFFFFFFull);
  EXPECT_ERROR(b, "file truncated in warp table (8589934590 warps): needs 68719476720 bytes");
}

TEST(LogErrors, WarpCountThatDoesNotMatchTheShape) {
  Bytes b = good();
  test::put64(b, test::kOffNumWarps, 5);
  EXPECT_ERROR(b, "warp count 5 does not match grid 2x1x1 x 2 warps per block (offset 72)");
  test::put32(b, test::kOffGrid + 4, 0xFFFFFFFFu);  // product overflows 64 bits
  test::put32(b, test::kOffGrid + 8, 0xFFFFFFFFu);
  test::put32(b, test::kOffGrid, 0xFFFFFFFFu);
  EXPECT_ERROR(b, "does not match grid");
}

TEST(LogErrors, WarpsPerBlockThatDoesNotMatchTheBlock) {
  Bytes b = good();
  test::put32(b, test::kOffWarpsPerBlock, 3);
  EXPECT_ERROR(b, "warps per block 3 does not match block 64x1x1 (64 threads) (offset 40)");
}

TEST(LogErrors, ZeroGridDimension) {
  Bytes b = good();
  test::put32(b, test::kOffGrid + 8, 0);
  EXPECT_ERROR(b, "grid dimension 2 is 0 (offset 24)");
}

TEST(LogErrors, UnknownClockKind) {
  Bytes b = good();
  test::put32(b, test::kOffClockKind, 7);
  EXPECT_ERROR(b, "unknown clock kind 7 (offset 48)");
}

TEST(LogErrors, WrongEntrySize) {
  Bytes b = good();
  test::put32(b, test::kOffEntrySize, 32);
  EXPECT_ERROR(b, "entry size 32 (expected 16) (offset 52)");
}

TEST(LogErrors, HeaderSizeTooSmall) {
  Bytes b = good();
  test::put32(b, test::kOffHeaderSize, 40);
  EXPECT_ERROR(b, "header size 40 is smaller than 80 (offset 12)");
}

TEST(LogErrors, BadTensormapRank) {
  Bytes b = good();
  test::put32(b, test::kHeader + 4, 9);
  EXPECT_ERROR(b, "tensormap 0 (id 1): rank 9 outside 1..5 (offset 84)");
}

TEST(LogErrors, BadTensormapElementSize) {
  Bytes b = good();
  test::put32(b, test::kHeader + 116, 3);
  EXPECT_ERROR(b, "tensormap 0 (id 1): element size 3 bytes");
}

TEST(LogErrors, TensormapRecordSizeTooSmall) {
  Bytes b = good();
  test::put32(b, test::kOffTmapRecord, 100);
  EXPECT_ERROR(b, "tensormap record size 100 is smaller than 120 (offset 68)");
}

TEST(LogErrors, UnknownEventIdNamesOffsetWarpAndEntry) {
  Bytes b = good();
  const std::size_t entry = test::kSmallEntries + 2 * 16;  // warp 1 entry 1
  b[entry + 8] = 0x40;
  EXPECT_ERROR(b, "bad.evlog: unknown event id 0x0040 (offset 264 / warp 1 entry 1)");
}

TEST(LogErrors, EventIdZeroIsUnknown) {
  Bytes b = good();
  b[test::kSmallEntries + 8] = 0;
  EXPECT_ERROR(b, "unknown event id 0x0000 (offset 232 / warp 0 entry 0)");
}

TEST(LogErrors, OverflowFlagOtherThanZeroOrOne) {
  Bytes b = good();
  test::put32(b, test::kSmallWarpTable + 4, 7);
  EXPECT_ERROR(b, "overflow flag 7 of warp 0 = block 0 warp 0 is neither 0 nor 1 (offset 204)");
}

TEST(LogErrors, MissingFile) {
  try {
    read_log("/nonexistent/dir/x.evlog");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/x.evlog: no such file or directory");
  }
}

// ---- warnings: the log stays usable ----

TEST(LogWarnings, OverflowFlagIsAWarningAndKeepsTheEntries) {
  LoggerEmulator e({1, 1, 1}, {64, 1, 1}, 2);
  for (uint64_t t = 1; t <= 3; ++t) e.record(0, 1, t, SIMFA_EV_TILE_START, 0, 0);
  const Bytes b = e.encode();
  const EventLog log = parse_log(b.data(), b.size(), "ovf.evlog");
  ASSERT_EQ(log.warnings.size(), 1u);
  EXPECT_EQ(log.warnings[0],
            "ovf.evlog: buffer overflowed, later events were dropped in 1 warp (warp 1 = block 0 "
            "warp 1)");
  EXPECT_TRUE(log.warp(0, 1).overflow);
  EXPECT_EQ(log.warp(0, 1).entries.size(), 2u);
}

TEST(LogWarnings, NonMonotonicTimestampsAreAWarning) {
  LoggerEmulator e({1, 1, 1}, {32, 1, 1}, 4);
  e.record(0, 0, 50, SIMFA_EV_TILE_START, 0, 0);
  e.record(0, 0, 40, SIMFA_EV_TMA_Q_ISSUE, 0, 0);
  e.record(0, 0, 30, SIMFA_EV_TMA_K_ISSUE, 0, 0);  // reported once per warp
  const Bytes b = e.encode();
  const EventLog log = parse_log(b.data(), b.size(), "t.evlog");
  ASSERT_EQ(log.warnings.size(), 1u);
  EXPECT_EQ(log.warnings[0],
            "t.evlog: timestamps decrease in 1 warp (warp 0 = block 0 warp 0 entry 1)");
}

TEST(LogWarnings, ManyWarpsAreSummarisedNotListed) {
  LoggerEmulator e({100, 1, 1}, {32, 1, 1}, 1);
  for (uint64_t blk = 0; blk < 100; ++blk)
    for (int i = 0; i < 2; ++i) e.record(blk, 0, 1, SIMFA_EV_TILE_START, 0, 0);
  const Bytes b = e.encode();
  const EventLog log = parse_log(b.data(), b.size(), "m.evlog");
  ASSERT_EQ(log.warnings.size(), 1u);
  EXPECT_NE(log.warnings[0].find("in 100 warps ("), std::string::npos);
  EXPECT_NE(log.warnings[0].find("; ...)"), std::string::npos);
}

}  // namespace
}  // namespace simfa::instr
