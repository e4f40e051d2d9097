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
    EXPECT_TRUE(o.text.find("an empty file name") != std::string::npos ||
                o.text.find("an empty folder name") != std::string::npos)
        << args << "\n" << o.text;
  }
}

// Sampling is for simulations: trace gen refuses it instead of silently writing the whole trace.
TEST(BadInput, TraceGenRefusesSampleMode) {
  const std::string d = scratch("gen_sampled");
  const Out o = simfa("trace gen --model none --batch 1 --seqlen 128 --heads-kv 1 --group 1 --head-dim 64 "
                      "--set sample.mode=on -o " + d + "/gen");
  expect_user_error(o, "sample.mode = on (--set): sampling applies to a simulation", "trace gen sample.mode");
  EXPECT_FALSE(fs::exists(d + "/gen/cta_000000.sft"));
  fs::remove_all(d);
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
  // An output where no file can be created is refused when the command line is read, before the run.
  const Out o = simfa("microbench load-latency --ws 2 --hops 20 --quiet --csv " + d + "/missing/m.csv");
  expect_user_error(o, "--csv: output file " + d + "/missing/m.csv: the folder " + d + "/missing does not exist",
                    "microbench --csv");
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

// --- Addresses -------------------------------------------------------------------------------------

TEST(BadInput, AddressesBeyondTheGlobalAddressSpaceAreRejectedBeforeCycleZero) {
  const std::string bulk = "ACQUIRE_STAGE 0\nTMA_BULK 0x0 0xffffffffff00 256 0\nMB_WAIT 0\n";
  const std::string map = "DEF_TMAP 0 2 128,4096 256 64,128 2\n";
  struct Case {
    std::string name, maps, code, message;
  };
  for (const Case& c : {
           Case{"ldg48.sft", "", "LDG 0xffffffffff00 128\n", "ldg48.sft:5: LDG: the load at 0xffffffffff00"},
           Case{"ldg64.sft", "", "LDG 0xffffffffffffff80 128\n", "ldg64.sft:5: LDG: the load at 0xffffffffffffff80"},
           Case{"bulk48.sft", "", bulk, "bulk48.sft:6: TMA_BULK: the copy at 0xffffffffff00"},
           Case{"base60.sft", "DEF_TMAP 0 2 128,4096 256 64,128 2 base=0x1000000000000000\n",
                "ACQUIRE_STAGE 0\nTMA_TENSOR 0x0 0x1000000000000000 0 0\nMB_WAIT 0\n",
                "base60.sft:3: DEF_TMAP 0: the tensor at 0x1000000000000000"},
           Case{"wrap.sft", map, "ACQUIRE_STAGE 0\nTMA_TENSOR 0x0 0xffffffffffffff00 0 0\nMB_WAIT 0\n",
                "wrap.sft:7: TMA_TENSOR: the box of TensorMap 0 at 0xffffffffffffff00"},
           Case{"store.sft", map, "TMA_STORE 0x0 0x7fffffffff00 0 0\n", "store.sft:6: TMA_STORE: the box of TensorMap 0"},
       }) {
    const Out o = simfa("trace run " + trace(c.name, c.maps, c.code));
    expect_user_error(o, c.message, c.name);
    EXPECT_NE(o.text.find("beyond the 47-bit global address space"), std::string::npos) << o.text;
  }
  // The top of the space runs on every preset; a cache too small to tag it is an error naming the keys.
  const auto top = trace("top.sft", "", "LDG 0x7fffffffff80 128\nACQUIRE_STAGE 0\nTMA_BULK 0x0 0x7fffffffff00 256 0\n"
                                        "MB_WAIT 0\n");
  for (const std::string gpu : {"h100", "h200", "h800", "h800-pcie"}) {
    const Out o = simfa("trace run " + top + " --gpu " + gpu + " --set mem.model=hierarchy");
    EXPECT_EQ(o.rc, 0) << gpu << "\n" << o.text;
  }
  expect_user_error(simfa("trace run " + top + " --set mem.model=hierarchy --set mem.l1.size=16KiB"),
                    "needs a tag wider than 32 bits in a cache of 32 sets", "small L1");
}

// --- Sizes -------------------------------------------------------------------------------------------

TEST(BadInput, SizesAreBoundedToWhatAGpuCouldHave) {
  expect_user_error(simfa("trace run " + kExample + " --set mem.l2.size=1e12"), "--set: mem.l2.size = '1e12': out of range",
                    "l2");
  expect_user_error(simfa("trace run " + kExample + " --set mem.l1.size=1e9"), "--set: mem.l1.size = '1e9': out of range",
                    "l1");
  // A copy lands in shared memory: a 4 GiB one would also hold 33 million lines in host memory.
  const auto big = trace("bulk4g.sft", "", "ACQUIRE_STAGE 0\nTMA_BULK 0x0 0x0 4294967280 0\nMB_WAIT 0\n");
  expect_user_error(simfa("trace run " + big),
                    "bulk4g.sft:6: TMA_BULK: a copy of 4294967280 bytes does not fit in a CTA's shared memory of "
                    "232448 bytes (sm.max_smem_per_cta)",
                    "4 GiB copy");
}

// --- Not deadlocks ------------------------------------------------------------------------------------

TEST(BadInput, ProgressWithoutIssueIsNoDeadlock) {
  // A long bubble: time passes towards its known end.
  const Out b = simfa("trace run " + trace("bubble25m.sft", "", "BUBBLE 25000000\n"));
  EXPECT_EQ(b.rc, 0) << b.text;
  EXPECT_NE(b.text.find("cycles            25000000"), std::string::npos) << b.text;
  EXPECT_EQ(simfa("trace run " + trace("bubble5k.sft", "", "BUBBLE 5000\n") + " --set sim.watchdog_cycles=1000").rc, 0);
  // A delayed CTA launch.
  const Out l = simfa("trace run " + kExample + " --set gpu.cta_launch_cycles=5000 --set sim.watchdog_cycles=1000");
  EXPECT_EQ(l.rc, 0) << l.text;
  expect_user_error(simfa("trace run " + kExample + " --set gpu.cta_launch_cycles=1e9"),
                    "gpu.cta_launch_cycles = '1e9': out of range", "launch 1e9");
  // A copy that takes 14,500 cycles at 16 bytes per cycle, nothing issuing meanwhile: the memory
  // responses are progress.
  const auto copy = trace("slowcopy.sft", "", "ACQUIRE_STAGE 0\nTMA_BULK 0x0 0x0 232448 0\nMB_WAIT 0\n");
  const Out c = simfa("trace run " + copy +
                      " --set mem.model=fixed --set mem.fixed.bytes_per_cycle=16 --set sim.watchdog_cycles=1000");
  EXPECT_EQ(c.rc, 0) << c.text;
  // A CTA no SM can hold is bad input naming the key, not a deadlock.
  expect_user_error(simfa("trace run " + kExample + " --set sm.smem=1"),
                    "a CTA needs 216064 bytes of shared memory; an SM has 1 (sm.smem)", "sm.smem");
  const auto two = temp_file("two_wgs.sft", "SIMFA_TRACE 1\nKERNEL threads=160\nCTA 0\nWG 0\nBUBBLE 1\nWG 1\nBUBBLE 1\n");
  expect_user_error(simfa("trace run " + two + " --set sm.max_warps=7"),
                    "a CTA of 2 WarpGroups exceeds the 1 WarpGroup slots of an SM (sm.max_warps / 4)", "slots");
}

// --- DRAM timing --------------------------------------------------------------------------------------

TEST(BadInput, DramTimingThatStarvesRequestsIsAnError) {
  const std::string run = "trace run " + kExample + " --set mem.model=hierarchy ";
  expect_user_error(simfa(run + "--set dram.timing.tREFI=1"),
                    "dram.timing.tRFC = 585 plus a row cycle of 59 tCK", "tREFI=1");
  expect_user_error(simfa(run + "--set dram.timing.tRFC=5070"), "does not fit in tREFI = 5070", "tRFC=tREFI");
  expect_user_error(simfa(run + "--set dram.timing.tRCD_rd=10000"), "plus a row cycle of", "tRCD_rd");
  expect_user_error(simfa(run + "--set dram.refresh=per-bank --set dram.timing.tRFCpb=400"),
                    "dram.timing.tRFCpb = 400 is not shorter than the per-bank refresh interval", "tRFCpb");
  for (const std::string key : {"tRFC", "tCL", "tRCD_rd", "tCCD_L"})
    expect_user_error(simfa(run + "--set dram.timing." + key + "=1e7"),
                      "dram.timing." + key + " = '1e7': out of range [", key);
}

// --- Microbenchmarks -----------------------------------------------------------------------------------

TEST(BadInput, MicrobenchNegativeAndDegenerateParametersAreErrors) {
  struct Case {
    const char* args;
    const char* message;
  };
  for (const Case& c : {Case{"tma-bandwidth --array-mib -1", "--array-mib must be at least 1, got -1"},
                        Case{"tma-bandwidth --sim-mib -1", "--sim-mib must be at least 1, got -1"},
                        Case{"tma-bandwidth --sim-mib 100000", "--sim-mib must be at most 4096 (4 GiB), got 100000"},
                        Case{"load-latency --hops -1", "--hops must be at least 1, got -1"},
                        Case{"load-latency --ws-ratio 1.0000001", "--ws-ratio 1.0000001 makes 138629"},
                        Case{"load-latency --ws-ratio 1", "--ws-ratio must exceed 1"},
                        Case{"load-latency --ws 1e12", "working set 1000000000000 KiB (--ws or the measured file): at most 67108864 KiB (64 GiB)"},
                        Case{"tma-latency --warmup-passes -1", "--warmup-passes must be at least 0, got -1"},
                        Case{"dram-bandwidth --blocks-per-sm -1", "--blocks-per-sm must be between 1 and 32"}}) {
    const Out o = simfa(std::string("microbench ") + c.args + " --quiet");
    expect_user_error(o, c.message, c.args);
  }
}

// --- Analytic model --------------------------------------------------------------------------------------

TEST(BadInput, AnalyzeConflictsAndUnsupportedShapesAreErrors) {
  expect_user_error(simfa("analyze --seqlen 512 --seqlen-q 1024"),
                    "seqlen (--seqlen) 512 and seqlen_q (--seqlen-q) 1024 disagree", "seqlen");
  EXPECT_EQ(simfa("analyze --seqlen 512 --seqlen-q 512").rc, 0);
  expect_user_error(simfa("analyze --head-dim 7"), "head_dim (--head-dim) 7 is not a multiple of 8", "analyze D=7");
  expect_user_error(simfa("run --model none --batch 1 --seqlen 128 --heads-kv 1 --group 1 --head-dim 7"),
                    "head_dim (--head-dim) 7 is not a multiple of 8", "run D=7");
  expect_user_error(simfa("analyze --head-dim 72 --dtype fp8_e4m3"), "is not a multiple of 16, which FA3 requires for FP8",
                    "fp8");
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

namespace {

// --- Workloads: a flag of the other workload, a bad size, an unknown name -----------------------------

TEST(BadInput, WorkloadFlagsAreCheckedAgainstTheChosenWorkload) {
  const std::string gemm = "run --workload gemm --m 256 --n 256 --k 128 ";
  expect_user_error(simfa(gemm + "--head-dim 64"),
                    "--head-dim does not apply to --workload gemm (its shape flags: --batch, --m, --n, --k, --dtype)",
                    "attention flag on gemm");
  expect_user_error(simfa(gemm + "--causal"), "--causal does not apply to --workload gemm", "causal on gemm");
  expect_user_error(simfa(gemm + "--model llama3-8b"), "--model does not apply to --workload gemm", "model on gemm");
  expect_user_error(simfa("run --m 256"), "--m does not apply to --workload fa3", "gemm flag on fa3");
  expect_user_error(simfa("trace gen --workload gemm --m 256 --n 256 --k 128 --seqlen 64 -o /tmp/x"),
                    "--seqlen does not apply to --workload gemm", "trace gen");
  expect_user_error(simfa("run --workload gemv"), "--workload: unknown workload 'gemv' (expected one of: fa3, gemm)",
                    "unknown workload");
  expect_user_error(simfa("run --workload gemm --m 256 --n 256"), "the gemm workload needs --m, --n and --k: --k is missing",
                    "missing k");
  expect_user_error(simfa("run --workload gemm --m 0 --n 256 --k 128"), "--m: must be at least 1, got 0", "zero m");
  expect_user_error(simfa("run --workload gemm --m -4 --n 256 --k 128"), "--m", "negative m");
  expect_user_error(simfa("run --workload gemm --m 256 --n 256 --k 96"),
                    "--k 96: must be a multiple of the tile's K, gemm.tile_k = 64", "k not a tile multiple");
  expect_user_error(simfa("run --workload gemm --m 256 --n 256 --k 128 --set gemm.tile_n=100"),
                    "gemm.tile_n = 100: the WGMMA N must be a multiple of 8", "tile_n");
  expect_user_error(simfa("run --workload gemm --m 256 --n 256 --k 128 --set gemm.schedule=ping"),
                    "gemm.schedule", "bad schedule");
  expect_user_error(simfa("run --workload gemm --m 256 --n 256 --k 128 --set sample.mode=on"),
                    "sampled simulation is FA3's", "sampling");
  expect_user_error(simfa("run --workload gemm --m 256 --n 256 --k 128 --set fa3.stages=3"),
                    "fa3.stages = 3 (--set) configures the fa3 workload, not gemm", "fa3 key on gemm");
  expect_user_error(simfa("run --model llama3-8b --seqlen 256 --set gemm.tile_n=64"),
                    "gemm.tile_n = 64 (--set) configures the gemm workload, not fa3", "gemm key on fa3");
  const std::string csv = temp_file("gemm_bad.csv", "case,workload,m,n,k,measured_us\ng1,gemm,256,0,128,10\n");
  expect_user_error(simfa("validate --measurements " + csv), ":2 (case 'g1'): column 'n' must be at least 1, got 0",
                    "csv zero n");
  const std::string csv2 = temp_file("gemm_bad2.csv", "case,workload,m,n,k,measured_us\ng1,gemv,256,256,128,10\n");
  expect_user_error(simfa("validate --measurements " + csv2), ":2: column 'workload': unknown workload 'gemv'",
                    "csv unknown workload");
}

}  // namespace
