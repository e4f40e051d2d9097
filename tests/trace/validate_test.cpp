// Every malformed-input class gives one line "file:line: what is wrong".
#include <gtest/gtest.h>

#include "sim/error.h"
#include "trace/io.h"

namespace simfa::trace {
namespace {

std::string error_of(const std::string& body, const std::string& kernel = "KERNEL stages=2 groups=4") {
  try {
    read_trace_text("SIMFA_TRACE 1\n" + kernel + "\nDEF_TMAP 0 2 128,64 256 64,32 2\nCTA 0\nWG 0\n" + body, "t.sft");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

struct Case {
  const char* body;
  const char* want;  // substring of the message, which starts with t.sft:6
};

TEST(TraceValidate, EachMalformedClassNamesFileLineAndProblem) {
  const Case cases[] = {
      {"FROB 1\n", "unknown opcode 'FROB'"},
      {"MB_WAIT\n", "MB_WAIT takes 1 operand"},
      {"MB_WAIT 0 1\n", "MB_WAIT takes 1 operand"},
      {"BUBBLE ten\n", "cycles 'ten' is not a non-negative integer"},
      {"BUBBLE -3\n", "is not a non-negative integer"},
      {"MB_WAIT 70000\n", "sid 70000 is too large"},
      {"TMA_TENSOR 0 0 7 0\n", "TensorMap 7 was never declared"},
      {"TMA_STORE 0 0 9 0\n", "TensorMap 9 was never declared"},
      {"MB_WAIT 2\n", "stage id 2 out of range"},
      {"ACQUIRE_STAGE 5\n", "stage id 5 out of range"},
      {"WGMMA_COMMIT 4\n", "group id 4 out of range"},
      {"WGMMA_WAIT 9 0\n", "group id 9 out of range"},
      {"WGMMA 0 0 0 128 64 16 f16 1 SS 0 0\n", "WGMMA M = 128 is not supported"},
      {"WGMMA 0 0 0 64 64 8 f16 1 SS 0 0\n", "WGMMA K = 8 is not supported for f16"},
      {"WGMMA 0 0 0 64 60 16 f16 1 SS 0 0\n", "WGMMA N = 60 is not supported"},
      {"WGMMA 0 0 0 64 264 16 f16 1 SS 0 0\n", "WGMMA N = 264 is not supported"},
      {"WGMMA 0 0 0 64 64 16 f16 1 XS 0 0\n", "mode 'XS' is not SS or RS"},
      {"WGMMA 0 0 0 64 64 16 f32 1 SS 0 0\n", "dtype 'f32'"},
      {"WGMMA 0 0 0 64 64 16 e4m3 1 SS 0 0\n", "K = 16 is not supported for e4m3"},
      {"BAR_WAIT 16 1\n", "barrier id 16 out of range"},
      {"BAR_WAIT 1 0\n", "k must be at least 1"},
      {"BUBBLE 0\n", "at least 1 cycle"},
      {"TMA_BULK 0 0 100 0\n", "not a positive multiple of 16"},
      {"RELEASE_STAGE 0 mc=0x4\n", "beyond the cluster"},
      {"MB_WAIT 0 foo=1\n", "does not take the modifier 'foo'"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.body);
    EXPECT_EQ(e.rfind("t.sft:6: ", 0), 0u) << c.body << " -> " << e;
    EXPECT_NE(e.find(c.want), std::string::npos) << c.body << " -> " << e;
  }
}

TEST(TraceValidate, TensorMapErrors) {
  auto tmap_error = [](const std::string& line) {
    try {
      read_trace_text("SIMFA_TRACE 1\nKERNEL\n" + line + "\nCTA 0\nWG 0\nBUBBLE 1\n", "m.sft");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(tmap_error("DEF_TMAP 0 2 128,64 256 64,128 2").find("m.sft:3: DEF_TMAP 0: box dimension 1 = 128 is larger "
                                                                 "than the tensor's 64"),
            std::string::npos);
  EXPECT_NE(tmap_error("DEF_TMAP 0 6 1,1,1,1,1,1 16,16,16,16,16 1,1,1,1,1,1 2").find("rank 6"), std::string::npos);
  EXPECT_NE(tmap_error("DEF_TMAP 0 2 128,64 256,512 64,32 2").find("strides has 2 values"), std::string::npos);
  EXPECT_NE(tmap_error("DEF_TMAP 0 2 128,64 256 64,32 3").find("element size 3"), std::string::npos);
  // Dimensions innermost first without overlap: BSHD listed as [D, S, H, B] (seqlen before head,
  // as cuTensorMapEncodeTiled accepts) must be reordered by whoever writes the trace.
  EXPECT_EQ(tmap_error("DEF_TMAP 0 4 128,512,8,1 2048,256,1048576 64,176,1,1 2"),
            "m.sft:3: DEF_TMAP 0: stride 2 = 256 is smaller than dimension 1's extent of 1048576 bytes: list the "
            "dimensions innermost first, without overlap");
  EXPECT_NE(tmap_error("DEF_TMAP 0 2 128,64 128 64,32 2").find("stride 1 = 128 is smaller than dimension 0's extent of "
                                                                "256 bytes"),
            std::string::npos);
  EXPECT_EQ(tmap_error("DEF_TMAP 0 4 128,8,512,1 256,2048,1048576 64,1,176,1 2"), "");  // the same tensor, in order
}

// A dimension's extent that does not fit 64 bits (2^62 elements of 4 bytes) is still larger than
// the next stride: the check once wrapped to 0 and accepted overlapping dimensions.
TEST(TraceValidate, TensorMapExtentBeyond64BitsIsAnOverlap) {
  try {
    read_trace_text("SIMFA_TRACE 1\nKERNEL\nDEF_TMAP 0 2 4611686018427387904,2 16 4,2 4\nCTA 0\nWG 0\nBUBBLE 1\n", "m.sft");
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "m.sft:3: DEF_TMAP 0: stride 1 = 16 is smaller than dimension 0's extent of at least 2^64 "
                           "bytes: list the dimensions innermost first, without overlap");
  }
}

TEST(TraceValidate, StructureErrors) {
  auto err = [](const std::string& text) {
    try {
      read_trace_text(text, "s.sft");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err("KERNEL\n").find("s.sft:1: a trace file must begin with 'SIMFA_TRACE"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 2\n").find("format version 2 is not supported"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 1\nKERNEL\nBUBBLE 1\n").find("s.sft:3: BUBBLE outside a WG section"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 1\nKERNEL\nKERNEL\n").find("s.sft:3: a second KERNEL"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 1\nKERNEL colour=red\n").find("unknown KERNEL key 'colour'"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 1\nCTA 0\nWG 0\nBUBBLE 1\n").find("no KERNEL line"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 1\nKERNEL\nCTA 1\nWG 0\nBUBBLE 1\n").find("CTA 0 is missing"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 1\nKERNEL\nCTA 0\nCTA 0\n").find("s.sft:4: CTA 0 appears twice"), std::string::npos);
  EXPECT_NE(err("SIMFA_TRACE 1\nKERNEL cluster=2\nCTA 0\nWG 0\nBUBBLE 1\n").find("whole clusters of 2"),
            std::string::npos);
}

}  // namespace
}  // namespace simfa::trace
