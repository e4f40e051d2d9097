// The dram.* keys: defaults are the HBM3-5200 80-channel preset, derived quantities, validation.
#include <gtest/gtest.h>

#include <cmath>

#include "dram_doc_util.h"
#include "dram_test_util.h"
#include "sim/error.h"

namespace simfa::mem {
namespace {

TEST(DramParams, DefaultsAreTheHbm3_5200Preset) {
  const DramParams p = test::default_params();
  EXPECT_EQ(p.channels, 80u);
  EXPECT_EQ(p.pseudo_channels, 2u);
  EXPECT_EQ(p.banks(), 16u);
  EXPECT_EQ(p.burst_bytes(), 32u);
  EXPECT_EQ(p.bursts_per_line(), 4u);
  EXPECT_EQ(p.t.tBL, 2u);
  EXPECT_DOUBLE_EQ(p.dram_hz(), 1.3e9);
  EXPECT_NEAR(p.peak_bytes_per_second(), 3.328e12, 1e6);
  EXPECT_DOUBLE_EQ(p.core_hz, 1.83e9);
}

// Every nanosecond value of hardware.md's HBM3 table, converted at tCK = 4 / 5.2 GHz, is the
// default.
TEST(DramParams, TimingDefaultsAreCeilOfNanosecondsOverTck) {
  const DramParams p = test::default_params();
  const double tck = 4.0 / 5.2;  // ns
  test::expect_hbm3_ns_table(p, tck);
  EXPECT_EQ(p.t.tCCD_S, 2u);
  EXPECT_EQ(p.t.tCCD_L, 4u);
}

TEST(DramParams, NsToTckRoundsUpButIgnoresFloatingNoise) {
  EXPECT_EQ(ns_to_tck(3900, 4.0 / 5.2), 5070u);  // exactly 5070.0
  EXPECT_EQ(ns_to_tck(12.5, 0.625), 20u);
  EXPECT_EQ(ns_to_tck(12.6, 0.625), 21u);
}

TEST(DramParams, EveryKeyHasDocUnitAndSource) {
  const ParamRegistry reg = test::dram_registry();
  int n = 0;
  for (const auto& d : reg.all()) {
    if (d.key.rfind("dram.", 0) != 0) continue;
    ++n;
    EXPECT_FALSE(d.doc.empty()) << d.key;
    EXPECT_FALSE(d.source.empty()) << d.key;
  }
  EXPECT_GT(n, 30);
}

void expect_user_error(const char* key, const char* value, const char* mention) {
  const ParamRegistry reg = test::dram_registry();
  Config cfg(reg);
  cfg.set(key, value, "--set");
  try {
    dram_params_from(cfg);
    FAIL() << key << " = " << value;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
  }
}

TEST(DramParams, InconsistentValuesAreUserErrorsNamingTheKey) {
  expect_user_error("dram.mapping", "RoBaBgCoCh", "dram.mapping");
  expect_user_error("dram.write_low_watermark", "30", "dram.write_low_watermark");
  expect_user_error("dram.write_high_watermark", "40", "dram.write_high_watermark");
  expect_user_error("dram.timing.tCCD_S", "1", "dram.timing.tCCD_S");
  expect_user_error("dram.row_bytes", "100", "dram.row_bytes");
  expect_user_error("dram.burst_length", "6", "dram.burst_length");
}

TEST(DramParams, TomlPresetSnippetLoads) {
  const ParamRegistry reg = test::dram_registry();
  Config cfg(reg);
  cfg.load_toml_text(R"([dram]
channels = 96
data_rate = 6250
[dram.timing]
tCL = 20
)",
                     "snippet");
  const DramParams p = dram_params_from(cfg);
  EXPECT_EQ(p.channels, 96u);
  EXPECT_EQ(p.t.tCL, 20u);
  EXPECT_NEAR(p.peak_bytes_per_second(), 4.8e12, 1e6);
}

}  // namespace
}  // namespace simfa::mem
