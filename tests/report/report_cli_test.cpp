// The commands through the binary: `simfa run --timeline`, `simfa validate`, `simfa ablate`, and
// their errors (exit code 2, one line naming the file, line and column or flag).
#include <gtest/gtest.h>

#include <cstdlib>
#include <csignal>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "report_test_util.h"

namespace simfa::test {
namespace {

const std::string kCsv = std::string(SIMFA_SOURCE_DIR) + "/tests/data/synthetic_measurements.csv";
const std::string kTiny = "--model llama3-8b --seqlen 256 --set gpu.num_sms=8";

TEST(RunTimeline, WritesPerfettoJsonAndSvg) {
  const std::string json = temp_path("tl.json"), svg = temp_path("tl.svg");
  CliOut o = simfa_cli("run " + kTiny + " --timeline " + json + " --timeline-sms 0,1");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("timeline          " + json), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("ping-pong         SM 0"), std::string::npos) << o.text;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_GT(j["traceEvents"].size(), 100u);
  o = simfa_cli("run " + kTiny + " --timeline " + svg + " --timeline-window-us 0:20");
  ASSERT_EQ(o.rc, 0) << o.text;
  std::string err;
  const std::string text = read_file(svg);
  EXPECT_TRUE(xml_well_formed(text, &err)) << err;
  EXPECT_NE(text.find("0.00 – 20.00 µs"), std::string::npos);
}

TEST(RunTimeline, BadFlagsAreUserErrorsBeforeTheRun) {
  CliOut o = simfa_cli("run " + kTiny + " --timeline out.png");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("must end in .json"), std::string::npos) << o.text;
  o = simfa_cli("run " + kTiny + " --timeline " + temp_path("x.svg") + " --timeline-sms 9");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("SM 9 does not exist (this GPU has 8 SMs)"), std::string::npos) << o.text;
  o = simfa_cli("run " + kTiny + " --timeline " + temp_path("x.svg") + " --timeline-window-us 5:2");
  EXPECT_EQ(o.rc, 2) << o.text;
  o = simfa_cli("run " + kTiny + " --timeline " + temp_path("x.json") + " --timeline-max-spans 10");
  EXPECT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("warning: timeline: span limit of 10 reached"), std::string::npos) << o.text;
}

TEST(Run, SummaryAndJsonCarryTheAnalyticModelBesideTheSimulatedTraffic) {
  const std::string json = temp_path("run_analytic.json");
  CliOut o = simfa_cli("run " + kTiny + " --json " + json);
  ASSERT_EQ(o.rc, 0) << o.text;
  for (const char* s : {"(analytic roofline: ", "with cluster multicast, Eq. 2 ", " regime)"})
    EXPECT_NE(o.text.find(s), std::string::npos) << s << "\n" << o.text;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("analytic")) << j.dump();
  const auto& a = j["analytic"];
  // Non-causal, cluster 2: every K/V line is fetched once per cluster, so the simulated L2 bytes are
  // the model's multicast figure exactly (Eq. 2 minus half the K/V demand).
  EXPECT_EQ(j["l2_bytes"].get<double>(), a["l2_bytes_coalesced"].get<double>());
  EXPECT_LT(a["l2_bytes_coalesced"].get<double>(), a["l2_bytes"].get<double>());
  EXPECT_EQ(a["regime"], "ideal");
  EXPECT_GT(a["latency_us"].get<double>(), 0.0);
  EXPECT_LE(a["latency_us"].get<double>(), j["latency_us"].get<double>() * 1.5);
}

TEST(Run, SequenceLengthsTakeKAndMSuffixesAndBadOnesNameTheFlag) {
  const std::string json = temp_path("run_suffix.json");
  CliOut o = simfa_cli("run --model llama3-8b --heads-kv 1 --group 2 --seqlen 1K --kv-seqlen 2k "
                       "--set gpu.num_sms=8 --json " + json);
  ASSERT_EQ(o.rc, 0) << o.text;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["workload"]["seqlen_q"], 1024);
  EXPECT_EQ(j["workload"]["seqlen_kv"], 2048);
  o = simfa_cli("run --seqlen 64X");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("--seqlen: '64X' is not a token count"), std::string::npos) << o.text;
  o = simfa_cli("run --seqlen -5");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("--seqlen must be at least 1, got -5"), std::string::npos) << o.text;
  // 0 is not "the preset's value" when typed explicitly.
  for (const char* flag : {"--heads-kv", "--group", "--head-dim", "--seqlen-kv"}) {
    o = simfa_cli(std::string("run ") + flag + " 0");
    EXPECT_EQ(o.rc, 2) << flag << "\n" << o.text;
    EXPECT_NE(o.text.find(std::string(flag) + ": must be at least 1, got 0"), std::string::npos) << o.text;
  }
  o = simfa_cli("run --clock-mhz 0");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("--clock-mhz: must be at least 1 (MHz), got 0"), std::string::npos) << o.text;
}

