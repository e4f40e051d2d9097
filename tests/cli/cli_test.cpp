// The command line: exit codes (0 ok, 2 bad input, 3 deadlock), messages, JSON output.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace {

using simfa::test::Out;
using simfa::test::simfa;
using simfa::test::temp_file;

const std::string kExample = std::string(SIMFA_SOURCE_DIR) + "/examples/traces/pingpong.sft";

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(simfa("--help").rc, 0);
  EXPECT_EQ(simfa("--version").rc, 0);
}

TEST(Cli, UnknownSubcommandIsAUserError) { EXPECT_EQ(simfa("frobnicate").rc, 2); }

TEST(Cli, TraceRunPrintsSummaryAndWritesJson) {
  const std::string json = (std::filesystem::temp_directory_path() / "simfa_cli_out.json").string();
  Out o = simfa("trace run " + kExample + " --json " + json);
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("cycles"), std::string::npos);
  EXPECT_NE(o.text.find("tensor pipe busy"), std::string::npos);
  std::ifstream in(json);
  auto j = nlohmann::json::parse(in);
  EXPECT_GT(j["cycles"].get<double>(), 0);
  EXPECT_TRUE(j["config"].contains("tma.launch_cycles"));
  EXPECT_TRUE(j["stats"].contains("gpu.sm[0].tensor.busy_cycles"));
  // The reference mode gives the same result.
  Out n = simfa("trace run " + kExample + " --no-skip");
  ASSERT_EQ(n.rc, 0) << n.text;
  EXPECT_EQ(o.text.substr(0, o.text.find("simulation")), n.text.substr(0, n.text.find("simulation")));
}

TEST(Cli, MissingFileAndMalformedTraceAreUserErrors) {
  Out o = simfa("trace run /nonexistent/x.sft");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("/nonexistent/x.sft: no such file or directory"), std::string::npos) << o.text;
  const auto bad = temp_file("bad.sft", "SIMFA_TRACE 1\nKERNEL\nCTA 0\nWG 0\nWGMMA 0 0 0 64 7 16 f16 1 SS 0 0\n");
  Out b = simfa("trace run " + bad);
  EXPECT_EQ(b.rc, 2);
  EXPECT_NE(b.text.find("bad.sft:5: WGMMA: WGMMA N = 7 is not supported"), std::string::npos) << b.text;
}

TEST(Cli, BadConfigurationIsAUserError) {
  Out o = simfa("trace run " + kExample + " --set tma.launch_cycle=3");
  EXPECT_EQ(o.rc, 2);
  EXPECT_NE(o.text.find("did you mean 'tma.launch_cycles'"), std::string::npos) << o.text;
  Out g = simfa("trace run " + kExample + " --gpu h900");
  EXPECT_EQ(g.rc, 2);
  EXPECT_NE(g.text.find("h800-pcie"), std::string::npos) << g.text;
  const auto toml = temp_file("bad.toml", "preset = \"h800\"\n[tma]\nlaunch_cycles = \"soon\"\n");
  Out f = simfa("trace run " + kExample + " --gpu " + toml);
  EXPECT_EQ(f.rc, 2);
  EXPECT_NE(f.text.find("bad.toml:3: tma.launch_cycles = 'soon'"), std::string::npos) << f.text;
}

