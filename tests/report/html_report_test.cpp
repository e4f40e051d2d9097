// `simfa report`: the results database reader (results_db.h), the HTML page (html_report.h) on the
// sample database of sample_results_db.h, the chart writer's additions it uses (legend below,
// powers-of-two ticks), and the command through the binary (exit 2 on bad input).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "report/html_report.h"
#include "report/results_db.h"
#include "report/svg_chart.h"
#include "report_test_util.h"
#include "sample_results_db.h"
#include "sim/error.h"

namespace simfa::test {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto i = text.find(what); i != std::string::npos; i = text.find(what, i + what.size())) ++n;
  return n;
}

// A fresh copy of the sample database under a test-specific name.
std::string sample_db(const std::string& name) {
  const std::string path = temp_path(name + ".sqlite");
  std::filesystem::remove(path);
  make_sample_results_db(path);
  return path;
}

// The page's <svg> elements, each checked for well-formed XML.
std::vector<std::string> svgs(const std::string& page) {
  std::vector<std::string> out;
  for (auto i = page.find("<svg "); i != std::string::npos; i = page.find("<svg ", i + 1)) {
    const auto e = page.find("</svg>", i);
    if (e == std::string::npos) break;
    out.push_back(page.substr(i, e + 6 - i));
  }
  return out;
}

