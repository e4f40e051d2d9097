// One vocabulary on the command line (docs/configuration.md "One vocabulary"): every simulating
// command refuses a GPU the simulator does not model; analyze reads the configuration keys the
// simulator reads (its model flags are exact aliases of them) and refuses the others; a decode
// shape is simulated with a warning; the Blackwell presets reach the analytic model.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/vocabulary.h"
#include "cli_util.h"

namespace {

using simfa::test::Out;
using simfa::test::simfa;
using simfa::test::temp_file;

const std::string kExample = std::string(SIMFA_SOURCE_DIR) + "/examples/traces/pingpong.sft";

void expect_error(const Out& o, const std::string& what, const std::string& where) {
  EXPECT_EQ(o.rc, 2) << where << ": " << o.text;
  EXPECT_NE(o.text.find(what), std::string::npos) << where << ": " << o.text;
}

TEST(Vocabulary, EverySimulatingCommandRefusesBlackwell) {
  const std::string csv = temp_file("bw.csv",
                                    "case,batch,seqlen,heads,head_dim,causal,measured_us,gpu\n"
                                    "a,1,512,32,128,0,10,gb10\n");
  const std::string cases[] = {
      "run --gpu b200",
      "run --gpu gb10 --workload gemm --m 256 --n 256 --k 256",
      "trace gen --gpu b200 -o " + (std::filesystem::temp_directory_path() / "simfa_cli_bw_trace").string(),
      "trace run " + kExample + " --gpu b200",
      "validate --measurements " + csv,
      "ablate --measurements " + csv,
      "microbench tma-latency --gpu b200 --ws 1024 --quiet",
      "translate /nonexistent.evlog --gpu gb10",
      "run --set gpu.arch=blackwell",
  };
  for (const std::string& c : cases) {
    const Out o = simfa(c);
    expect_error(o, "gpu.arch = blackwell", c);
    EXPECT_NE(o.text.find("simfa's cycle simulator models Hopper (sm_90) SMs only"), std::string::npos) << c;
  }
  const Out b = simfa("run --gpu b200");
  EXPECT_NE(b.text.find("tcgen05 UMMA"), std::string::npos) << b.text;
  EXPECT_NE(b.text.find("simfa analyze"), std::string::npos) << b.text;
}

TEST(Vocabulary, BlackwellPresetsReachTheAnalyticModel) {
  const Out o = simfa("analyze --gpu gb10 --kernel cutile --model llama3-405b --seqlen 16K --json -");
  ASSERT_EQ(o.rc, 0) << o.text;
  const auto start = o.text.find('{');
  const auto j = nlohmann::json::parse(o.text.substr(start, o.text.rfind('}') - start + 1));
  EXPECT_EQ(j["gpu"]["name"], "GB10");
  EXPECT_EQ(j["gpu"]["arch"], "blackwell-sm12x");
  EXPECT_EQ(j["gpu"]["num_sms"], 48);
  EXPECT_EQ(j["points"][0]["tile_m"], 64);
  EXPECT_EQ(j["points"][0]["tile_n"], 32);
  EXPECT_EQ(j["points"][0]["l2_effective_bytes"], 24 * 1024 * 1024);
  ASSERT_EQ(j["warnings"].size(), 1u);  // the assumed clock and tensor rate; cuTile runs on GB10
  EXPECT_NE(j["warnings"][0].get<std::string>().find("gpu.assumed"), std::string::npos);
  // FA3 on a Blackwell GPU: said, not refused.
  const Out f = simfa("analyze --gpu b200 -q");
  EXPECT_EQ(f.rc, 0) << f.text;
  EXPECT_NE(f.text.find("simfa: warning: B200 is gpu.arch = blackwell, but fa3.kernel = fa3 is a Hopper"),
            std::string::npos)
      << f.text;
  // config show lists the presets' values and sources.
  const Out c = simfa("config show --gpu b200");
  EXPECT_NE(c.text.find("gpu.arch"), std::string::npos);
  EXPECT_NE(c.text.find("set by: preset b200"), std::string::npos);
}

std::string points_of(const std::string& args) {
  const Out o = simfa("analyze " + args + " --json -");
  EXPECT_EQ(o.rc, 0) << args << ": " << o.text;
  const auto start = o.text.find('{');
  if (start == std::string::npos) return "";
  return nlohmann::json::parse(o.text.substr(start, o.text.rfind('}') - start + 1))["points"].dump();
}

TEST(Vocabulary, AnalyzeReadsTheSimulatorsKeysAndItsFlagsAreAliases) {
  const std::string shape = "--model llama3-8b --seqlen 8K";
  const std::string by_key = points_of(shape + " --set fa3.tile_m=64 --set fa3.tile_n=128");
  EXPECT_NE(by_key, points_of(shape));
  EXPECT_NE(by_key.find("\"tile_m\":64"), std::string::npos) << by_key;
  EXPECT_EQ(by_key, points_of(shape + " --tile-m 64 --tile-n 128"));
  EXPECT_EQ(points_of(shape + " --set gpu.num_sms=114 --set model.occupancy=2 --set fa3.splits=1"),
            points_of(shape + " --num-sms 114 --occupancy 2 --splits 1"));
  EXPECT_EQ(points_of(shape + " --set model.l2_effective=16MiB --set fa3.pack_gqa=on --set fa3.kernel=cutile"),
            points_of(shape + " --l2-effective-mib 16 --pack-gqa on --kernel cutile"));
  // --sweep takes the keys, and the old names as aliases of them.
  const std::string swept = points_of(shape + " --sweep fa3.tile_m=64,128");
  EXPECT_EQ(swept, points_of(shape + " --sweep tile_m=64,128"));
  EXPECT_EQ(points_of(shape + " --sweep model.l2_effective=16MiB,32MiB"),
            points_of(shape + " --sweep l2_effective_mib=16,32"));
  // A contradiction between an alias and --set is an error.
  expect_error(simfa("analyze --tile-m 64 --set fa3.tile_m=128"), "--tile-m 64 contradicts --set fa3.tile_m=128",
               "alias");
}

TEST(Vocabulary, AnalyzeRefusesAKeyItDoesNotRead) {
  expect_error(simfa("analyze --set fa3.stages=3 -q"), "--set fa3.stages=3: simfa analyze does not read fa3.stages",
               "fa3.stages");
  const Out o = simfa("analyze --set sm.max_ctas=4 -q");
  expect_error(o, "does not read sm.max_ctas, which configures the cycle simulator (simfa run)", "sm.max_ctas");
  EXPECT_NE(o.text.find("fa3.tile_m"), std::string::npos) << o.text;  // it says what it reads
  expect_error(simfa("analyze --sweep fa3.stages=2,3 -q"), "--sweep: the analytic model does not read 'fa3.stages'",
               "sweep");
  expect_error(simfa("analyze --sweep fa3.kernel=fa3 -q"), "only numeric keys can be swept", "sweep enum");
  expect_error(simfa("plot traffic --set sample.mode=on -o /tmp/simfa_cli_x.svg"), "does not read sample.mode", "plot");
}

TEST(Vocabulary, SeqlenKvIsTheFlagAndKvSeqlenItsAlias) {
  const Out h = simfa("run --help");
  EXPECT_NE(h.text.find("--seqlen-kv"), std::string::npos);
  EXPECT_EQ(points_of("--seqlen 1K --seqlen-kv 4K"), points_of("--seqlen 1K --kv-seqlen 4K"));
  // The measurements CSV: seqlen_kv, or kv_seqlen by its old name, not both.
  const std::string both = temp_file("both.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us,seqlen_kv,kv_seqlen\n"
                                                 "a,1,512,32,128,0,10,512,512\n");
  expect_error(simfa("validate --measurements " + both), "columns 'seqlen_kv' and 'kv_seqlen' are the same column",
               "both");
}

TEST(Vocabulary, DecodeIsSimulatedWithAWarningAndAForcedSplitIsRefused) {
  const std::string decode = "run --model llama3-8b --seqlen-q 1 --seqlen-kv 2048";
  const std::string json = (std::filesystem::temp_directory_path() / "simfa_cli_decode.json").string();
  const Out o = simfa(decode + " --json " + json);
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("simfa: warning: FA3's num_splits heuristic splits this shape's KV into"), std::string::npos)
      << o.text;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NE(j["warnings"][0].get<std::string>().find("flash_attn_with_kvcache"), std::string::npos);
  const Out quiet = simfa(decode + " --set fa3.splits=1");
  EXPECT_EQ(quiet.rc, 0) << quiet.text;
  EXPECT_EQ(quiet.text.find("warning"), std::string::npos) << quiet.text;
  expect_error(simfa(decode + " --set fa3.splits=2"), "the cycle simulator synthesizes FA3 without split-KV", "split");
  expect_error(simfa("run --set fa3.kernel=cutile"), "fa3.kernel = cutile (--set): cuTile's FlashAttention", "cutile");
  // A prefill run has no warnings: [] in the document.
  const Out p = simfa("run --model llama3-8b --seqlen 256 --set gpu.num_sms=8 --json " + json);
  ASSERT_EQ(p.rc, 0) << p.text;
  std::ifstream in2(json);
  EXPECT_TRUE(nlohmann::json::parse(in2)["warnings"].empty());
}

}  // namespace

