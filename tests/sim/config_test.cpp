// Configuration: descriptors, presets, overrides and their errors.
#include <gtest/gtest.h>

#include "sim_test_util.h"
#include "sim/config.h"
#include "sim/error.h"

namespace simfa {
namespace {

ParamRegistry reg() {
  ParamRegistry r;
  r.add({"gpu.clock", ParamType::Frequency, "1830MHz", "Hz", "clock", "test", 1e6, 1e10});
  r.add({"tma.launch_cycles", ParamType::Int, "40", "cycles", "launch", "test", 0, 1000});
  r.add({"l2.size", ParamType::Size, "50MiB", "bytes", "L2", "test", 1, 1e12});
  r.add({"sm.scheduler", ParamType::Enum, "gto", "", "policy", "test", 0, 0, {"gto", "lrr"}});
  r.add({"tma.dedup", ParamType::Bool, "true", "", "dedup", "test"});
  return r;
}

using test::error_of;

TEST(Config, DefaultsAndTypedAccess) {
  auto r = reg();
  Config c(r);
  EXPECT_DOUBLE_EQ(c.f("gpu.clock"), 1.83e9);
  EXPECT_EQ(c.i("tma.launch_cycles"), 40);
  EXPECT_EQ(c.u("l2.size"), 50u * 1024 * 1024);
  EXPECT_EQ(c.s("sm.scheduler"), "gto");
  EXPECT_TRUE(c.b("tma.dedup"));
  EXPECT_EQ(c.origin("gpu.clock"), "default");
}

TEST(Config, UnknownKeySuggests) {
  auto r = reg();
  Config c(r);
  auto e = error_of([&] { c.apply_assignment("tma.launch_cycle=3"); });
  EXPECT_NE(e.find("unknown configuration key 'tma.launch_cycle'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'tma.launch_cycles'"), std::string::npos) << e;
}

TEST(Config, TypeAndRangeErrorsNameTheKey) {
  auto r = reg();
  Config c(r);
  EXPECT_NE(error_of([&] { c.set("tma.launch_cycles", "lots", "--set"); }).find("--set: tma.launch_cycles = 'lots'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { c.set("tma.launch_cycles", "5000", "--set"); }).find("out of range"), std::string::npos);
  EXPECT_NE(error_of([&] { c.set("sm.scheduler", "fifo", "--set"); }).find("gto, lrr"), std::string::npos);
  EXPECT_NE(error_of([&] { c.set("gpu.clock", "12MB", "--set"); }).find("frequency"), std::string::npos);
  EXPECT_NE(error_of([&] { c.apply_assignment("novalue"); }).find("key=value"), std::string::npos);
}

TEST(Config, TomlFlattensAndReportsLines) {
  auto r = reg();
  Config c(r);
  c.load_toml_text("[gpu]\nclock = \"1755MHz\"\n[tma]\nlaunch_cycles = 50\n", "x.toml");
  EXPECT_DOUBLE_EQ(c.f("gpu.clock"), 1.755e9);
  EXPECT_EQ(c.i("tma.launch_cycles"), 50);
  EXPECT_EQ(c.origin("tma.launch_cycles"), "x.toml:4");
  auto e = error_of([&] { c.load_toml_text("[tma]\nlaunch_cycles = \"x\"\n", "y.toml"); });
  EXPECT_NE(e.find("y.toml:2"), std::string::npos) << e;
  auto e2 = error_of([&] { c.load_toml_text("[tma\n", "z.toml"); });
  EXPECT_NE(e2.find("z.toml:1"), std::string::npos) << e2;
  EXPECT_NE(e2.find("invalid TOML"), std::string::npos) << e2;
}

// Issue 20: toml++ nests one table per key level, recursively; 50,000 levels overflowed the stack.
TEST(Config, DeepTomlNestingIsAnErrorBeforeParsing) {
  auto r = reg();
  Config c(r);
  std::string header = "[a";
  std::string dotted = "a";
  std::string inline_tables = "a = ";
  for (int i = 0; i < 50000; ++i) header += ".a", dotted += ".a";
  for (int i = 0; i < 100; ++i) inline_tables += "{b = ";
  header += "]\n";
  dotted += " = 1\n";
  auto e = error_of([&] { c.load_toml_text("# deep\n" + header, "deep.toml"); });
  EXPECT_NE(e.find("deep.toml:2: this line nests 50001 keys or tables deep"), std::string::npos) << e;
  e = error_of([&] { c.load_toml_text(dotted, "dotted.toml"); });
  EXPECT_NE(e.find("dotted.toml:1: this line nests 50000"), std::string::npos) << e;
  e = error_of([&] { c.load_toml_text(inline_tables, "inline.toml"); });
  EXPECT_NE(e.find("inline.toml:1: this line nests 100"), std::string::npos) << e;
  // Decimal points, dots in strings and comments are no nesting.
  std::string floats = "[tma]\nlaunch_cycles = 40 # " + std::string(100, '.') + "\n[gpu]\nclock = \"1.755GHz\"\n";
  floats += "x = '" + std::string(100, '.') + "'\ny = [1.5, 2.5, 3.5]\n";
  e = error_of([&] { c.load_toml_text(floats, "ok.toml"); });
  EXPECT_EQ(e.find("nests"), std::string::npos) << e;
  // A key of numbers "1.1.1...." nests.
  std::string numbers = "1";
  for (int i = 0; i < 100; ++i) numbers += ".1";
  e = error_of([&] { c.load_toml_text(numbers + " = 1\n", "num.toml"); });
  EXPECT_NE(e.find("num.toml:1: this line nests"), std::string::npos) << e;
}

TEST(Config, TomlSizeIsBounded) {
  auto r = reg();
  Config c(r);
  const std::string big((2 << 20), '#');
  auto e = error_of([&] { c.load_toml_text(big, "big.toml"); });
  EXPECT_NE(e.find("big.toml: 2097152 bytes; a configuration file may be at most 1048576 bytes"), std::string::npos)
      << e;
}

TEST(Config, RawBytesInMessagesAreQuotedAndCut) {
  auto r = reg();
  Config c(r);
  auto e = error_of([&] { c.set("tma.launch_cycles", std::string("\x1b[2J\0x", 6) + std::string(100000, 'y'), "--set"); });
  EXPECT_NE(e.find("tma.launch_cycles = '\\x1b[2J\\x00xyyy"), std::string::npos) << e;
  EXPECT_NE(e.find("... (100006 bytes)"), std::string::npos) << e;
  EXPECT_LT(e.size(), 300u) << e;
  e = error_of([&] { c.apply_assignment(std::string(1 << 20, 'k') + "=1"); });
  EXPECT_NE(e.find("unknown configuration key 'kkk"), std::string::npos) << e.substr(0, 200);
  EXPECT_LT(e.size(), 300u);
}

TEST(Config, UnknownPresetListsPresets) {
  auto r = reg();
  Config c(r);
  auto e = error_of([&] { c.load_gpu("h9000"); });
  EXPECT_NE(e.find("neither a built-in preset"), std::string::npos) << e;
}

}  // namespace
}  // namespace simfa
