// No silent fallbacks in what the CLI writes: output paths are checked before anything runs ("-" is
// standard output), and a statistic the memory model does not produce is "not modelled", never 0.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace {

using simfa::test::Out;
using simfa::test::simfa;

const std::string kExample = std::string(SIMFA_SOURCE_DIR) + "/examples/traces/pingpong.sft";
// A small FA3 run: 8 SMs, one wave.
const std::string kSmallRun = "run --model llama3-8b --seqlen 512 --set gpu.num_sms=8";

std::string missing_dir() { return (std::filesystem::temp_directory_path() / "simfa_no_such_dir").string(); }

TEST(Outputs, EveryOutputFlagIsCheckedBeforeTheRun) {
  std::filesystem::remove_all(missing_dir());
  const std::string bad = missing_dir() + "/out";
  const std::string runs[] = {
      "run --json " + bad + ".json",
      "run --timeline " + bad + ".svg",
      "run --block-log " + bad + ".csv",
      "trace run " + kExample + " --json " + bad + ".json",
      "analyze --json " + bad + ".json",
      "analyze --csv " + bad + ".csv",
      "plot roofline -o " + bad + ".svg",
      "microbench tma-latency --json " + bad + ".json",
      "microbench tma-latency --csv " + bad + ".csv",
  };
  for (const auto& args : runs) {
    const auto t0 = std::chrono::steady_clock::now();
    const Out o = simfa(args);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(o.rc, 2) << args << "\n" << o.text;
    EXPECT_NE(o.text.find("the folder " + missing_dir() + " does not exist"), std::string::npos) << args << "\n"
                                                                                                   << o.text;
    EXPECT_LT(s, 5.0) << args << ": the check must come before the simulation";
  }
}

TEST(Outputs, ADirectoryOrAFileWhereAFolderIsNeededIsAnError) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const Out j = simfa("trace run " + kExample + " --json " + dir);
  EXPECT_EQ(j.rc, 2) << j.text;
  EXPECT_NE(j.text.find("is a directory, not a file to write"), std::string::npos) << j.text;
  const Out g = simfa("trace gen --model llama3-8b --seqlen 512 -o " + kExample);
  EXPECT_EQ(g.rc, 2) << g.text;
  EXPECT_NE(g.text.find("is a file, not a folder to write into"), std::string::npos) << g.text;
}

// The block log's rows: {cta, tile, block, cycle, phase}, after checking the header and the fields.
struct LogRow {
  long cta, tile, block, cycle;
  std::string phase;
};
std::vector<LogRow> read_block_log(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "cta,tile,block,cycle,phase");
  std::vector<LogRow> rows;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    LogRow r;
    char c1 = 0, c2 = 0, c3 = 0, c4 = 0;
    f >> r.cta >> c1 >> r.tile >> c2 >> r.block >> c3 >> r.cycle >> c4 >> r.phase;
    EXPECT_TRUE(f && c1 == ',' && c2 == ',' && c3 == ',' && c4 == ',') << line;
    rows.push_back(r);
  }
  return rows;
}