TEST(Validate, RunsTheSyntheticCsvAndWritesJson) {
  const std::string json = temp_path("validate.json");
  CliOut o = simfa_cli("validate --measurements " + kCsv + " --json " + json);
  ASSERT_EQ(o.rc, 0) << o.text;
  for (const char* s : {"tiny-mha", "tiny-gqa-causal", "tiny-d64-cross", "MAPE", "max |error|", "over 3 cases"})
    EXPECT_NE(o.text.find(s), std::string::npos) << s << "\n" << o.text;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["cases"].size(), 3u);
  double mape = 0, maxe = 0;
  for (const auto& c : j["cases"]) {
    EXPECT_DOUBLE_EQ(c["measured_us"].get<double>(), 10.0);
    const double sim = c["simulated_us"].get<double>();
    EXPECT_GT(sim, 0);
    EXPECT_NEAR(c["error_pct"].get<double>(), 100 * (sim - 10) / 10, 1e-9);
    mape += std::abs(c["error_pct"].get<double>()) / 3;
    maxe = std::max(maxe, std::abs(c["error_pct"].get<double>()));
  }
  EXPECT_NEAR(j["mape_pct"].get<double>(), mape, 1e-9);
  EXPECT_NEAR(j["max_abs_error_pct"].get<double>(), maxe, 1e-9);
  EXPECT_EQ(j["cases"][0]["case"], "tiny-mha");
}

TEST(Run, CtrlCStopsTheSimulationWithExitCode130) {
  // The default run takes tens of seconds; SIGINT after one second must end it at the next poll
  // (within 65,536 simulated cycles). If it did not, the run would finish by itself and the exit
  // code below would be 0: the test cannot hang.
  const std::string out = temp_path("interrupted.txt");
  std::vector<std::string> args = {SIMFA_BIN, "run", "--json", temp_path("interrupted.json")};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, SIMFA_BIN, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  ::sleep(1);
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_NE(read_file(out).find("interrupted (Ctrl-C)"), std::string::npos) << read_file(out);
  EXPECT_FALSE(std::filesystem::exists(temp_path("interrupted.json")));
}

TEST(Run, ALongRunSaysSoAndMaxCyclesBoundsIt) {
  // Llama-3 405B at 64K tokens: the analytic roofline alone is 5e8 cycles (an hour or more here).
  const CliOut o = simfa_cli("run --model llama3-405b --seqlen 64k --set sim.max_cycles=100000");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("this run simulates at least 5.21e+08 cycles"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("the run passed sim.max_cycles = 100000 simulated cycles without finishing (0 of 132 CTAs done)"),
            std::string::npos)
      << o.text;
  // Nor does a sampled one, which fast-forwards most of those cycles (stopped early here too).
  const CliOut sampled =
      simfa_cli("run --model llama3-405b --seqlen 64k --set sample.mode=on --set sim.max_cycles=100000");
  EXPECT_EQ(sampled.rc, 2) << sampled.text;
  EXPECT_EQ(sampled.text.find("simfa: note: this run simulates"), std::string::npos) << sampled.text;
  // A short run prints no note.
  const CliOut tiny = simfa_cli("run " + kTiny);
  EXPECT_EQ(tiny.rc, 0) << tiny.text;
  EXPECT_EQ(tiny.text.find("simfa: note: this run simulates"), std::string::npos) << tiny.text;
}

TEST(Validate, OutputDoesNotDependOnJobs) {
  // Cases run on worker threads and are printed in the CSV's order: -j 1 and -j 3 print the same.
  const CliOut one = simfa_cli("validate --measurements " + kCsv + " -j 1");
  const CliOut three = simfa_cli("validate --measurements " + kCsv + " -j 3");
  ASSERT_EQ(one.rc, 0) << one.text;
  ASSERT_EQ(three.rc, 0) << three.text;
  EXPECT_EQ(one.text, three.text);
  const CliOut bad = simfa_cli("validate --measurements " + kCsv + " -j 0");
  EXPECT_EQ(bad.rc, 2) << bad.text;
  EXPECT_NE(bad.text.find("--jobs"), std::string::npos) << bad.text;
}

TEST(Validate, CaseMatchesSimfaRun) {
  // Row tiny-mha is `simfa run --model none --heads-kv 2 --head-dim 128 --seqlen 256`.
  const std::string vj = temp_path("v1.json"), rj = temp_path("r1.json");
  ASSERT_EQ(simfa_cli("validate --measurements " + kCsv + " --json " + vj).rc, 0);
  ASSERT_EQ(simfa_cli("run --model none --heads-kv 2 --head-dim 128 --seqlen 256 --json " + rj).rc, 0);
  std::ifstream a(vj), b(rj);
  const auto v = nlohmann::json::parse(a), r = nlohmann::json::parse(b);
  EXPECT_DOUBLE_EQ(v["cases"][0]["simulated_us"].get<double>(), r["latency_us"].get<double>());
}

