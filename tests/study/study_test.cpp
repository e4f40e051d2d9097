// Study files, their expansion, point keys and the results database (docs/studies.md).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "sim/error.h"
#include "study/db.h"
#include "study/point.h"
#include "study/schema.h"
#include "study/study.h"

namespace simfa::study {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_study_text(text, "s.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Study, ExpandsTheProductInOrderLastFastest) {
  const Study s = parse_study_text(R"(
name = "t"
gpus = ["h800", "h100"]
run = "analyze"
[shape]
seqlen = "1K:2K:1K"
causal = [false, true]
[set]
"mem.l2.size" = "40MiB"
)", "s.toml");
  EXPECT_EQ(count_points(s), 8);
  EXPECT_FALSE(s.simulate);
  EXPECT_TRUE(s.analyze);
  ASSERT_EQ(s.config_keys.size(), 1u);
  EXPECT_EQ(s.config_keys[0], "mem.l2.size");
  const auto pts = expand(s);
  ASSERT_EQ(pts.size(), 8u);
  auto shape = [](const Point& p, const std::string& k) {
    for (const auto& [key, v] : p.shape)
      if (key == k) return v;
    return std::string("?");
  };
  EXPECT_EQ(pts[0].gpu, "h800");
  EXPECT_EQ(shape(pts[0], "seqlen"), "1024");
  EXPECT_EQ(shape(pts[0], "causal"), "false");
  EXPECT_EQ(shape(pts[1], "causal"), "true");
  EXPECT_EQ(shape(pts[2], "seqlen"), "2048");
  EXPECT_EQ(pts[4].gpu, "h100");
  for (std::size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i].index, i);
    ASSERT_EQ(pts[i].sets.size(), 1u);
    EXPECT_EQ(pts[i].sets[0].second, "40MiB");
  }
  // Keys are unique and do not depend on the order keys were written in.
  std::set<std::string> keys;
  for (const auto& p : pts) keys.insert(p.key);
  EXPECT_EQ(keys.size(), pts.size());
  Point q = pts[3];
  std::reverse(q.shape.begin(), q.shape.end());
  EXPECT_EQ(point_key("t", q), pts[3].key);
}

TEST(Study, ZipsVaryTogetherAndVariantsMultiply) {
  const Study s = parse_study_text(R"(
name = "z"
gpus = "h800"
run = "analyze"
[shape]
seqlen = [1024, 2048, 4096]
[[zip]]
head_dim = [64, 128]
group = [1, 8]
[variants]
base = {}
small-l2 = { mem = { l2 = { size = "25MiB" } } }
)", "s.toml");
  EXPECT_EQ(count_points(s), 1 * 2 * 3 * 2);
  const auto pts = expand(s);
  ASSERT_EQ(pts.size(), 12u);
  EXPECT_EQ(pts[0].variant, "base");
  EXPECT_TRUE(pts[0].sets.empty());
  EXPECT_EQ(pts[6].variant, "small-l2");
  ASSERT_EQ(pts[6].sets.size(), 1u);
  EXPECT_EQ(pts[6].sets[0].first, "mem.l2.size");
  // The zip's values pair up: (64, 1) then (128, 8).
  EXPECT_EQ(pts[0].shape[1].second, "64");
  EXPECT_EQ(pts[0].shape[2].second, "1");
  EXPECT_EQ(pts[1].shape[1].second, "128");
  EXPECT_EQ(pts[1].shape[2].second, "8");
}