TEST(Outputs, TheBlockLogChangesNothingAndListsEveryBlockRunInDetail) {
  const auto tmp = std::filesystem::temp_directory_path();
  const std::string j0 = (tmp / "simfa_blocklog0.json").string(), j1 = (tmp / "simfa_blocklog1.json").string();
  const std::string log = (tmp / "simfa_blocklog.csv").string();
  ASSERT_EQ(simfa(kSmallRun + " --json " + j0).rc, 0);
  const Out o = simfa(kSmallRun + " --json " + j1 + " --block-log " + log);
  ASSERT_EQ(o.rc, 0) << o.text;
  std::ifstream a(j0), b(j1);
  const auto ja = nlohmann::json::parse(a), jb = nlohmann::json::parse(b);
  EXPECT_EQ(ja["cycles"], jb["cycles"]);
  EXPECT_EQ(ja["stats"], jb["stats"]);  // every statistic, the engine's included
  // Full detail: each CTA runs the blocks of each tile in order, from its first, at rising cycles.
  const std::vector<LogRow> rows = read_block_log(log);
  ASSERT_FALSE(rows.empty());
  std::map<long, LogRow> last;
  for (const LogRow& r : rows) {
    EXPECT_EQ(r.phase, "full");
    if (const auto it = last.find(r.cta); it != last.end()) {
      const LogRow& p = it->second;
      EXPECT_TRUE((r.tile == p.tile && r.block == p.block + 1) || (r.tile > p.tile && r.block == 0))
          << "CTA " << r.cta << ": tile " << p.tile << " block " << p.block << ", then tile " << r.tile << " block "
          << r.block;
      EXPECT_GE(r.cycle, p.cycle);
    } else {
      EXPECT_EQ(r.block, 0);
    }
    last[r.cta] = r;
  }
  EXPECT_EQ(last.size(), static_cast<std::size_t>(jb["ctas"].get<long>()));
  // Sampled: the phases are the sampler's, and the blocks a span skips are not listed.
  const Out s = simfa("run --model llama3-8b --seqlen 4096 --set gpu.num_sms=16 --set sample.mode=on --block-log " + log);
  ASSERT_EQ(s.rc, 0) << s.text;
  std::set<std::string> phases;
  bool skipped = false;
  last.clear();
  for (const LogRow& r : read_block_log(log)) {
    phases.insert(r.phase);
    if (const auto it = last.find(r.cta); it != last.end())
      skipped = skipped || (r.tile == it->second.tile && r.block > it->second.block + 1) || r.tile > it->second.tile + 1;
    last[r.cta] = r;
  }
  EXPECT_EQ(phases, (std::set<std::string>{"search", "span", "check", "tail"}));
  EXPECT_TRUE(skipped);
  // Only the FA3 workload has blocks.
  std::filesystem::remove(log);
  const Out g = simfa("run --workload gemm --m 256 --n 256 --k 256 --block-log " + log);
  EXPECT_EQ(g.rc, 2);
  EXPECT_NE(g.text.find("--block-log: the gemm workload has no KV blocks"), std::string::npos) << g.text;
  EXPECT_FALSE(std::filesystem::exists(log));
}

TEST(Outputs, DashIsStandardOutputAndTheReportMovesToStandardError) {
  const Out both = simfa("trace run " + kExample + " --json -");
  ASSERT_EQ(both.rc, 0) << both.text;
  const Out o = simfa("trace run " + kExample + " --json - 2>/dev/null | cat");  // standard output only
  const auto j = nlohmann::json::parse(o.text);  // nothing but the document
  EXPECT_GT(j["cycles"].get<double>(), 0);
  const Out t = simfa("run --timeline -");
  EXPECT_EQ(t.rc, 2) << t.text;
  EXPECT_NE(t.text.find("cannot go to standard output"), std::string::npos) << t.text;
}

TEST(Outputs, FixedMemoryReportsL2AndDramAsNotModelled) {
  const std::string json = (std::filesystem::temp_directory_path() / "simfa_outputs_fixed.json").string();
  const Out o = simfa(kSmallRun + " --set mem.model=fixed --json " + json);
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("L2 bytes          not modelled (mem.model = fixed)"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("DRAM read/write   not modelled (mem.model = fixed)"), std::string::npos) << o.text;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_FALSE(j.contains("l2_bytes"));
  EXPECT_FALSE(j.contains("dram_read_bytes"));
  EXPECT_TRUE(j.contains("tflops"));
  // The hierarchy reports them.
  const Out h = simfa(kSmallRun + " --set mem.model=hierarchy");
  ASSERT_EQ(h.rc, 0) << h.text;
  EXPECT_EQ(h.text.find("not modelled"), std::string::npos) << h.text;
}

TEST(Outputs, MicrobenchmarksNeedTheHierarchy) {
  const Out o = simfa("microbench tma-latency --set mem.model=fixed");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("mem.model = fixed (--set) has no L2 or DRAM to measure"), std::string::npos) << o.text;
}

}  // namespace