// `simfa validate --logs`: cases simulated from instrumentation logs of the measured kernel (the
// committed H200 log of gpu/attn, Llama-3 8B heads at L = S = 512, decompressed with xz).
class ValidateLogs : public ::testing::Test {
 protected:
  // Each test its own folder and CSV: ctest runs the tests of this fixture in parallel.
  static std::string tag() { return ::testing::UnitTest::GetInstance()->current_test_info()->name(); }
  void SetUp() override {
    dir_ = temp_path("logs_" + tag());
    std::filesystem::create_directories(dir_);
    const std::string xz = std::string(SIMFA_SOURCE_DIR) + "/data/measured/h200/evlog/llama3-8b-s512.evlog.xz";
    ASSERT_EQ(std::system(("xz -dc '" + xz + "' > '" + dir_ + "/llama3-8b-s512.evlog'").c_str()), 0)
        << "xz (scripts/install-deps) could not decompress " << xz;
  }
  // The row as gpu/attn's timings.csv writes it (its gpu column is CUDA's device name).
  static std::string csv(const std::string& rows) {
    return write_temp("logs_" + tag() + ".csv", "case,batch,seqlen,heads,head_dim,causal,measured_us,kv_seqlen,heads_kv,dtype,"
                                  "clock_mhz,gpu\n" + rows);
  }
  static constexpr const char* kRow = "llama3-8b-s512,1,512,32,128,0,17.26,512,8,fp16,1735,NVIDIA H200\n";
  std::string dir_;
};

TEST_F(ValidateLogs, SimulatesEachCaseFromItsLogWithBothBubbleModes) {
  const std::string m = csv(std::string(kRow) + "no-log-here,1,512,32,128,0,17.26,512,8,fp16,1735,NVIDIA H200\n");
  const std::string jm = temp_path("logs_model.json"), js = temp_path("logs_measured.json");
  CliOut o = simfa_cli("validate --measurements " + m + " --kernel simfa-attn --logs " + dir_ + " --json " + jm);
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("has no no-log-here.evlog: case 'no-log-here' skipped"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("over 1 case\n"), std::string::npos) << o.text;
  o = simfa_cli("validate --measurements " + m + " --kernel simfa-attn --logs " + dir_ + " --bubbles measured --json " +
                js);
  ASSERT_EQ(o.rc, 0) << o.text;
  std::ifstream a(jm), b(js);
  const auto model = nlohmann::json::parse(a), measured = nlohmann::json::parse(b);
  ASSERT_EQ(model["cases"].size(), 1u);
  ASSERT_EQ(measured["cases"].size(), 1u);
  EXPECT_EQ(model["cases"][0]["case"], "llama3-8b-s512");
  // The logged softmax and epilogue took longer than the model's bubbles.
  EXPECT_GT(measured["cases"][0]["simulated_us"].get<double>(), model["cases"][0]["simulated_us"].get<double>());
  // Model bubbles from the log are the synthesized kernel's own simulation (same instructions).
  const std::string jsyn = temp_path("logs_synth.json");
  ASSERT_EQ(simfa_cli("validate --measurements " + csv(kRow) + " --kernel simfa-attn --json " + jsyn).rc, 0);
  std::ifstream c(jsyn);
  const auto synth = nlohmann::json::parse(c);
  EXPECT_NEAR(synth["cases"][0]["simulated_us"].get<double>(), model["cases"][0]["simulated_us"].get<double>(),
              0.02 * model["cases"][0]["simulated_us"].get<double>());
}