TEST(Study, GpusZippedWithTheirKernels) {
  const Study s = parse_study_text(R"(
name = "k"
run = "analyze"
[shape]
seqlen = ["16K", "32K"]
[[zip]]
gpu = ["gb10", "h800", "h800"]
"fa3.kernel" = ["cutile", "fa3", "simfa-attn"]
)", "s.toml");
  EXPECT_EQ(count_points(s), 6);
  const auto pts = expand(s);
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(pts[0].gpu, "gb10");
  EXPECT_EQ(pts[0].sets[0].second, "cutile");
  EXPECT_EQ(pts[1].gpu, "h800");
  EXPECT_EQ(pts[1].sets[0].second, "fa3");
  EXPECT_EQ(pts[2].gpu, "h800");
  EXPECT_EQ(pts[2].sets[0].second, "simfa-attn");
  EXPECT_EQ(pts[3].shape[0].second, "32768");
  // GB10 analyzes with cuTile's 64x32 tiles and says which of its values are assumed.
  const Row row = evaluate_point(s.name, pts[0]);
  EXPECT_EQ(row["status"], "ok") << row["message"];
  const auto doc = nlohmann::json::parse(row["json"].get<std::string>());
  EXPECT_EQ(doc["analyze"]["tile_m"], 64);
  EXPECT_EQ(doc["analyze"]["tile_n"], 32);
  EXPECT_NE(row["message"].get<std::string>().find("analyze: "), std::string::npos);
  EXPECT_NE(row["message"].get<std::string>().find("assumed"), std::string::npos);
  // A GPU both listed and zipped, a repeated row, a Blackwell GPU in a study that simulates.
  EXPECT_NE(error_of("name = \"x\"\ngpus = \"h800\"\nrun = \"analyze\"\n[[zip]]\ngpu = [\"h100\"]\n").find("a key has one place"),
            std::string::npos);
  EXPECT_NE(error_of("name = \"x\"\nrun = \"analyze\"\n[[zip]]\ngpu = [\"h800\", \"h800\"]\n\"fa3.tile_m\" = [64, 64]\n")
                .find("s.toml:4: [[zip]]: row 2 repeats an earlier row"),
            std::string::npos);
  const std::string e = error_of("name = \"x\"\ngpus = [\"h800\", \"b200\"]\n");
  EXPECT_NE(e.find("s.toml:2: gpus:"), std::string::npos) << e;
  EXPECT_NE(e.find("blackwell"), std::string::npos) << e;
}

TEST(Study, AnAnalyzeOnlyStudyRefusesKeysTheModelDoesNotRead) {
  const std::string e = error_of("name = \"x\"\ngpus = \"h800\"\nrun = \"analyze\"\n[set]\n\"fa3.stages\" = 3\n");
  EXPECT_NE(e.find("s.toml:5: fa3.stages: the analytic model does not read it"), std::string::npos) << e;
  // The keys it reads are fine, and so is any key in a study that simulates.
  EXPECT_EQ(error_of("name = \"x\"\ngpus = \"h800\"\nrun = \"analyze\"\n[set]\n\"fa3.tile_m\" = 64\n"), "");
  EXPECT_EQ(error_of("name = \"x\"\ngpus = \"h800\"\nrun = \"both\"\n[set]\n\"fa3.stages\" = 2\n"), "");
}

TEST(Study, GeometricRangesAndSuffixes) {
  const Study s = parse_study_text("name = \"g\"\ngpus = \"h800\"\nrun = \"analyze\"\n[shape]\nseqlen = \"1K:16K:*2\"\n"
                                   "batch = \"2\"\n",
                                   "s.toml");
  ASSERT_EQ(s.axes[0].values.size(), 5u);
  EXPECT_EQ(s.axes[0].values[4].text, "16384");
  EXPECT_EQ(s.axes[1].values[0].text, "2");
}

