// The microbenchmarks end to end on the simulated GPU (core + hierarchy + HBM), kept small: the
// calibrated floors, the chase generator, the comparison arithmetic, and the ablations' direction.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

#include "api/run.h"
#include "microbench/compare.h"
#include "microbench/microbench.h"
#include "microbench/permutation.h"
#include "sim/error.h"

namespace simfa::microbench {
namespace {

Config cfg_for(const std::string& gpu, std::vector<std::string> sets = {},
               std::vector<std::string> ablations = {}) {
  sets.insert(sets.begin(), "mem.model=hierarchy");
  return make_config(gpu, sets, ablations);
}

TEST(Permutation, IsABijectionForAnySize) {
  for (std::uint64_t n : {1ull, 2ull, 7ull, 100ull, 4096ull, 100003ull}) {
    Permutation p(n, 3);
    std::set<std::uint64_t> seen;
    for (std::uint64_t i = 0; i < n; ++i) seen.insert(p(i));
    EXPECT_EQ(seen.size(), n);
    EXPECT_LT(*seen.rbegin(), n);
  }
}

TEST(Latency, FloorsMatchTheCalibration) {
  Options o;
  o.working_sets_kib = {64, 2048};
  o.hops = 300;
  const Config c = cfg_for("h800-pcie");
  const Result tma = latency(c, o, true);
  EXPECT_NEAR(tma.rows[0].value, 369.0, 0.5);  // tma_latency.csv L2 floor 369.1
  EXPECT_NEAR(tma.rows[1].value, 369.0, 0.5);
  const Result ld = latency(c, o, false);
  EXPECT_NEAR(ld.rows[0].value, 32.0, 0.5);    // L1 hit
  EXPECT_NEAR(ld.rows[1].value, 264.0, 0.5);   // L2 near hit + L1 miss (264.5 measured)
}

TEST(Latency, SkipAndNoSkipAgree) {
  Options o;
  o.working_sets_kib = {4096};
  o.hops = 100;
  o.warmup_max = 200;
  const Config c = cfg_for("h800-pcie");
  const Result a = latency(c, o, true);
  o.skip_idle = false;
  const Result b = latency(c, o, true);
  EXPECT_EQ(a.rows[0].value, b.rows[0].value);
}

TEST(Compare, ComputesMapeAndMaximumOverMatchingRows) {
  const std::string path = ::testing::TempDir() + "/measured.csv";
  {
    std::ofstream f(path);
    f << "# comment\nworking_set_kib,latency_cycles\n2,100\n4.0,200\n4,300\n8,50\n";
  }
  Result r;
  r.key_columns = {"working_set_kib"};
  r.value_column = "latency_cycles";
  r.rows = {{{"2"}, 110, {}, {}}, {{"4"}, 200, {}, {}}, {{"16"}, 1, {}, {}}};
  compare(r, read_measured_csv(path));
  ASSERT_TRUE(r.mape_pct);
  EXPECT_EQ(r.compared, 2u);
  EXPECT_NEAR(*r.rows[1].measured, 250.0, 1e-9);  // duplicate keys: their mean
  EXPECT_NEAR(*r.mape_pct, (10.0 + 20.0) / 2, 1e-9);
  EXPECT_NEAR(*r.max_abs_error_pct, 20.0, 1e-9);
  EXPECT_FALSE(r.rows[2].measured);
}

// A measured value must be a whole, positive, finite number: "321e308.0" (found by
// fuzz_microbench_csv) once read as infinity and made the MAPE NaN; 0 made a row's error 0.
TEST(Compare, MeasuredValueThatIsNotAPositiveNumberIsAnErrorNamingFileAndLine) {
  const std::string path = ::testing::TempDir() + "/bad_measured.csv";
  for (const std::string bad : {"321e308.0", "1e999", "nan", "32abc", "0", "-5", ""}) {
    {
      std::ofstream f(path);
      f << "working_set_kib,latency_cycles\n2,100\n6," << bad << "\n";
    }
    Result r;
    r.key_columns = {"working_set_kib"};
    r.value_column = "latency_cycles";
    r.rows = {{{"2"}, 110, {}, {}}, {{"6"}, 200, {}, {}}};
    try {
      compare(r, read_measured_csv(path));
      ADD_FAILURE() << "accepted " << bad;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ":3: '" + bad + "' in column latency_cycles is not a positive number"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Compare, MeanOfHugeDuplicatesDoesNotOverflow) {
  const std::string path = ::testing::TempDir() + "/huge_measured.csv";
  {
    std::ofstream f(path);
    f << "working_set_kib,latency_cycles\n2,1e308\n2,1e308\n";
  }
  Result r;
  r.key_columns = {"working_set_kib"};
  r.value_column = "latency_cycles";
  r.rows = {{{"2"}, 110, {}, {}}};
  compare(r, read_measured_csv(path));
  ASSERT_TRUE(r.rows[0].measured);
  EXPECT_DOUBLE_EQ(*r.rows[0].measured, 1e308);
  EXPECT_TRUE(std::isfinite(*r.mape_pct));
}

// TMA bandwidth of 114 blocks over an L2-resident 4 MiB array (four passes: L2-bound).
double bandwidth(const std::string& kind, const std::string& box, double kib,
                 std::vector<std::string> ablations = {}) {
  Options o;
  o.array_bytes = 4 << 20;
  o.sim_bytes = 16 << 20;
  o.min_copies_per_block = 2;
  const Config c = cfg_for("h800-pcie", {}, ablations);
  o.cases = {{CopyShape::parse(kind, box, kib, o.array_bytes), 114}};
  return tma_bandwidth(c, o).rows.at(0).value;
}

Result kv(std::vector<std::string> ablations = {}) {
  Options o;
  o.kv_copies = 32;
  return kv_stream(cfg_for("h800-pcie", {}, ablations), o);
}

TEST(Ablation, SimpleHashSlowsTheKvStream) {
  const double base = kv().rows.at(0).value;
  const double naive = kv({"simple-hash"}).rows.at(0).value;
  EXPECT_LT(naive, 0.85 * base) << base << " vs " << naive;
}

TEST(Ablation, NoLrcDoublesL2RequestsOfTheKvStream) {
  const Result with = kv(), without = kv({"no-lrc"});
  auto extra = [](const Result& r, const std::string& k) {
    for (const auto& [name, v] : r.rows.at(0).extra)
      if (name == k) return v;
    return -1.0;
  };
  EXPECT_EQ(extra(without, "lts_requests"), 2 * extra(with, "lts_requests"));
  EXPECT_LE(without.rows.at(0).value, with.rows.at(0).value * 1.001);
}

TEST(Ablation, NoDedupSlowsTensorCopies) {
  const double base = bandwidth("tensor2d", "32x32", 4);
  const double dup = bandwidth("tensor2d", "32x32", 4, {"no-dedup"});
  EXPECT_LT(dup, base) << base << " vs " << dup;
}

}  // namespace
}  // namespace simfa::microbench