TEST_F(ValidateLogs, BadUseExitsWithCode2AndOneLine) {
  auto expect = [](const CliOut& o, const std::string& what) {
    EXPECT_EQ(o.rc, 2) << o.text;
    EXPECT_NE(o.text.find("simfa: error: " + what), std::string::npos) << o.text;
  };
  const std::string m = csv(kRow);
  expect(simfa_cli("validate --measurements " + m + " --bubbles measured"),
         "--bubbles applies to cases simulated from logs: add --logs DIR");
  expect(simfa_cli("validate --measurements " + m + " --logs /nonexistent/dir"), "--logs /nonexistent/dir: not a directory");
  expect(simfa_cli("validate --measurements " + csv("other,1,512,32,128,0,10,512,8,fp16,1735,h200\n") + " --logs " + dir_),
         "--logs " + dir_ + ": no case of ");
  expect(simfa_cli("validate --measurements " + m + " --kernel flash"),
         "--kernel: fa3.kernel = 'flash': expected one of: fa3, simfa-attn, cutile");
  expect(simfa_cli("validate --measurements " + m + " --kernel fa3 --set fa3.kernel=simfa-attn"),
         "--kernel fa3 contradicts --set fa3.kernel=simfa-attn");
  expect(simfa_cli("validate --measurements " + m + " --logs " + dir_ + " --bubbles both"),
         "--bubbles both: expected 'model' or 'measured'");
  // A log of another shape than its row (64 query heads in the row, 32 in the log).
  const std::string bad = csv("llama3-8b-s512,1,512,64,128,0,17.26,512,8,fp16,1735,h200\n");
  expect(simfa_cli("validate --measurements " + bad + " --kernel simfa-attn --logs " + dir_),
         bad + ":2 (case 'llama3-8b-s512'): the log " + dir_ + "/llama3-8b-s512.evlog describes B 1 x H_KV 8 x G 4");
  // Without --kernel simfa-attn the log is read as FA3's, which records an O TensorMap.
  expect(simfa_cli("validate --measurements " + m + " --logs " + dir_), m + ":2 (case 'llama3-8b-s512'): " + dir_ +
                                                                            "/llama3-8b-s512.evlog: no TensorMap with id 3 (O)");
}

TEST(Validate, BadCsvsExitWithCode2AndNameTheProblem) {
  struct Bad {
    std::string name, content, message;
  };
  const std::vector<Bad> bad = {
      {"missing.csv", "case,batch,seqlen,heads,head_dim,causal\na,1,256,2,128,0\n", ":1: missing column 'measured_us'"},
      {"unknown.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us,color\na,1,256,2,128,0,10,red\n",
       ":1: unknown column 'color'"},
      {"nonnum.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us\na,1,256,two,128,0,10\n",
       ":2: column 'heads': expected a positive integer, got 'two'"},
      {"zero.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us\na,1,0,2,128,0,10\n",
       ":2: column 'seqlen': must be at least 1, got 0"},
      {"empty.csv", "", ": empty file"},
      {"header_only.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us\n", ": no cases"},
      {"gpu.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us,gpu\na,1,256,2,128,0,10,h900\n",
       ":2 (case 'a'): "},
  };
  for (const auto& b : bad) {
    const std::string path = write_temp(b.name, b.content);
    const CliOut o = simfa_cli("validate --measurements " + path);
    EXPECT_EQ(o.rc, 2) << b.name << ": " << o.text;
    EXPECT_NE(o.text.find("simfa: error: " + path + b.message), std::string::npos) << b.name << ": " << o.text;
    EXPECT_EQ(std::count(o.text.begin(), o.text.end(), '\n'), 1) << b.name << ": " << o.text;
  }
  const CliOut o = simfa_cli("validate --measurements /nonexistent/m.csv");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("/nonexistent/m.csv: no such file or directory"), std::string::npos) << o.text;
}

TEST(Ablate, PrintsATable5StyleMapeTable) {
  const std::string json = temp_path("ablate.json");
  CliOut o = simfa_cli("ablate --measurements " + kCsv + " --set mem.model=hierarchy --json " + json);
  ASSERT_EQ(o.rc, 0) << o.text;
  for (const char* s : {"Variant", "MAPE", "Sim-FA (baseline)", "No LRC (no-lrc)", "Oversimplified hash (simple-hash)",
                        "No line deduplication (no-dedup)", "over 3 cases"})
    EXPECT_NE(o.text.find(s), std::string::npos) << s << "\n" << o.text;
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  ASSERT_EQ(j["variants"].size(), 4u);
  EXPECT_EQ(j["variants"][0]["variant"], "baseline");
  EXPECT_EQ(j["variants"][3]["variant"], "no-dedup");
  for (const auto& v : j["variants"]) {
    EXPECT_TRUE(v.contains("mape_pct"));
    EXPECT_EQ(v["cases"].size(), 3u);
  }
  // Without deduplication TMA sends a request per element: the kernel cannot be faster.
  for (int c = 0; c < 3; ++c)
    EXPECT_GE(j["variants"][3]["cases"][c]["simulated_us"].get<double>(),
              j["variants"][0]["cases"][c]["simulated_us"].get<double>());
}

TEST(Ablate, OneWorkloadWithoutMeasurementsAndErrors) {
  CliOut o = simfa_cli("ablate " + kTiny + " --ablate no-dedup");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("latency_us"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("No line deduplication (no-dedup)"), std::string::npos) << o.text;
  EXPECT_EQ(o.text.find("No LRC"), std::string::npos) << o.text;
  o = simfa_cli("ablate " + kTiny + " --ablate no-such");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("unknown ablation 'no-such'"), std::string::npos) << o.text;
  o = simfa_cli("ablate --seqlen 512 --measurements " + kCsv);
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("--seqlen cannot be combined with --measurements"), std::string::npos) << o.text;
}

}  // namespace
}  // namespace simfa::test
