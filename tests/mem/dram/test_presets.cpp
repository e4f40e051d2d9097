// The [dram] preset sections of docs/dram.md (pasted into configs/gpu/*.toml) load, give the
// intended peak bandwidth, and stream at 85-95% of it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "dram_doc_util.h"
#include "dram_test_util.h"

namespace simfa::mem {
namespace {

using test::doc_blocks;

DramParams load(const std::string& block, double core_hz) {
  static const ParamRegistry reg = test::dram_registry();
  Config cfg(reg);
  cfg.load_toml_text(block, "docs/dram.md");
  DramParams p = dram_params_from(cfg);
  p.core_hz = core_hz;
  return p;
}

double stream_fraction(const DramParams& p) {
  Engine engine;
  const Cycle warm = 8'000, end = 30'000;
  const std::uint64_t lines = static_cast<std::uint64_t>(
      (end + 5'000) * (p.peak_bytes_per_second() / p.core_hz) / p.line_bytes);
  test::Streamer s(engine, lines, p.line_bytes, 20480, 64);
  s.window_start = warm;
  s.window_end = end;
  HbmDram dram(p, engine, &s);
  s.attach(&dram);
  engine.wake(&s, 0);
  engine.run([&] { return engine.now() >= end; });
  return static_cast<double>(s.window_bytes) /
         (dram.peak_bytes_per_core_cycle() * static_cast<double>(end - warm));
}

struct Preset {
  const char* first_line;
  double core_hz;
  double peak_bps;
};

class DocPresets : public ::testing::TestWithParam<Preset> {};

TEST_P(DocPresets, LoadsWithItsPeakAndStreamsAt85To95Percent) {
  const auto blocks = doc_blocks();
  const auto it = blocks.find(GetParam().first_line);
  ASSERT_NE(it, blocks.end()) << GetParam().first_line;
  const DramParams p = load(it->second, GetParam().core_hz);
  EXPECT_NEAR(p.peak_bytes_per_second(), GetParam().peak_bps, GetParam().peak_bps * 0.01);
  const double f = stream_fraction(p);
  std::printf("%s: streaming %.1f%% of %.3f TB/s\n", GetParam().first_line, 100 * f,
              p.peak_bytes_per_second() / 1e12);
  EXPECT_GE(f, 0.85);
  EXPECT_LE(f, 0.95);
}

INSTANTIATE_TEST_SUITE_P(
    Gpus, DocPresets,
    ::testing::Values(Preset{"# dram section of configs/gpu/h800.toml and configs/gpu/h100.toml",
                             1830e6, 3.328e12},
                      Preset{"# dram section of configs/gpu/h200.toml", 1980e6, 4.814e12},
                      Preset{"# dram section of configs/gpu/h800-pcie.toml", 1755e6, 2.0e12}));

TEST(DocPresets, TheHbm3BlockRepeatsTheRegisteredDefaults) {
  const auto blocks = doc_blocks();
  const DramParams a =
      load(blocks.at("# dram section of configs/gpu/h800.toml and configs/gpu/h100.toml"), 1830e6);
  const DramParams b = test::default_params();
  EXPECT_EQ(a.channels, b.channels);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.t.tRCD_rd, b.t.tRCD_rd);
  EXPECT_EQ(a.t.tRFC, b.t.tRFC);
  EXPECT_EQ(a.refresh, b.refresh);
  EXPECT_EQ(a.ctrl_latency, b.ctrl_latency);
}

// The H200 block follows the device's report (a 6016-bit bus at 3201 MHz) and hardware.md's HBM3
// nanosecond table at tCK = 4 / 6.402 GHz.
TEST(DocPresets, TheH200BlockIsTheReportedBusAndTheNanosecondTableAtItsClock) {
  const DramParams p = load(doc_blocks().at("# dram section of configs/gpu/h200.toml"), 1980e6);
  EXPECT_EQ(p.channels * p.pc_width_bits * p.pseudo_channels, 6016u);
  EXPECT_DOUBLE_EQ(p.data_rate_mts, 2 * 3201.0);
  const double tck = 4.0 / 6.402;  // ns
  test::expect_hbm3_ns_table(p, tck);
}

}  // namespace
}  // namespace simfa::mem