std::string expect_user_error(const std::string& path) {
  try {
    report::read_results_db(path);
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no UserError for " << path;
  return "";
}

TEST(ResultsDb, ReadsPointsInStudyAndIndexOrderWithTheConfigColumns) {
  const auto db = report::read_results_db(sample_db("read"));
  ASSERT_EQ(db.points.size(), 22u);
  EXPECT_EQ(db.config_columns(), std::vector<std::string>{"fa3.stages"});
  EXPECT_EQ(db.study_names(), (std::vector<std::string>{"analytic", "gpus"}));
  ASSERT_EQ(db.studies.size(), 2u);
  EXPECT_EQ(db.studies[0].name, "analytic");
  EXPECT_EQ(db.studies[1].points.text, "12");
  // "analytic" sorts first; within a study by point_index.
  EXPECT_EQ(db.cell(db.points.front(), "study").text, "analytic");
  EXPECT_EQ(db.cell(db.points[10], "study").text, "gpus");
  EXPECT_EQ(db.cell(db.points[11], "point_index").number, 1);
  const auto& c = db.cell(db.points[10], "seqlen_kv");
  EXPECT_TRUE(c.is_number);
  EXPECT_EQ(c.text, "1024");
  EXPECT_TRUE(db.cell(db.points[10], "fa3.stages").is_number);  // TEXT "2" reads as a number too
  EXPECT_TRUE(db.cell(db.points.front(), "latency_us").null);    // analyze only
  EXPECT_TRUE(db.cell(db.points.front(), "no such column").null);
}

TEST(ResultsDb, BadFilesAreUserErrorsNamingTheFile) {
  const std::string missing = temp_path("no_such.sqlite");
  std::filesystem::remove(missing);
  std::string e = expect_user_error(missing);
  EXPECT_NE(e.find(missing), std::string::npos) << e;
  EXPECT_NE(e.find("no such file"), std::string::npos) << e;

  const std::string text = write_temp("not_a_db.sqlite", "gpu,seqlen\nh100,1024\n" + std::string(200, 'x'));
  e = expect_user_error(text);
  EXPECT_NE(e.find(text + ": not an SQLite database"), std::string::npos) << e;

  const std::string other = temp_path("other.sqlite");
  std::filesystem::remove(other);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  sql_exec(db, "CREATE TABLE results (x INTEGER)");
  sqlite3_close(db);
  e = expect_user_error(other);
  EXPECT_NE(e.find(other + ": no table 'points'"), std::string::npos) << e;

  e = expect_user_error(std::filesystem::temp_directory_path().string());
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
}

TEST(HtmlReport, EveryChartTableAndLegendOfTheSampleDatabase) {
  const auto db = report::read_results_db(sample_db("page"));
  const std::string page = report::html_report(db);
  // gpus: latency, TFLOPS, L2, DRAM (two lines), two regime charts, three pipes = 9;
  // analytic: latency, TFLOPS, L2, DRAM (two lines), two regime charts = 6.
  const auto charts = svgs(page);
  EXPECT_EQ(charts.size(), 15u);
  EXPECT_EQ(count(page, "<svg "), 15u);
  for (const auto& svg : charts) {
    std::string err;
    EXPECT_TRUE(xml_well_formed(svg, &err)) << err << "\n" << svg.substr(0, 300);
    EXPECT_GT(count(svg, "<polyline"), 0u);
  }
  EXPECT_EQ(count(page, "data-chart=\"dram-regimes\""), 4u);
  EXPECT_EQ(count(page, "data-chart=\"tensor\""), 1u);  // the analyze-only study has no pipes
  // Legends: one line per GPU (only the GPU varies besides the sequence length in "gpus") and per
  // fa3.stages value in "analytic"; the styles; the regime lines.
  for (const char* label : {">h100</text>", ">h800</text>", ">fa3.stages=2</text>", ">fa3.stages=3</text>",
                            ">simulated</text>", ">analytic model</text>", ">GenZ / LLM-Viewer</text>",
                            ">realistic regime</text>", "DRAM traffic regimes: h800"})
    EXPECT_NE(page.find(label), std::string::npos) << label;
  EXPECT_NE(page.find("sequence length L = S (tokens)"), std::string::npos);
  EXPECT_NE(page.find(">32K</text>"), std::string::npos);  // powers-of-two ticks on the log x axis
  // Headers and tables.
  EXPECT_NE(page.find("<a href=\"#study-1\">analytic</a> (10 points)"), std::string::npos);
  EXPECT_NE(page.find("11 ok, 1 deadlock"), std::string::npos);
  EXPECT_NE(page.find("12 in the database (the study expands to 12)"), std::string::npos);
  EXPECT_NE(page.find("0.1.0 (commit d5ce229)"), std::string::npos);
  EXPECT_NE(page.find("<h3>Failed points (1)</h3>"), std::string::npos);
  EXPECT_NE(page.find("<code>fa3.stages</code> = 2"), std::string::npos);  // fixed in "gpus"
  EXPECT_EQ(count(page, "<table class=\"points\">"), 2u);
  EXPECT_EQ(count(page, "<td class=\"ok\">ok</td>"), 21u);
  // The failed message, escaped; no raw special character of it survives.
  EXPECT_NE(page.find("deadlock: stage &lt;0&gt; &amp; &quot;ring&quot; of CTA 7 never released\nSM 3 WarpGroup 1 "
                      "(consumer) waits at &#39;MB_WAIT 0&#39;"),
            std::string::npos);
  EXPECT_EQ(page.find("<0>"), std::string::npos);
  EXPECT_EQ(page.find("\"ring\""), std::string::npos);
  // Self-contained: no scripts, no external resources.
  for (const char* bad : {"<script", "<link", "<img", "<iframe", "@import", "url(", "https://"})
    EXPECT_EQ(page.find(bad), std::string::npos) << bad;
  EXPECT_EQ(count(page, "http://"), count(page, "http://www.w3.org/2000/svg"));
}

TEST(HtmlReport, SameDatabaseSameBytes) {
  const std::string path = sample_db("same");
  const std::string a = report::html_report(report::read_results_db(path));
  const std::string b = report::html_report(report::read_results_db(path));
  EXPECT_EQ(a, b);
}

TEST(HtmlReport, OneStudyAndUnknownStudies) {
  const auto db = report::read_results_db(sample_db("one"));
  const std::string page = report::html_report(db, {{"analytic"}, "Analytic only"});
  EXPECT_EQ(count(page, "<svg "), 6u);
  EXPECT_NE(page.find("<title>Analytic only</title>"), std::string::npos);
  EXPECT_EQ(page.find("Failed points"), std::string::npos);
  EXPECT_EQ(page.find("<nav>"), std::string::npos);
  // Analytic lines only: dashed, no markers in the line charts.
  EXPECT_NE(page.find("Not drawn, no point has the values: pipe utilization"), std::string::npos);
  try {
    report::html_report(db, {{"gpus", "nope<"}, ""});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(db.path + ": no study 'nope<' (the database holds analytic, gpus)"),
              std::string::npos)
        << e.what();
  }
}

TEST(HtmlReport, OtherInputsSplitTheLinesAndAnEmptyDatabaseIsAPage) {
  const std::string path = temp_path("split.sqlite");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  create_results_tables(db, {"l2.size"});
  long long i = 0;
  for (long long causal : {0LL, 1LL})
    for (long long s : {1024, 4096}) {
      DbRow r = sample_point("split", i++, "h100", s, true, false);
      r["causal"] = causal;
      r["l2.size"] = std::string("50MiB");
      insert_row(db, "points", r);
    }
  // The same inputs at one sequence length: the x axis is the head size then.
  for (long long d : {64LL, 128LL, 256LL}) {
    DbRow r = sample_point("dims", i++, "h100", 4096, true, false);
    r["head_dim"] = d;
    r["l2.size"] = std::string(d == 256 ? "40MiB" : "50MiB");
    insert_row(db, "points", r);
  }
  sqlite3_close(db);
  const std::string page = report::html_report(report::read_results_db(path));
  EXPECT_NE(page.find(">non-causal</text>"), std::string::npos);
  EXPECT_NE(page.find(">causal</text>"), std::string::npos);
  EXPECT_NE(page.find("against <code>head_dim</code>; 2 lines (one per l2.size)"), std::string::npos) << page;
  EXPECT_NE(page.find(">l2.size=40MiB</text>"), std::string::npos);
  // No studies table: the studies come from the points.
  EXPECT_NE(page.find("Study <code>dims</code>"), std::string::npos);

  const std::string empty = temp_path("empty.sqlite");
  std::filesystem::remove(empty);
  ASSERT_EQ(sqlite3_open(empty.c_str(), &db), SQLITE_OK);
  create_results_tables(db, {});
  sqlite3_close(db);
  const std::string p2 = report::html_report(report::read_results_db(empty));
  EXPECT_NE(p2.find("The database holds no study."), std::string::npos);
}