TEST(Study, BadInputNamesFileAndLine) {
  const std::string head = "name = \"x\"\ngpus = \"h800\"\n";
  EXPECT_EQ(error_of("gpus = \"h800\"\n"), "s.toml: 'name' is missing");
  EXPECT_EQ(error_of("name = \"x\"\n"), "s.toml: 'gpus' is missing (a preset name, a GPU TOML file, or a list of them; or gpu = [...] in a [[zip]])");
  EXPECT_NE(error_of(head + "colour = 3\n").find("s.toml:3: unknown key 'colour'"), std::string::npos);
  EXPECT_NE(error_of(head + "run = \"fast\"\n").find("s.toml:3: run: expected simulate, analyze or both"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[shape]\nhdim = 64\n").find("s.toml:4: [shape] hdim: not a shape key of the fa3 workload"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[shape]\nseqlen = \"4K:1K:1K\"\n").find("s.toml:4: seqlen: stop 1K is below start 4K"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[shape]\nseqlen = [1024, 1024]\n").find("s.toml:4: seqlen: the value '1024' is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[shape]\nseqlen = []\n").find("s.toml:4: seqlen: an empty list gives no points"),
            std::string::npos);
  // The configuration registry's own message, at the value's line.
  const std::string e = error_of(head + "[set]\n\"fa3.stagez\" = 3\n");
  EXPECT_NE(e.find("s.toml:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'fa3.stages'"), std::string::npos) << e;
  EXPECT_NE(error_of(head + "[set]\n\"mem.l2.size\" = \"lots\"\n").find("s.toml:4:"), std::string::npos);
  // A shape value the workload refuses, at its line in a list.
  EXPECT_NE(error_of(head + "[shape]\nhead_dim = [64,\n  100]\n").find("s.toml:5: head_dim = '100'"), std::string::npos);
  EXPECT_NE(error_of(head + "[[zip]]\nseqlen = [1, 2]\nhead_dim = [64]\n").find("zipped lists have one length"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[shape]\nseqlen = 1\n[set]\nseqlen = 2\n").find("seqlen is given twice"), std::string::npos);
  EXPECT_NE(error_of(head + "[shape]\nseqlen = 1\n[[zip]]\nseqlen = [2]\n").find("s.toml:6: seqlen is given twice"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[variants]\nslow = 3\n").find("s.toml:4: [variants] slow: a variant is a table"),
            std::string::npos);
  EXPECT_NE(error_of(head + "[set]\n\"fa3.stages\" = [2, 3]\n[variants]\na = { \"fa3.stages\" = 2 }\n").find("a key has one place"),
            std::string::npos);
  EXPECT_NE(error_of("name = \"x\"\ngpus = [\"h800\", \"nope.toml\"]\n").find("s.toml:2: gpus:"), std::string::npos);
  EXPECT_NE(error_of("name = \"x\"\ngpus = \"h800\"\nworkload = \"conv\"\n").find("s.toml:3: workload: unknown"),
            std::string::npos);
  EXPECT_NE(error_of(head + "max_points = 0\n").find("s.toml:3: max_points must be an integer of at least 1"),
            std::string::npos);
  EXPECT_NE(error_of("name = \"x\"\ngpus = [\"h800\"\n").find("s.toml:2:"), std::string::npos);  // invalid TOML
  // A billion points is refused before any is listed.
  EXPECT_NE(error_of(head + "run = \"analyze\"\n[shape]\nseqlen = \"1:100000:1\"\nbatch = \"1:100000:1\"\n").find("points; a study may have at most"),
            std::string::npos);
  // The analytic model covers attention only.
  EXPECT_NE(error_of("name = \"x\"\ngpus = \"h800\"\nworkload = \"gemm\"\n[shape]\nm = 1024\n")
                .find("the analytic model covers attention"),
            std::string::npos);
}

TEST(Study, GpuFilesAreRelativeToTheStudy) {
  const auto dir = std::filesystem::temp_directory_path() / "simfa_study_test_gpu";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mine.toml") << "preset = \"h800\"\n[gpu]\nnum_sms = 66\n";
  const Study s = parse_study_text("name = \"f\"\ngpus = \"mine.toml\"\nrun = \"analyze\"\n", (dir / "s.toml").string());
  const auto pts = expand(s);
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].gpu, (dir / "mine.toml").string());
  EXPECT_EQ(pts[0].gpu_label, "mine.toml");
  std::filesystem::remove_all(dir);
}

TEST(Point, AnalyzeRowHasTheModelFiguresAndNoSimulatedOnes) {
  const Study s = parse_study_text("name = \"a\"\ngpus = \"h800\"\nrun = \"analyze\"\n[shape]\nseqlen = 16384\n", "s.toml");
  const Row row = evaluate_point(s.name, expand(s)[0]);
  EXPECT_EQ(row["status"], "ok");
  EXPECT_EQ(row["actions"], "analyze");
  EXPECT_EQ(row["seqlen_q"], 16384);
  EXPECT_EQ(row["heads_kv"], 8);    // Llama-3 405B, the default model
  EXPECT_EQ(row["group"], 16);
  EXPECT_GT(row["model_dram_bytes"].get<double>(), 0);
  EXPECT_GT(row["model_l2_bytes"].get<double>(), row["model_dram_bytes"].get<double>());
  EXPECT_TRUE(row["latency_us"].is_null());
  EXPECT_EQ(row["gpu_name"], "H800 SXM5");
  const auto doc = nlohmann::json::parse(row["json"].get<std::string>());
  EXPECT_TRUE(doc.contains("analyze"));
  EXPECT_FALSE(doc.contains("simulate"));
  // Every fixed column is present, in schema order.
  std::size_t i = 0;
  for (const auto& [k, v] : row.items()) {
    if (i < std::size(kPointColumns)) {
      EXPECT_EQ(k, kPointColumns[i].name);
    }
    ++i;
  }
}

TEST(Point, SimulatedRowAndAFailureRow) {
  const Study s = parse_study_text(R"(
name = "sim"
gpus = "h800"
run = "simulate"
[shape]
model = "none"
heads_kv = 1
head_dim = 64
seqlen = 512
[set]
"fa3.stages" = [2, 3]
)", "s.toml");
  const auto pts = expand(s);
  const Row ok = evaluate_point(s.name, pts[0]);
  EXPECT_EQ(ok["status"], "ok") << ok["message"];
  EXPECT_GT(ok["cycles"].get<double>(), 0);
  EXPECT_GT(ok["latency_us"].get<double>(), 0);
  EXPECT_GT(ok["l2_bytes"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(ok["dram_bytes"].get<double>(), ok["dram_read_bytes"].get<double>() + ok["dram_write_bytes"].get<double>());
  EXPECT_EQ(ok["fa3.stages"], "2");
  EXPECT_TRUE(ok["model_latency_us"].is_null());
  // Three stages of a D64 tile do not fit in shared memory: recorded, not thrown.
  const Row bad = evaluate_point(s.name, pts[1]);
  EXPECT_EQ(bad["status"], "bad_input");
  EXPECT_NE(bad["message"].get<std::string>().find("shared memory"), std::string::npos);
  EXPECT_TRUE(bad["latency_us"].is_null());
}

// A sampled point's warning (docs/sampling.md step 9) reaches its row's message: here a 16-CTA
// grid whose CTAs drift apart (Sampling.WarnsWhenTheL2TrafficPerBlockRises has the same grid, at
// the preset's clock: gpu.clock_model=fixed. At the power-limited clock this grid's L2 sectors per
// block stay within the warning's 5% since session 15's spans).
TEST(Point, ASampledPointsWarningIsInItsMessage) {
  const Study s = parse_study_text(R"(
name = "drift"
gpus = "h100"
run = "simulate"
[shape]
model = "none"
seqlen = 4096
heads_kv = 2
group = 4
head_dim = 64
[set]
"sample.mode" = "on"
"fa3.grid" = 16
"sample.window_blocks" = 4
"sample.min_windows" = 3
"sample.checks" = 2
"sample.tail_blocks" = 8
"sample.min_skip_blocks" = 8
"gpu.clock_model" = "fixed"
)", "s.toml");
  const Row row = evaluate_point(s.name, expand(s)[0]);
  EXPECT_EQ(row["status"], "ok") << row["message"];
  EXPECT_EQ(row["sampled"], 1);
  EXPECT_NE(row["message"].get<std::string>().find("simulate: sampling: "), std::string::npos) << row["message"];
}

// One file per test (ctest -j runs the ResultsDb tests at once in separate processes: a shared
// name let one test delete the other's database, "disk I/O error").
struct TempDb {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      (std::string("simfa_study_test_") + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
       std::to_string(::getpid()) + ".sqlite");
  TempDb() { std::filesystem::remove(path); }
  ~TempDb() { std::filesystem::remove(path); }
};

TEST(ResultsDb, StoresOnceSkipsDoneAndExports) {
  TempDb t;
  const Study s = parse_study_text(
      "name = \"d\"\ngpus = \"h800\"\nrun = \"analyze\"\n[shape]\nseqlen = [1024, 2048]\n[set]\n\"mem.l2.size\" = \"40MiB\"\n",
      "s.toml");
  const auto pts = expand(s);
  {
    ResultsDb db(t.path.string(), true);
    db.begin_study(s, 2);
    EXPECT_TRUE(db.done_keys("d").empty());
    const Row r0 = evaluate_point(s.name, pts[0]);
    db.insert(r0);
    db.insert(r0);  // the same point again: ignored
    db.flush();
    EXPECT_EQ(db.done_keys("d").size(), 1u);
    EXPECT_EQ(*db.done_keys("d").begin(), pts[0].key);
    db.insert(evaluate_point(s.name, pts[1]));
  }
  ResultsDb db(t.path.string(), false);
  EXPECT_EQ(db.done_keys("d").size(), 2u);
  std::ostringstream csv;
  db.export_csv(csv, "d");
  std::istringstream in(csv.str());
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("study,point_key,point_index,", 0), 0u) << header;
  EXPECT_NE(header.find(",mem.l2.size"), std::string::npos);  // the study's configuration key
  EXPECT_EQ(header.find(",json"), std::string::npos);
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 2);
  try {
    db.export_csv(csv, "nope");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no study 'nope' (studies: d)"), std::string::npos) << e.what();
  }
}

TEST(ResultsDb, RefusesWhatIsNotOurs) {
  TempDb t;
  std::ofstream(t.path) << "not a database, just text that is long enough to be read as a header......\n";
  try {
    ResultsDb db(t.path.string(), true);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(t.path.string()), std::string::npos) << e.what();
  }
  std::filesystem::remove(t.path);
  sqlite3* raw = nullptr;
  sqlite3_open(t.path.c_str(), &raw);
  sqlite3_exec(raw, "CREATE TABLE points (a INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  try {
    ResultsDb db(t.path.string(), true);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("not a simfa results table"), std::string::npos) << e.what();
  }
  try {
    ResultsDb db((t.path.string() + ".missing"), false);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simfa::study