TEST(Cli, MissingReleaseEndsWithExitCode3AndTheWaiterReport) {
  const auto t = temp_file("deadlock.sft",
                           "SIMFA_TRACE 1\nKERNEL stages=1 stage_arrivals=1\nCTA 0\nWG 0 role=producer\n"
                           "ACQUIRE_STAGE 0\nACQUIRE_STAGE 0\nWG 1 role=consumer\nMB_WAIT 0\n");
  Out o = simfa("trace run " + t);
  EXPECT_EQ(o.rc, 3) << o.text;
  EXPECT_NE(o.text.find("deadlock"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("deadlock.sft:6: ACQUIRE_STAGE 0 -- waits for stage 0 to be released"), std::string::npos)
      << o.text;
}

TEST(Cli, MicrobenchBadRunLengthsAreUserErrorsNamingTheFlag) {
  struct Case {
    const char* args;
    const char* message;
  };
  for (const Case& c : {Case{"microbench tma-latency --ws 0 --quiet", "working set 0 KiB (--ws"},
                        Case{"microbench load-latency --ws 0.05 --quiet", "at least one 128-byte line"},
                        Case{"microbench dram-bandwidth --blocks-per-sm 0 --quiet", "--blocks-per-sm must be"},
                        Case{"microbench tma-bandwidth --sim-mib 0 --quiet", "--sim-mib must be at least 1"},
                        Case{"microbench tma-latency --hops 0 --quiet", "--hops must be at least 1"}}) {
    const Out o = simfa(c.args);
    EXPECT_EQ(o.rc, 2) << c.args << "\n" << o.text;
    EXPECT_NE(o.text.find(c.message), std::string::npos) << c.args << "\n" << o.text;
  }
}

TEST(Cli, MicrobenchSimulatesAtTheClockOfTheMeasuredFile) {
  const auto one = temp_file("clock1000.csv", "# a comment\nworking_set_kib,latency_cycles,clock_mhz\n2,300,1000\n4,300,1000\n");
  const std::string run = "microbench load-latency --ws 2 --hops 20 --quiet --compare " + one;
  Out f = simfa(run);
  ASSERT_EQ(f.rc, 0) << f.text;
  EXPECT_NE(f.text.find("clock_mhz: 1000"), std::string::npos) << f.text;
  Out c = simfa(run + " --clock-mhz 1500");
  ASSERT_EQ(c.rc, 0) << c.text;
  EXPECT_NE(c.text.find("clock_mhz: 1500"), std::string::npos) << c.text;
  Out s = simfa(run + " --set gpu.clock=1200MHz");
  ASSERT_EQ(s.rc, 0) << s.text;
  EXPECT_NE(s.text.find("clock_mhz: 1200"), std::string::npos) << s.text;
  const auto mixed = temp_file("clockmixed.csv", "working_set_kib,latency_cycles,clock_mhz\n2,300,1980\n4,300,1755\n");
  Out m = simfa("microbench load-latency --ws 2 --hops 20 --quiet --compare " + mixed);
  EXPECT_EQ(m.rc, 2) << m.text;
  EXPECT_NE(m.text.find("clockmixed.csv:3: clock_mhz 1755 differs from the 1980 MHz of line 2"), std::string::npos)
      << m.text;
  const auto bad = temp_file("clockbad.csv", "working_set_kib,latency_cycles,clock_mhz\n2,300,fast\n");
  Out b = simfa("microbench load-latency --ws 2 --hops 20 --quiet --compare " + bad);
  EXPECT_EQ(b.rc, 2) << b.text;
  EXPECT_NE(b.text.find("clockbad.csv:2: clock_mhz 'fast' is not a clock in MHz"), std::string::npos) << b.text;
}

TEST(Cli, ConfigShowListsKeysWithUnitsAndSources) {
  Out o = simfa("config show --gpu h800-pcie");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("gpu.clock"), std::string::npos);
  EXPECT_NE(o.text.find("1755MHz"), std::string::npos);
  EXPECT_NE(o.text.find("source: paper Table 2"), std::string::npos);
  Out j = simfa("config show --json --set tma.launch_cycles=41");
  ASSERT_EQ(j.rc, 0);
  EXPECT_EQ(nlohmann::json::parse(j.text)["tma.launch_cycles"], 41);
}

TEST(Cli, SimulationAndAnalyticModelTakeOneSetOfWorkloadFlags) {
  const Out run = simfa("run --help"), analyze = simfa("analyze --help");
  for (const char* flag : {"--model", "--batch", "--seqlen", "--seqlen-q", "--seqlen-kv", "--heads-kv", "--group",
                           "--head-dim", "--dtype", "--causal", "--clock-mhz", "--gpu", "--set"}) {
    EXPECT_NE(run.text.find(flag), std::string::npos) << flag;
    EXPECT_NE(analyze.text.find(flag), std::string::npos) << flag;
  }
  // One resolver: the same contradiction is the same error for both.
  for (const char* cmd : {"run", "analyze"}) {
    const Out o = simfa(std::string(cmd) + " --seqlen 1024 --seqlen-q 512");
    EXPECT_EQ(o.rc, 2) << cmd;
    EXPECT_NE(o.text.find("seqlen (--seqlen) 1024 and seqlen_q (--seqlen-q) 512 disagree"), std::string::npos)
        << cmd << ": " << o.text;
  }
}

}  // namespace

