// Issue 20: bad input never crashes, never hangs, never reports an internal error. Each case exits
// with 2 and a message naming the file, line, key or flag (3 only for a real deadlock). Cases that
// used to hang are rejected before anything could block or run long, so none of these tests can
// hang either.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

namespace {

namespace fs = std::filesystem;
using simfa::test::Out;
using simfa::test::simfa;
using simfa::test::temp_file;

const std::string kExample = std::string(SIMFA_SOURCE_DIR) + "/examples/traces/pingpong.sft";
const std::string kMeasurements = std::string(SIMFA_SOURCE_DIR) + "/tests/data/synthetic_measurements.csv";

// A folder of its own under the temporary directory, empty.
std::string scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("simfa_bad_input_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

void expect_user_error(const Out& o, const std::string& message, const std::string& what) {
  EXPECT_EQ(o.rc, 2) << what << "\n" << o.text;
  EXPECT_NE(o.text.find(message), std::string::npos) << what << "\n" << o.text;
  EXPECT_EQ(o.text.find("internal error"), std::string::npos) << what << "\n" << o.text;
}

// A one-CTA trace: the KERNEL line, then `maps` (DEF_TMAP lines), then WG 0's instructions.
std::string trace(const std::string& name, const std::string& maps, const std::string& code) {
  return temp_file(name, "SIMFA_TRACE 1\nKERNEL ctas=1 stages=1 stage_arrivals=1 groups=1\n" + maps +
                             "CTA 0\nWG 0\n" + code);
}

// --- TOML documents -------------------------------------------------------------------------------

TEST(BadInput, DeepTomlIsAnErrorEverywhereAGpuFileIsRead) {
  std::string header = "[a", dotted = "a";
  for (int i = 0; i < 50000; ++i) header += ".a", dotted += ".a";
  const auto deep = temp_file("deep.toml", header + "]\n");
  const auto deep_dotted = temp_file("deep_dotted.toml", dotted + " = 1\n");
  expect_user_error(simfa("config show --gpu " + deep), "deep.toml:1: this line nests 50001 keys", "config show");
  expect_user_error(simfa("config show --gpu " + deep_dotted), "deep_dotted.toml:1: this line nests", "dotted");
  expect_user_error(simfa("trace run " + kExample + " --gpu " + deep), "deep.toml:1: this line nests", "trace run");
  expect_user_error(simfa("run --model none --batch 1 --seqlen 128 --heads-kv 1 --group 1 --head-dim 64 --gpu " + deep),
                    "deep.toml:1: this line nests", "run");
  // The gpu column of a measurements file.
  const auto csv = temp_file("deep_gpu.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us,gpu\n"
                                             "a,1,128,1,64,0,10," + deep + "\n");
  expect_user_error(simfa("validate --measurements " + csv), "deep.toml:1: this line nests", "validate");
  expect_user_error(simfa("ablate --measurements " + csv), "deep.toml:1: this line nests", "ablate");
}

TEST(BadInput, GpuDirectoryIsNotAnEmptyConfiguration) {
  expect_user_error(simfa("config show --gpu " + scratch("gpudir")), "is a directory, not a TOML file", "--gpu DIR");
}

// --- Files that are not regular -------------------------------------------------------------------

TEST(BadInput, FifosAreRejectedBeforeTheyAreOpened) {
  // No writer ever opens these FIFOs: a reader that opened one would wait forever. simfa checks the
  // kind of file first, so these runs end at once.
  const std::string d = scratch("fifo");
  for (const std::string name : std::vector<std::string>{"gpu.toml", "trace.sft", "m.csv", "log.evlog"})
    ASSERT_EQ(::mkfifo((d + "/" + name).c_str(), 0600), 0) << name;
  const std::string msg = "not a regular file (a FIFO, socket or device)";
  expect_user_error(simfa("config show --gpu " + d + "/gpu.toml"), d + "/gpu.toml: " + msg, "toml");
  expect_user_error(simfa("trace run " + d + "/trace.sft"), d + "/trace.sft: " + msg, "trace");
  expect_user_error(simfa("validate --measurements " + d + "/m.csv"), d + "/m.csv: " + msg, "validate");
  expect_user_error(simfa("microbench load-latency --ws 2 --hops 20 --quiet --compare " + d + "/m.csv"),
                    d + "/m.csv: " + msg, "microbench");
  expect_user_error(simfa("translate " + d + "/log.evlog"), d + "/log.evlog: " + msg, "translate");
  fs::remove_all(d);
}

TEST(BadInput, TraceDirectoryProblemsNameThePath) {
  const std::string d = scratch("loop");
  fs::copy_file(kExample, d + "/a.sft");
  fs::create_symlink(d + "/loop.sft", d + "/loop.sft");  // a symlink loop
  expect_user_error(simfa("trace run " + d), d + "/loop.sft: cannot read: Too many levels of symbolic links", "loop");
  expect_user_error(simfa("trace run " + d + "/loop.sft"), "loop.sft: cannot read", "loop file");
  fs::remove_all(d);
  if (::geteuid() != 0) {  // root reads any folder
    const std::string u = scratch("unreadable");
    fs::copy_file(kExample, u + "/a.sft");
    ::chmod(u.c_str(), 0);
    expect_user_error(simfa("trace run " + u), u + ": cannot read directory", "unreadable");
    ::chmod(u.c_str(), 0700);
    fs::remove_all(u);
  }
}

// --- Outputs --------------------------------------------------------------------------------------

TEST(BadInput, EmptyOutputNamesAreErrors) {
  for (const std::string& args : std::vector<std::string>{"trace run " + kExample + " --json ''", "run --model none --seqlen 128 --batch 1 --heads-kv 1 --group 1 "
                                                 "--head-dim 64 --json ''",
        "analyze --csv ''", "analyze --json ''", "microbench load-latency --ws 2 --quiet --csv ''",
        "validate --measurements " + kMeasurements + " --json ''", "trace gen -o ''",
        "run --model none --seqlen 128 --batch 1 --heads-kv 1 --group 1 --head-dim 64 --timeline ''"}) {
    const Out o = simfa(args);
    EXPECT_EQ(o.rc, 2) << args << "\n" << o.text;
    EXPECT_NE(o.text.find("an empty file name"), std::string::npos) << args << "\n" << o.text;
  }
}

// A full file system, as a file-size limit (the shell ignores SIGXFSZ, so a write past the limit
// fails with EFBIG as one on a full disk fails with ENOSPC): every output is an error naming the
// file, the exit code is 2 and no file is left that looks complete.
TEST(BadInput, AFailedWriteIsAnErrorAndLeavesNoFile) {
  const std::string d = scratch("full");
  const std::string limit = "trap '' XFSZ; ulimit -f 1; ";  // 512 bytes (1 KiB in bash)
  struct Case {
    std::string args, file;
  };
  for (const Case& c :
       {Case{"trace run " + kExample + " --json " + d + "/t.json", d + "/t.json"},
        Case{"validate --measurements " + kMeasurements + " --json " + d + "/v.json", d + "/v.json"},
        Case{"analyze --sweep seqlen=1K:64K:*2 --csv " + d + "/a.csv", d + "/a.csv"},
        Case{"microbench load-latency --ws 2 --ws 4 --hops 20 --quiet --json " + d + "/m.json", d + "/m.json"},
        Case{"trace gen --model none --batch 1 --seqlen 128 --heads-kv 1 --group 1 --head-dim 64 -o " + d + "/gen",
             d + "/gen/cta_000000.sft"}}) {
    const Out o = simfa(c.args, limit);
    EXPECT_EQ(o.rc, 2) << c.args << "\n" << o.text;
    EXPECT_NE(o.text.find(c.file + ": write failed"), std::string::npos) << c.args << "\n" << o.text;
    EXPECT_FALSE(fs::exists(c.file)) << c.file;
  }
  // The microbench CSV is small: write it where a file cannot be created.
  const Out o = simfa("microbench load-latency --ws 2 --hops 20 --quiet --csv " + d + "/missing/m.csv");
  expect_user_error(o, d + "/missing/m.csv: cannot open for writing", "microbench --csv");
  fs::remove_all(d);
}

TEST(BadInput, TraceGenIntoAReusedFolderLeavesNoStaleCtas) {
  const std::string d = scratch("gen");
  // The persistent kernel has a CTA per SM: 8, then 4.
  const std::string shape = "--model none --batch 1 --heads-kv 1 --group 1 --head-dim 64 --seqlen 128 ";
  ASSERT_EQ(simfa("trace gen " + shape + "--set gpu.num_sms=8 -o " + d).rc, 0);
  const auto count = [&] { return std::distance(fs::directory_iterator(d), fs::directory_iterator()); };
  const auto before = count();
  const Out small = simfa("trace gen " + shape + "--set gpu.num_sms=4 -o " + d);
  ASSERT_EQ(small.rc, 0) << small.text;
  EXPECT_EQ(count(), before - 4);
  const Out run = simfa("trace run " + d + " --set gpu.num_sms=4");
  EXPECT_EQ(run.rc, 0) << run.text;
  // A .sft file trace gen did not write would be read with the trace: an error, nothing removed.
  std::ofstream(d + "/mine.sft") << "SIMFA_TRACE 1\n";
  const auto now = count();
  expect_user_error(simfa("trace gen " + shape + "-o " + d), "holds mine.sft", "foreign .sft");
  EXPECT_EQ(count(), now);
  fs::remove_all(d);
}

// --- Messages ------------------------------------------------------------------------------------

TEST(BadInput, RawBytesAreQuotedAndCut) {
  const std::string token = "\x1b[2J\x1b]0;pwned\x07" + std::string(1 << 20, 'A');
  const auto t = trace("raw.sft", "", token + " 1\n");
  const Out o = simfa("trace run " + t);
  expect_user_error(o, "raw.sft:5: unknown opcode '\\x1b[2J\\x1b]0;pwned\\x07AAA", "opcode");
  EXPECT_EQ(o.text.find('\x1b'), std::string::npos);
  EXPECT_LT(o.text.size(), 1000u);
  const auto nul = trace("nul.sft", "", std::string("LDG 0x100\0x 4\n", 14));
  const Out n = simfa("trace run " + nul);
  expect_user_error(n, "nul.sft:5: gmem '0x100\\x00x' is not a non-negative integer", "NUL");
  const auto csv = temp_file("raw.csv", "case,batch,seqlen,heads,head_dim,causal,measured_us\n"
                                        "a,1,\x1b[31m" + std::string(100000, '9') + ",1,64,0,10\n");
  const Out c = simfa("validate --measurements " + csv);
  expect_user_error(c, "raw.csv:2: column 'seqlen': expected a positive integer, got '\\x1b[31m999", "csv");
  EXPECT_LT(c.text.size(), 1000u);
  const Out s = simfa("trace run " + kExample + " --set \"$(printf 'x\\033[31m=1')\"");
  expect_user_error(s, "unknown configuration key 'x\\x1b[31m'", "--set");
  const auto role = trace("role.sft", "", "BUBBLE 1\n");
  std::ofstream(role, std::ios::app) << "WG 1 role=\x1b[1m\n";
  expect_user_error(simfa("trace run " + role), "role.sft:6: WG role '\\x1b[1m' is not a name", "role");
}

TEST(BadInput, WholeTraceErrorsNameTheKernelLine) {
  const std::string d = scratch("kernel_line");
  std::ofstream(d + "/a.sft") << "SIMFA_TRACE 1\nCTA 0\nWG 0\nBUBBLE 1\n";
  std::ofstream(d + "/b.sft") << "SIMFA_TRACE 1\n# the kernel\nKERNEL ctas=2\n";
  expect_user_error(simfa("trace run " + d), d + "/b.sft:3: KERNEL ctas=2 but the trace has 1 CTAs", "ctas");
  fs::remove_all(d);
}

}  // namespace