namespace {

// Every flag of docs/configuration.md's vocabulary table is a flag of the commands it names (of
// `simfa run` when it names none), and every key is a configuration key.
TEST(Vocabulary, TheTableNamesRealFlagsAndKeys) {
  const std::string commands[] = {"run", "analyze", "plot traffic", "validate", "translate", "ablate"};
  std::map<std::string, std::string> help;
  for (const auto& c : commands) help[c.substr(0, c.find(' '))] = simfa(c + " --help").text;
  const std::string keys = simfa("config show --json").text;
  for (const simfa::Term& t : simfa::kVocabulary) {
    if (!t.key.empty() && t.key != "KEY")
      EXPECT_NE(keys.find("\"" + std::string(t.key) + "\""), std::string::npos) << t.key;
    if (t.flag.empty()) continue;
    const std::string flag(t.flag);
    const auto paren = flag.find(" (");
    std::vector<std::string> in = {"run"};
    if (paren != std::string::npos) {
      std::string list = flag.substr(paren + 2, flag.find_first_of(";)", paren) - paren - 2);
      std::vector<std::string> names;
      for (std::size_t p = 0; p < list.size();) {
        const auto c = list.find(", ", p);
        names.push_back(list.substr(p, c == std::string::npos ? std::string::npos : c - p));
        if (c == std::string::npos) break;
        p = c + 2;
      }
      if (std::all_of(names.begin(), names.end(), [&](const std::string& n) { return help.count(n) > 0; })) in = names;
    }
    const std::string flags = flag.substr(0, paren);
    for (std::size_t p = 0; p < flags.size();) {
      auto c = flags.find(", ", p);
      std::string f = flags.substr(p, c == std::string::npos ? std::string::npos : c - p);
      f = f.substr(0, f.find(' '));
      for (const auto& cmd : in) EXPECT_NE(help[cmd].find(f), std::string::npos) << f << " in " << cmd;
      if (c == std::string::npos) break;
      p = c + 2;
    }
  }
}

}  // namespace

namespace {

// Commands that run no workload, and a workload that does not read the attention model, refuse
// the keys they would otherwise accept and ignore.
TEST(Vocabulary, KeysACommandDoesNotReadAreRefused) {
  expect_error(simfa("microbench tma-latency --ws 1024 --quiet --set fa3.tile_m=64"),
               "--set fa3.tile_m=64: simfa microbench does not read fa3.* keys", "microbench");
  expect_error(simfa("trace run " + kExample + " --set sample.mode=on"),
               "--set sample.mode=on: simfa trace run does not read sample.* keys", "trace run");
  expect_error(simfa("run --workload gemm --m 256 --n 256 --k 256 --set model.occupancy=2"),
               "model.occupancy = 2 (--set) configures the attention analytic model, which a gemm run does not use",
               "gemm");
}

}  // namespace
