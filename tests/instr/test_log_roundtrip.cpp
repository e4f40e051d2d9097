// Emulator -> writer -> reader round trips and the byte layout of the format.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "instr/log_reader.h"
#include "instr/log_writer.h"
#include "log_test_util.h"

namespace simfa::instr {
namespace {

using test::Bytes;

TEST(LogRoundTrip, EmulatorLogParsesBackToTheRecordedEntries) {
  const Bytes bytes = test::small_emulator().encode();
  const EventLog log = parse_log(bytes.data(), bytes.size(), "mem");
  EXPECT_TRUE(log.warnings.empty());
  EXPECT_EQ(log.header.grid[0], 2u);
  EXPECT_EQ(log.header.block[0], 64u);
  EXPECT_EQ(log.warps_per_block(), 2u);
  EXPECT_EQ(log.header.entries_per_warp, 4u);
  EXPECT_EQ(log.header.clock_kind, uint32_t{SIMFA_CLOCK_CLOCK64});
  EXPECT_EQ(log.header.clock_rate_hz, 1830000000ull);
  ASSERT_EQ(log.warps.size(), 4u);
  EXPECT_EQ(log.warp(0, 0).entries.size(), 1u);
  ASSERT_EQ(log.warp(1, 1).entries.size(), 2u);
  const Entry& e = log.warp(1, 1).entries[1];
  EXPECT_EQ(e.event, SIMFA_EV_TMA_K_ISSUE);
  EXPECT_EQ(e.stage, 1u);
  EXPECT_EQ(e.payload, 11u);
  EXPECT_EQ(e.timestamp, 160u);
  EXPECT_FALSE(log.warp(1, 1).overflow);
}

TEST(LogRoundTrip, TensormapsSurviveTheRoundTrip) {
  const Bytes bytes = test::small_emulator().encode();
  const EventLog log = parse_log(bytes.data(), bytes.size(), "mem");
  const simfa_tensormap_desc* k = log.tensormap(SIMFA_TMAP_K);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->rank, 3u);
  EXPECT_EQ(k->base, 0x7f0000000000ull);
  EXPECT_EQ(k->dims[1], 4096u);
  EXPECT_EQ(k->strides_bytes[2], 256u * 4096u);
  EXPECT_EQ(k->box[1], 176u);
  EXPECT_EQ(k->elem_bytes, 2u);
  EXPECT_EQ(log.tensormap(SIMFA_TMAP_V), nullptr);
}

TEST(LogRoundTrip, ReencodingAParsedLogGivesTheSameBytes) {
  const Bytes bytes = test::small_emulator().encode();
  EXPECT_EQ(encode_log(parse_log(bytes.data(), bytes.size(), "mem")), bytes);
}

TEST(LogRoundTrip, FileWriteAndReadAgree) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("simfa_instr_rt_" + std::to_string(::getpid()) + ".evlog");
  const LoggerEmulator emu = test::small_emulator();
  emu.write(path.string());
  const EventLog log = read_log(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(log.source, path.string());
  EXPECT_EQ(encode_log(log), emu.encode());
}

TEST(LogFormat, ByteLayoutMatchesTheDocumentedOffsets) {
  const Bytes b = test::small_emulator().encode();
  EXPECT_EQ(std::string(b.begin(), b.begin() + 8), "SIMFAEVL");
  EXPECT_EQ(test::get32(b, test::kOffVersion), 1u);
  EXPECT_EQ(test::get32(b, test::kOffHeaderSize), 80u);
  EXPECT_EQ(test::get32(b, test::kOffGrid), 2u);
  EXPECT_EQ(test::get32(b, test::kOffBlock), 64u);
  EXPECT_EQ(test::get32(b, test::kOffWarpsPerBlock), 2u);
  EXPECT_EQ(test::get32(b, test::kOffEntriesPerWarp), 4u);
  EXPECT_EQ(test::get32(b, test::kOffClockKind), 2u);
  EXPECT_EQ(test::get32(b, test::kOffEntrySize), 16u);
  EXPECT_EQ(test::get32(b, test::kOffNumTmaps), 1u);
  EXPECT_EQ(test::get32(b, test::kOffTmapRecord), 120u);
  EXPECT_EQ(test::get32(b, test::kOffNumWarps), 4u);
  EXPECT_EQ(test::get32(b, test::kHeader), uint32_t{SIMFA_TMAP_K});  // first tensormap id
  EXPECT_EQ(test::get32(b, test::kSmallWarpTable + 8), 2u);          // warp 1 count
  EXPECT_EQ(test::get32(b, test::kSmallEntries), 110u);              // first timestamp (lo)
  EXPECT_EQ(b[test::kSmallEntries + 8], SIMFA_EV_TMA_K_ISSUE);       // first event id
  EXPECT_EQ(b.size(), test::kSmallEntries + 6 * 16);
}

TEST(LogFormat, UserEventsAndAllBuiltinsAreAccepted) {
  LoggerEmulator e({1, 1, 1}, {32, 1, 1}, 64);
  uint64_t t = 0;
  for (uint16_t id = 1; id <= SIMFA_EV_LAST_BUILTIN; ++id) e.record(0, 0, ++t, id, 0, 0);
  e.record(0, 0, ++t, SIMFA_EV_USER_BASE, 0, 0);
  e.record(0, 0, ++t, 0xFFFF, 0, 0);
  const Bytes b = e.encode();
  const EventLog log = parse_log(b.data(), b.size(), "mem");
  EXPECT_EQ(log.warp(0, 0).entries.size(), SIMFA_EV_LAST_BUILTIN + 2u);
  EXPECT_STREQ(simfa_evlog_event_name(SIMFA_EV_GEMM_QK_ISSUE), "GEMM_QK_ISSUE");
  EXPECT_STREQ(simfa_evlog_event_name(0x9000), "USER");
}

TEST(LogFormat, LargerHeaderFromALaterRevisionIsSkipped) {
  Bytes b = test::small_emulator().encode();
  b.insert(b.begin() + test::kHeader, 16, 0xAB);
  test::put32(b, test::kOffHeaderSize, 96);
  const EventLog log = parse_log(b.data(), b.size(), "mem");
  EXPECT_EQ(log.warp(1, 1).entries.size(), 2u);
  EXPECT_NE(log.tensormap(SIMFA_TMAP_K), nullptr);
}

}  // namespace
}  // namespace simfa::instr
