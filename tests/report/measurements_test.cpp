// The measurements CSV reader: accepted forms, defaults, and one clear error per kind of mistake.
#include <gtest/gtest.h>

#include <sstream>

#include "report/measurements.h"
#include "sim/error.h"

namespace simfa::report {
namespace {

const std::string kHeader = "case,batch,seqlen,heads,head_dim,causal,measured_us\n";

std::vector<MeasuredCase> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_measurements(in, "m.csv");
}

// The message of the UserError that parsing `text` throws ("" when it does not throw).
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Measurements, ReadsRequiredColumnsWithDefaults) {
  const auto c = parse("# synthetic\n\n" + kHeader + "a, 2, 512, 32, 128, 1, 12.5\n");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].name, "a");
  EXPECT_EQ(c[0].where, "m.csv:4");
  EXPECT_EQ(c[0].batch, 2);
  EXPECT_EQ(c[0].seqlen, 512);
  EXPECT_EQ(c[0].seqlen_kv, 512);  // default: seqlen
  EXPECT_EQ(c[0].heads, 32);
  EXPECT_EQ(c[0].heads_kv, 32);  // default: MHA
  EXPECT_EQ(c[0].head_dim, 128);
  EXPECT_TRUE(c[0].causal);
  EXPECT_DOUBLE_EQ(c[0].measured_us, 12.5);
  EXPECT_EQ(c[0].dtype, "fp16");
  EXPECT_EQ(c[0].clock_mhz, 0);
  EXPECT_EQ(c[0].gpu, "");
}

TEST(Measurements, ReadsOptionalColumnsInAnyOrder) {
  const auto c = parse("gpu,measured_us,case,heads_kv,causal,head_dim,heads,seqlen,batch,kv_seqlen,dtype,clock_mhz\r\n"
                       "h100,7,g,8,false,128,32,256,1,1024,bf16,1755\r\n"
                       ",7,h,,no,64,4,256,1,,,\r\n");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].gpu, "h100");
  EXPECT_EQ(c[0].heads_kv, 8);
  EXPECT_EQ(c[0].seqlen_kv, 1024);
  EXPECT_EQ(c[0].dtype, "bf16");
  EXPECT_DOUBLE_EQ(c[0].clock_mhz, 1755);
  EXPECT_FALSE(c[0].causal);
  EXPECT_EQ(c[1].heads_kv, 4);
  EXPECT_EQ(c[1].seqlen_kv, 256);
  EXPECT_EQ(c[1].gpu, "");
  // seqlen_kv is the column's name (the shape key's); kv_seqlen above is its old name.
  const auto d = parse(kHeader.substr(0, kHeader.size() - 1) + ",seqlen_kv\na,1,512,32,128,0,10,2048\n");
  EXPECT_EQ(d[0].seqlen_kv, 2048);
  EXPECT_NE(error_of(kHeader.substr(0, kHeader.size() - 1) + ",seqlen_kv,kv_seqlen\na,1,512,32,128,0,10,2048,2048\n")
                .find("columns 'seqlen_kv' and 'kv_seqlen' are the same column"),
            std::string::npos);
}

TEST(Measurements, BadFilesGetOneLineNamingFileLineAndColumn) {
  EXPECT_EQ(error_of(""), "m.csv: empty file (expected a header: case, batch, seqlen, heads, head_dim, causal, measured_us, ...)");
  EXPECT_EQ(error_of(kHeader), "m.csv: no cases (only a header)");
  EXPECT_EQ(error_of("case,batch,seqlen,heads,head_dim,causal\na,1,2,3,4,0\n"),
            "m.csv:1: missing column 'measured_us' (required: case, batch, seqlen, heads, head_dim, causal, measured_us)");
  EXPECT_NE(error_of("case,batch,seqlen,heads,headdim,causal,measured_us\n").find(
                "m.csv:1: unknown column 'headdim' (did you mean 'head_dim'?)"),
            std::string::npos);
  EXPECT_EQ(error_of("case,case,batch\n"), "m.csv:1: column 'case' appears twice");
  EXPECT_EQ(error_of(kHeader + "a,1,x512,32,128,0,10\n"),
            "m.csv:2: column 'seqlen': expected a positive integer, got 'x512'");
  EXPECT_EQ(error_of(kHeader + "a,0,512,32,128,0,10\n"), "m.csv:2: column 'batch': must be at least 1, got 0");
  EXPECT_EQ(error_of(kHeader + "a,1,512,32,128,0,fast\n"), "m.csv:2: column 'measured_us': expected a number, got 'fast'");
  EXPECT_EQ(error_of(kHeader + "a,1,512,32,128,0,-3\n"), "m.csv:2: column 'measured_us': must be positive, got -3");
  EXPECT_EQ(error_of(kHeader + "a,1,512,32,128,maybe,10\n"),
            "m.csv:2: column 'causal': expected 0/1 (or true/false, yes/no), got 'maybe'");
  EXPECT_EQ(error_of(kHeader + "a,1,512,32,128,0\n"), "m.csv:2: 6 fields, but the header has 7 columns");
  EXPECT_EQ(error_of(kHeader + "a,1,,32,128,0,10\n"), "m.csv:2: column 'seqlen' is empty");
  EXPECT_EQ(error_of("case,batch,seqlen,heads,head_dim,causal,measured_us,heads_kv\na,1,512,32,128,0,10,6\n"),
            "m.csv:2: column 'heads_kv': 6 does not divide heads = 32 (heads counts query heads)");
  EXPECT_EQ(error_of("case,batch,seqlen,heads,head_dim,causal,measured_us,dtype\na,1,512,32,128,0,10,fp4\n"),
            "m.csv:2: column 'dtype': expected fp16, bf16 or fp8_e4m3, got 'fp4'");
}

TEST(Measurements, ErrorStatistics) {
  const std::vector<CaseResult> r = {{"a", 10, 11, error_pct(11, 10)}, {"b", 20, 15, error_pct(15, 20)}};
  EXPECT_DOUBLE_EQ(r[0].error_pct, 10.0);
  EXPECT_DOUBLE_EQ(r[1].error_pct, -25.0);
  const ErrorSummary s = summarize(r);
  EXPECT_DOUBLE_EQ(s.mape_pct, 17.5);
  EXPECT_DOUBLE_EQ(s.max_abs_error_pct, 25.0);
  EXPECT_EQ(s.cases, 2u);
  const auto j = validation_json(r, s);
  EXPECT_DOUBLE_EQ(j["mape_pct"].get<double>(), 17.5);
  EXPECT_DOUBLE_EQ(j["max_abs_error_pct"].get<double>(), 25.0);
  EXPECT_EQ(j["cases"][1]["case"], "b");
  EXPECT_DOUBLE_EQ(j["cases"][1]["simulated_us"].get<double>(), 15.0);
  EXPECT_NE(validation_table(r, s).find("MAPE 17.5%, max |error| 25.0% over 2 cases"), std::string::npos);
}

}  // namespace
}  // namespace simfa::report