namespace {

// --- The GEMM workload (docs/workloads.md) ------------------------------------------------------------

TEST(Cli, GemmRunReportsTheSameFiguresAsFa3AndItsTraceReplaysToTheSameCycles) {
  const std::string json = temp_file("gemm_run.json", "");
  const auto r = simfa("run --workload gemm --m 256 --n 256 --k 128 --set gpu.num_sms=2 --json " + json);
  ASSERT_EQ(r.rc, 0) << r.text;
  for (const char* line : {"workload          B 1 x M 256 x N 256 x K 128, fp16",
                           "kernel            gemm_fp16_128x128x64_cooperative: tile 128x128x64, 2 consumer WGs "
                           "(cooperative), 6 stages, grid 2, static persistent scheduler",
                           "(analytic roofline: ", "% of the ", "L2 bytes          ", "(tiles' traffic: ",
                           "(sum ", "compulsory: ", "tensor core util  "})
    EXPECT_NE(r.text.find(line), std::string::npos) << line << "\n" << r.text;
  EXPECT_EQ(r.text.find("CUDA-core pipes"), std::string::npos) << "no softmax in a GEMM";
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["workload"]["name"], "gemm");
  EXPECT_EQ(j["workload"]["m"], 256);
  EXPECT_EQ(j["analytic"]["flops"], 2.0 * 256 * 256 * 128);
  EXPECT_EQ(j["stats"]["gpu.tensor.flops"], 2.0 * 256 * 256 * 128);
  const std::string dir = (std::filesystem::temp_directory_path() / "simfa_cli_gemm_trace").string();
  std::filesystem::remove_all(dir);
  const auto gen = simfa("trace gen --workload gemm --m 256 --n 256 --k 128 --set gpu.num_sms=2 -o " + dir);
  ASSERT_EQ(gen.rc, 0) << gen.text;
  EXPECT_NE(gen.text.find("wrote gemm_fp16_128x128x64_cooperative (2 CTAs of 3 WarpGroups, cluster 1)"),
            std::string::npos) << gen.text;
  const auto replay = simfa("trace run " + dir + " --set gpu.num_sms=2");
  ASSERT_EQ(replay.rc, 0) << replay.text;
  const std::string cycles = "cycles            " + std::to_string(j["cycles"].get<long>()) + "\n";
  EXPECT_NE(replay.text.find(cycles), std::string::npos) << cycles << replay.text;
}

TEST(Cli, ValidateTakesGemmRowsBesideAttentionRows) {
  const std::string csv = temp_file("gemm_rows.csv",
                                    "case,batch,seqlen,heads,head_dim,causal,measured_us,workload,m,n,k\n"
                                    "tiny,1,256,2,128,0,10,,,,\n"
                                    "g1,1,,,,,10,gemm,256,256,128\n");
  const auto r = simfa("validate -j 1 --measurements " + csv + " --set gpu.num_sms=2");
  ASSERT_EQ(r.rc, 0) << r.text;
  EXPECT_NE(r.text.find("\ng1 "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("over 2 cases"), std::string::npos) << r.text;
  // The row simulates as `simfa run --workload gemm` does.
  const std::string json = temp_file("gemm_row.json", "");
  ASSERT_EQ(simfa("run --workload gemm --m 256 --n 256 --k 128 --set gpu.num_sms=2 --json " + json).rc, 0);
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  char us[32];
  std::snprintf(us, sizeof us, "%.2f", j["latency_us"].get<double>());
  EXPECT_NE(r.text.find(std::string(us) + "  "), std::string::npos) << us << "\n" << r.text;
}

}  // namespace