// A variant's overrides are named by the variant: its configuration columns do not split the
// lines again (nor print "(none)" for the variants that leave them alone).
TEST(HtmlReport, KeysAVariantSetsAreNamedByTheVariant) {
  const std::string path = temp_path("variants.sqlite");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  create_results_tables(db, {"tensor.flops_per_cycle_16bit", "mem.l2.size"});
  long long i = 0;
  for (const char* v : {"base", "2x-tensor", "2x-l2"})
    for (long long s : {4096, 8192}) {
      DbRow r = sample_point("whatif", i++, "h800", s, true, true);
      r["variant"] = std::string(v);
      if (std::string(v) == "2x-tensor") r["tensor.flops_per_cycle_16bit"] = std::string("8192");
      if (std::string(v) == "2x-l2") r["mem.l2.size"] = std::string("100MiB");
      insert_row(db, "points", r);
    }
  sqlite3_close(db);
  const std::string page = report::html_report(report::read_results_db(path));
  EXPECT_NE(page.find("3 lines (one per variant)"), std::string::npos) << page;
  EXPECT_NE(page.find(">2x-tensor</text>"), std::string::npos);
  EXPECT_EQ(page.find("(none)</text>"), std::string::npos);
}

TEST(SvgChart, LegendBelowGrowsThePictureAndPowersOfTwoTicks) {
  report::Chart c;
  c.width = 400, c.height = 300;
  c.logx = true;
  c.xticks = report::TickStyle::Tokens;
  c.legend = report::LegendPlace::Below;
  c.series.push_back({"a rather long label for the first line", {1024, 65536}, {1, 2}});
  c.series.push_back({"second", {1024, 65536}, {2, 3}, "#ff7f0e"});
  c.series.push_back({"hidden", {1024, 65536}, {2, 3}, "#ff7f0e", true, true, false, false, false});
  const std::string svg = report::render_svg(c);
  EXPECT_NE(svg.find("height=\"332\""), std::string::npos) << svg.substr(0, 200);  // two rows below
  EXPECT_NE(svg.find(">1K</text>"), std::string::npos);
  EXPECT_NE(svg.find(">64K</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">hidden</text>"), std::string::npos);
  std::string err;
  EXPECT_TRUE(xml_well_formed(svg, &err)) << err;
}

TEST(ReportCli, WritesThePageAndBadInputExitsWithTwo) {
  const std::string db = sample_db("cli"), out = temp_path("cli.html");
  std::filesystem::remove(out);
  CliOut o = simfa_cli("report " + db + " -o " + out);
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_NE(o.text.find("wrote " + out + ": 2 studies, 22 points"), std::string::npos) << o.text;
  const std::string page = read_file(out);
  EXPECT_EQ(count(page, "<svg "), 15u);
  // --study before the database, twice: one study once; the note goes to stderr with -o -.
  o = simfa_cli("report --study gpus --study gpus " + db + " -o -");
  ASSERT_EQ(o.rc, 0) << o.text;
  EXPECT_EQ(count(o.text, "<svg "), 9u);
  EXPECT_NE(o.text.find("wrote standard output: 1 study, 12 points"), std::string::npos) << o.text.substr(0, 200);

  o = simfa_cli("report " + db + " -o " + out + " --study nope");
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("simfa: error: " + db + ": no study 'nope'"), std::string::npos) << o.text;
  EXPECT_EQ(read_file(out), page);  // untouched
  o = simfa_cli("report " + temp_path("missing.sqlite") + " -o " + out);
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find(temp_path("missing.sqlite")), std::string::npos) << o.text;
  o = simfa_cli("report " + db + " -o /nonexistent-dir/x.html");
  EXPECT_EQ(o.rc, 2) << o.text;
  o = simfa_cli("report " + db);
  EXPECT_EQ(o.rc, 2) << o.text;
  EXPECT_NE(o.text.find("--output"), std::string::npos) << o.text;
}

}  // namespace
}  // namespace simfa::test
