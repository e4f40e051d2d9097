// The log translator (issue 6, paper §5.2). Key acceptance test: a host-side emulation of the
// device logger records a synthetic FA3 run (the synthesizer's own schedule), and
// translate -> simulate equals synthesize -> simulate exactly: identical instruction streams and
// identical simulated statistics. Then one test per class of semantic translation error.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "api/run.h"
#include "instr/log_reader.h"
#include "sim/error.h"
#include "synth_log.h"
#include "trace/io.h"
#include "translate/fa3_log_source.h"
#include "workload/fa3_source.h"

namespace simfa::translate {
namespace {

using testing::EventLists;
using testing::Rec;
using trace::Instr;

struct Case {
  const char* name;
  std::int64_t L, S, hkv = 1, group = 1, d = 128;
  bool causal = false;
  std::vector<std::string> sets = {};
  // What the case exercises, checked on the resolved kernel (so a default change cannot make the
  // case silently test something else).
  std::function<bool(const workload::Fa3Kernel&)> is = [](const workload::Fa3Kernel&) { return true; };
};
using K = workload::Fa3Kernel;
using workload::SchedKind;
using workload::Version;

spec::AttentionShape shape_of(const Case& c) {
  spec::AttentionShape s;
  s.batch = 1, s.seqlen_q = c.L, s.seqlen_kv = c.S, s.heads_kv = c.hkv, s.group = c.group, s.head_dim = c.d;
  s.causal = c.causal;
  return s;
}

Config config_of(const Case& c) {
  std::vector<std::string> sets = {"gpu.num_sms=2"};
  sets.insert(sets.end(), c.sets.begin(), c.sets.end());
  return make_config("h800", sets);
}

instr::EventLog parse(const instr::LoggerEmulator& em, const char* name = "synthetic.evlog") {
  const auto bytes = em.encode();
  return instr::parse_log(bytes.data(), bytes.size(), name);
}

std::string listing(const std::vector<Instr>& v, std::size_t from, std::size_t n) {
  std::string s;
  for (std::size_t i = from; i < v.size() && i < from + n; ++i) s += "  " + trace::format(v[i]) + "\n";
  return s;
}

// Compares the translated CTAs with the synthesized ones, instruction by instruction. A measured
// translation marks the bubbles it measured fixed=1 (durations from a log); `measured_fixed`
// compares those without the flag and checks that at least one bubble carried it.
void expect_same_streams(const testing::SynthRun& synth, const Fa3LogSource& tr, bool measured_fixed = false) {
  ASSERT_EQ(tr.kernel().ctas, synth.code.size());
  std::size_t fixed = 0;
  for (std::uint32_t c = 0; c < synth.code.size(); ++c) {
    const auto got = tr.translate_cta(c);
    ASSERT_EQ(got.size(), synth.code[c].size()) << "cta " << c;
    for (std::size_t w = 0; w < got.size(); ++w) {
      const auto& a = synth.code[c][w];
      auto b = got[w].code;
      for (Instr& in : b)
        if (in.op == trace::Op::BUBBLE && (in.flags & trace::kBubbleFixed)) {
          EXPECT_TRUE(measured_fixed) << "a fixed bubble in a model-bubble translation";
          in.flags = 0;
          ++fixed;
        }
      std::size_t i = 0;
      while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
      ASSERT_TRUE(i == a.size() && i == b.size())
          << "cta " << c << " wg " << w << " differs at instruction " << i << " (synthesized " << a.size()
          << ", translated " << b.size() << ")\nsynthesized:\n"
          << listing(a, i, 6) << "translated:\n"
          << listing(b, i, 6);
    }
  }
  if (measured_fixed) {
    EXPECT_GT(fixed, 0u) << "no measured bubble was marked fixed=1";
  }
}

// The kernel lines and TensorMaps of the two sources are the same too.
void expect_same_kernel(const trace::KernelInfo& a, const trace::KernelInfo& b) {
  EXPECT_EQ(trace::format_kernel_line(a), trace::format_kernel_line(b));
  ASSERT_EQ(a.tmaps.size(), b.tmaps.size());
  for (std::size_t i = 0; i < a.tmaps.size(); ++i) EXPECT_EQ(a.tmaps[i], b.tmaps[i]) << "map " << i;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> v = {
      {"tiny_current", 128, 528, 1, 1, 128, false, {},
       [](const K& k) {
         return k.version == Version::Current && k.intra_wg_overlap && k.pingpong && k.first_wg_waits_only &&
                k.cluster == 1 && k.consumer_wgs == 2 && k.tile_n == 176 && k.scheduler == SchedKind::Static;
       }},
      {"paper_recipe", 128, 528, 1, 1, 128, false, {"fa3.recipe=paper"},
       [](const K& k) { return k.paper_recipe && k.paper_pingpong && k.paper_bubbles; }},
      {"original", 128, 528, 1, 1, 128, false, {"fa3.version=original", "fa3.grid=2"},
       [](const K& k) { return k.version == Version::Original && k.cluster == 2; }},
      {"no_intra_wg_overlap", 128, 528, 1, 1, 128, false, {"fa3.intra_wg_overlap=off"},
       [](const K& k) { return !k.intra_wg_overlap && k.pingpong; }},
      {"causal_dynamic", 384, 384, 1, 1, 128, true, {},
       [](const K& k) { return k.shape.causal && k.scheduler == SchedKind::Dynamic && k.m_blocks == 3; }},
      {"cluster_two_heads", 256, 528, 2, 1, 128, false, {},
       [](const K& k) { return k.cluster == 2 && k.total_tiles() == 4; }},
      {"many_tiles_per_cta", 512, 352, 2, 1, 128, false, {"fa3.cluster=1"},
       [](const K& k) { return k.cluster == 1 && k.total_tiles() == 8 && k.grid == 2; }},
      {"hdim64_three_consumers", 384, 256, 1, 1, 64, false, {},
       [](const K& k) { return k.consumer_wgs == 3 && k.head_dim == 64; }},
      {"original_no_overlap_many_tiles", 512, 352, 2, 1, 128, false,
       {"fa3.version=original", "fa3.intra_wg_overlap=off", "fa3.cluster=1", "fa3.grid=2"},
       [](const K& k) { return k.version == Version::Original && !k.intra_wg_overlap && k.total_tiles() == 8; }},
      {"no_pingpong", 128, 352, 1, 1, 128, false, {"fa3.pingpong=off", "fa3.consumer_waits=all"},
       [](const K& k) { return !k.pingpong && !k.first_wg_waits_only; }},
      {"pack_gqa", 16, 352, 1, 8, 128, false, {}, [](const K& k) { return k.pack_gqa; }},
      {"original_causal", 256, 256, 1, 1, 128, true, {"fa3.version=original", "fa3.grid=2"},
       [](const K& k) { return k.version == Version::Original && k.shape.causal; }},
      {"paper_bubbles_causal_no_overlap", 256, 256, 1, 1, 128, true,
       {"fa3.bubbles=paper", "fa3.intra_wg_overlap=off"},
       [](const K& k) { return k.paper_bubbles && !k.paper_pingpong && !k.intra_wg_overlap; }},
      // simfa's own kernel (gpu/attn): Q/K/V maps in its [D, S, H, B] order, no O map, O and LSE from
      // registers, EPILOGUE_START/END around the epilogue bubble; GQA and several tiles per CTA.
      {"simfa_attn", 256, 528, 2, 2, 128, false, {"fa3.kernel=simfa-attn"},
       [](const K& k) {
         return k.impl == workload::Impl::SimfaAttn && k.o_from_registers && k.cluster == 1 && !k.pack_gqa &&
                k.intra_wg_overlap && k.pingpong_bar == 2 && k.total_tiles() == 8 && k.grid == 2;
       }},
      {"simfa_attn_no_overlap", 256, 528, 1, 1, 128, false, {"fa3.kernel=simfa-attn", "fa3.intra_wg_overlap=off"},
       [](const K& k) { return k.impl == workload::Impl::SimfaAttn && !k.intra_wg_overlap && k.pingpong; }},
  };
  return v;
}

// A case by name (the list grows; indices would silently point at another case).
const Case& case_named(std::string_view name) {
  for (const Case& c : cases())
    if (name == c.name) return c;
  throw std::logic_error("no translation test case named " + std::string(name));
}

class TranslateEqualsSynthesize : public ::testing::TestWithParam<Case> {};

TEST_P(TranslateEqualsSynthesize, InstructionStreamsAreIdentical) {
  const Case& c = GetParam();
  const Config cfg = config_of(c);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  ASSERT_TRUE(c.is(src.fa3())) << "the case no longer resolves to the kernel it is meant to test";
  const auto synth = testing::synthesize_and_log(src);
  TranslateOptions opt;
  opt.causal = c.causal;
  Fa3LogSource tr(parse(testing::emulate(src, synth.events)), cfg, 2, opt);
  EXPECT_GT(tr.instructions(), 50u);
  EXPECT_TRUE(tr.warnings().empty()) << tr.warnings().front();
  expect_same_kernel(src.kernel(), tr.kernel());
  expect_same_streams(synth, tr);
  EXPECT_GT(tr.events(), 0u);

  // Measured bubbles: the emulated SOFTMAX_START/END gaps are the model's cycles at the simulated
  // clock, so the measured trace is the same trace.
  opt.bubbles = BubbleMode::Measured;
  Fa3LogSource measured(parse(testing::emulate(src, synth.events)), cfg, 2, opt);
  expect_same_streams(synth, measured, /*measured_fixed=*/true);
}

INSTANTIATE_TEST_SUITE_P(Fa3, TranslateEqualsSynthesize, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// The acceptance test: translate -> simulate == synthesize -> simulate, statistic by statistic.
void expect_same_simulation(const Case& c) {
  const Config cfg = config_of(c);
  workload::Fa3Source for_log(shape_of(c), cfg, 2);
  const auto synth = testing::synthesize_and_log(for_log);
  TranslateOptions opt;
  opt.causal = c.causal;
  Fa3LogSource tr(parse(testing::emulate(for_log, synth.events)), cfg, 2, opt);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  const RunResult a = run_trace(src, cfg);
  const RunResult b = run_trace(tr, cfg);
  EXPECT_GT(a.cycles, 1000u);
  EXPECT_GT(a.stat("gpu.instructions"), 100.0);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.ctas, b.ctas);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.stats.dump(), b.stats.dump());
}

TEST(TranslateSimulate, TinyCurrentKernelSimulatesIdentically) { expect_same_simulation(cases()[0]); }
TEST(TranslateSimulate, PaperRecipeSimulatesIdentically) { expect_same_simulation(cases()[1]); }
TEST(TranslateSimulate, CausalDynamicSchedulerSimulatesIdentically) { expect_same_simulation(case_named("causal_dynamic")); }
TEST(TranslateSimulate, SimfaAttnKernelSimulatesIdentically) { expect_same_simulation(case_named("simfa_attn")); }

TEST(TranslateTrace, WrittenTraceDirectoryRoundTrips) {
  const Case& c = cases()[0];
  const Config cfg = config_of(c);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  const auto synth = testing::synthesize_and_log(src);
  Fa3LogSource tr(parse(testing::emulate(src.kernel(), synth.events)), cfg, 2);
  const std::string dir = ::testing::TempDir() + "simfa_translate_trace";
  trace::write_trace_dir(dir, tr);
  trace::MemoryTrace back = trace::read_trace_paths({dir});
  ASSERT_EQ(back.ctas.size(), synth.code.size());
  for (std::size_t i = 0; i < back.ctas.size(); ++i)
    for (std::size_t w = 0; w < back.ctas[i].wgs.size(); ++w) EXPECT_EQ(back.ctas[i].wgs[w].code, synth.code[i][w]);
}

TEST(TranslateTrace, LogFileReadFromDiskTranslates) {
  const Case& c = cases()[0];
  const Config cfg = config_of(c);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  const auto synth = testing::synthesize_and_log(src);
  const std::string path = ::testing::TempDir() + "simfa_translate_tiny.evlog";
  testing::emulate(src.kernel(), synth.events).write(path);
  Fa3LogSource tr(instr::read_log(path), cfg, 2);
  expect_same_streams(synth, tr);
}

TEST(TranslateTrace, AddressesComeFromTheLogsTensorMapBases) {
  // A real kernel's tensors live wherever cudaMalloc put them: the trace keeps those bases.
  const Case& c = cases()[0];
  const Config cfg = config_of(c);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  const auto synth = testing::synthesize_and_log(src);
  trace::KernelInfo info = src.kernel();
  const std::uint64_t delta[4] = {0x7f0000000000ull, 0x7f1000000000ull, 0x7f2000000000ull, 0x7f3000000000ull};
  for (std::uint16_t id = 0; id < 4; ++id) info.tmaps[id].base = *info.tmaps[id].base + delta[id];
  Fa3LogSource tr(parse(testing::emulate(info, synth.events)), cfg, 2);
  for (std::uint16_t id = 0; id < 4; ++id) EXPECT_EQ(tr.kernel().tmap(id).base, info.tmaps[id].base);
  std::size_t moved = 0;
  for (std::uint32_t cta = 0; cta < synth.code.size(); ++cta) {
    const auto got = tr.translate_cta(cta);
    for (std::size_t w = 0; w < got.size(); ++w) {
      ASSERT_EQ(got[w].code.size(), synth.code[cta][w].size());
      for (std::size_t i = 0; i < got[w].code.size(); ++i) {
        Instr want = synth.code[cta][w][i];
        if (want.op == trace::Op::TMA_TENSOR || want.op == trace::Op::TMA_STORE) want.gmem += delta[want.map], ++moved;
        EXPECT_EQ(got[w].code[i], want) << trace::format(got[w].code[i]);
      }
    }
  }
  EXPECT_GT(moved, 10u);
}

TEST(TranslateBubbles, MeasuredSoftmaxReplacesTheModelBubble) {
  const Case& c = cases()[0];
  const Config cfg = config_of(c);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  // globaltimer nanoseconds: every softmax lasts 2000 ns = 3660 cycles at 1830 MHz (longer than
  // any model bubble, so shifting the later timestamps keeps the consumer after the producer).
  auto synth = testing::synthesize_and_log(src);
  std::size_t softmaxes = 0;
  for (auto& cta : synth.events)
    for (auto& wg : cta)
      for (std::size_t i = 0; i + 1 < wg.size(); ++i)
        if (wg[i].event == SIMFA_EV_SOFTMAX_START) {
          const std::uint64_t shift = wg[i].ts + 2000 - wg[i + 1].ts;
          for (std::size_t j = i + 1; j < wg.size(); ++j) wg[j].ts += shift;
          ++softmaxes;
        }
  ASSERT_GT(softmaxes, 0u);
  const auto em = testing::emulate(src.kernel(), synth.events, SIMFA_CLOCK_GLOBALTIMER_NS, 1000000000ull);
  TranslateOptions opt;
  opt.bubbles = BubbleMode::Measured;
  Fa3LogSource measured(parse(em), cfg, 2, opt);
  opt.bubbles = BubbleMode::Model;
  Fa3LogSource model(parse(em), cfg, 2, opt);
  expect_same_streams(synth, model);
  std::size_t bubbles_3660 = 0;
  for (std::uint32_t cta = 0; cta < 2; ++cta)
    for (const auto& w : measured.translate_cta(cta))
      for (const Instr& in : w.code) bubbles_3660 += in.op == trace::Op::BUBBLE && in.cycles() == 3660;
  EXPECT_EQ(bubbles_3660, softmaxes);
  EXPECT_EQ(measured.instructions(), model.instructions());
}

// Issue 20: a measured gap longer than a BUBBLE's 32 bits of cycles is an error naming the log,
// not a bubble wrapped modulo 2^32.
TEST(TranslateBubbles, MeasuredGapBeyondABubblesRangeIsAnError) {
  const Case& c = cases()[0];
  const Config cfg = config_of(c);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  auto synth = testing::synthesize_and_log(src);
  bool shifted = false;
  for (auto& cta : synth.events)
    for (auto& wg : cta)
      for (std::size_t i = 0; i + 1 < wg.size() && !shifted; ++i)
        if (wg[i].event == SIMFA_EV_SOFTMAX_START) {
          // 3 s of globaltimer nanoseconds: 5.5e9 cycles at 1830 MHz.
          const std::uint64_t shift = wg[i].ts + 3'000'000'000ull - wg[i + 1].ts;
          for (std::size_t j = i + 1; j < wg.size(); ++j) wg[j].ts += shift;
          shifted = true;
        }
  ASSERT_TRUE(shifted);
  const auto em = testing::emulate(src.kernel(), synth.events, SIMFA_CLOCK_GLOBALTIMER_NS, 1000000000ull);
  TranslateOptions opt;
  opt.bubbles = BubbleMode::Measured;
  try {
    Fa3LogSource measured(parse(em), cfg, 2, opt);
    for (std::uint32_t cta = 0; cta < 2; ++cta) measured.translate_cta(cta);
    FAIL() << "no error";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("synthetic.evlog"), std::string::npos) << m;
    EXPECT_NE(m.find("exceeds the 4294967295 cycles a BUBBLE holds"), std::string::npos) << m;
  }
}

TEST(TranslateBubbles, MeasuredWithoutSoftmaxEventsWarnsAndUsesTheModel) {
  const Case& c = cases()[0];
  const Config cfg = config_of(c);
  workload::Fa3Source src(shape_of(c), cfg, 2);
  auto synth = testing::synthesize_and_log(src);
  for (auto& cta : synth.events)
    for (auto& wg : cta)
      std::erase_if(wg, [](const Rec& r) {
        return r.event == SIMFA_EV_SOFTMAX_START || r.event == SIMFA_EV_SOFTMAX_END;
      });
  TranslateOptions opt;
  opt.bubbles = BubbleMode::Measured;
  Fa3LogSource tr(parse(testing::emulate(src.kernel(), synth.events)), cfg, 2, opt);
  ASSERT_EQ(tr.warnings().size(), 1u);
  EXPECT_NE(tr.warnings()[0].find("no SOFTMAX_START"), std::string::npos);
  expect_same_streams(synth, tr);
}

TEST(TranslateBubbles, ParsesTheModeNames) {
  EXPECT_EQ(parse_bubble_mode("model"), BubbleMode::Model);
  EXPECT_EQ(parse_bubble_mode("measured"), BubbleMode::Measured);
  EXPECT_THROW(parse_bubble_mode("both"), UserError);
}

// ------------------------------------------------------------------------------------------------
// Semantic errors: a valid tiny log, changed in one place, must fail with one line naming the
// block, warp and entry.

class TranslateErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = std::make_unique<workload::Fa3Source>(shape_of(cases()[0]), cfg_, 2);
    ev_ = testing::synthesize_and_log(*src_).events;
  }
  std::vector<Rec>& wg(int w) { return ev_[0][static_cast<std::size_t>(w)]; }
  // Index of the k-th (0-based) event `id` in WarpGroup w of CTA 0.
  std::size_t find(int w, std::uint16_t id, int k = 0) {
    auto& v = wg(w);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i].event == id && k-- == 0) return i;
    ADD_FAILURE() << "event " << id << " not found";
    return 0;
  }
  std::string error_of(const instr::LoggerEmulator& em, TranslateOptions opt = {}) {
    try {
      Fa3LogSource tr(parse(em, "bad.evlog"), cfg_, 2, opt);
    } catch (const UserError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      EXPECT_EQ(msg.rfind("bad.evlog: ", 0), 0u) << msg;
      return msg;
    }
    ADD_FAILURE() << "no error";
    return "";
  }
  std::string error() { return error_of(testing::emulate(src_->kernel(), ev_)); }
  void expect_error(const std::vector<std::string>& parts) {
    const std::string msg = error();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }

  Config cfg_ = config_of(cases()[0]);
  std::unique_ptr<workload::Fa3Source> src_;
  EventLists ev_;
};

TEST_F(TranslateErrors, TheUnchangedLogTranslates) {
  EXPECT_NO_THROW(Fa3LogSource(parse(testing::emulate(src_->kernel(), ev_)), cfg_, 2));
}

TEST_F(TranslateErrors, GemmBeforeItsKLoadIsIssued) {
  const std::size_t g = find(1, SIMFA_EV_GEMM_QK_ISSUE);
  const std::uint64_t load_ts = wg(0)[find(0, SIMFA_EV_TMA_K_ISSUE)].ts;
  for (std::size_t i = 0; i <= g; ++i) wg(1)[i].ts = load_ts - 10 + i;  // consumer clock runs early
  expect_error({"block 0 warp 4 entry " + std::to_string(g), "GEMM_QK_ISSUE", "precedes its TMA_K_ISSUE"});
}

TEST_F(TranslateErrors, GemmWithoutAnyKLoad) {
  std::erase_if(wg(0), [](const Rec&) { return true; });  // the producer recorded nothing
  expect_error({"block 0 warp 4 entry", "before its load: the producer issued only 0 TMA_K_ISSUE"});
}

TEST_F(TranslateErrors, GemmReadsAStageTheProducerDidNotFill) {
  const std::size_t w = find(1, SIMFA_EV_WAIT_K_START), g = find(1, SIMFA_EV_GEMM_QK_ISSUE);
  wg(1)[w].stage = wg(1)[g].stage = 1;
  expect_error({"entry " + std::to_string(g), "put KV tile 2 in stage 0"});
}

TEST_F(TranslateErrors, PvGemmBeforeItsQkGemm) {
  // Consumer 0's first GEMM is a PV GEMM.
  auto& v = wg(1);
  const std::size_t g = find(1, SIMFA_EV_GEMM_QK_ISSUE);
  v[g].event = SIMFA_EV_GEMM_PV_ISSUE;
  expect_error({"entry " + std::to_string(g), "GEMM_PV_ISSUE of KV tile 2 before the QK GEMM"});
}

TEST_F(TranslateErrors, GemmWithoutItsWait) {
  const std::size_t w = find(1, SIMFA_EV_WAIT_K_START);
  wg(1).erase(wg(1).begin() + static_cast<std::ptrdiff_t>(w));
  expect_error({"entry " + std::to_string(w), "without a WAIT_K_START"});
}

TEST_F(TranslateErrors, WaitWithNothingInFlight) {
  const std::size_t g = find(1, SIMFA_EV_GEMM_QK_ISSUE);
  wg(1)[g].event = SIMFA_EV_WAIT_WG_0;  // a wait instead of the first GEMM
  wg(1).erase(wg(1).begin() + static_cast<std::ptrdiff_t>(g) - 1);  // and no WAIT_K_START before it
  expect_error({"entry " + std::to_string(g - 1), "WAIT_WG_0 with 0 GEMM(s) in flight"});
}

TEST_F(TranslateErrors, WaitGroupZeroCompletingQkAndPvAtOnce) {
  const std::size_t w1 = find(1, SIMFA_EV_WAIT_WG_1);
  wg(1)[w1].event = SIMFA_EV_WAIT_WG_0;
  expect_error({"entry " + std::to_string(w1), "completes the QK and the PV GEMM at once"});
}

TEST_F(TranslateErrors, MainloopEventBeforeTileStart) {
  auto& v = wg(2);
  v.erase(v.begin(), v.begin() + 3);  // TILE_START, TILE_HEAD, TILE_BATCH
  // Consumer 1 is warps 8..11; its first event is now the first WAIT_K_START.
  expect_error({"block 0 warp 8 entry 0", "before the first TILE_START"});
}

TEST_F(TranslateErrors, StageOutsideTheRing) {
  const std::size_t k = find(0, SIMFA_EV_TMA_K_ISSUE);
  wg(0)[k].stage = 7;
  expect_error({"block 0 warp 0 entry " + std::to_string(k), "stage 7 is outside the kernel's 2 K/V stages"});
}

TEST_F(TranslateErrors, KvTilesOutOfOrder) {
  const std::size_t k = find(0, SIMFA_EV_TMA_K_ISSUE);
  wg(0)[k].payload = 0;
  expect_error({"entry " + std::to_string(k), "names KV tile 0, expected 2", "--causal"});
}

TEST_F(TranslateErrors, TileEndsWithAGemmInFlight) {
  // Drop consumer 0's last WAIT_WG_0 (and what follows it in the tile but the epilogue).
  auto& v = wg(1);
  std::size_t last = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].event == SIMFA_EV_WAIT_WG_0) last = i;
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(last));
  expect_error({"EPILOGUE_START", "the tile ends with the PV GEMM of KV tile 0 in flight"});
}

TEST_F(TranslateErrors, OStoreByAConsumerThatDoesNotStore) {
  auto& v = wg(1);
  const std::size_t e = find(1, SIMFA_EV_EPILOGUE_START);
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(e) + 1, Rec{v[e].ts, SIMFA_EV_TMA_O_STORE, 0, 0});
  expect_error({"entry " + std::to_string(e + 1), "TMA_O_STORE in consumer 0: in this kernel consumer 1 stores O"});
}

TEST_F(TranslateErrors, ConsumerThatRecordedNothing) {
  wg(2).clear();
  expect_error({"block 0 warp 8 end of an empty stream", "the consumer ran 0 QK and 0 PV GEMMs, but its CTA's "
                                                         "producer loaded 3 K and 3 V tiles"});
}

TEST_F(TranslateErrors, ProducerTileWithoutQLoad) {
  const std::size_t q = find(0, SIMFA_EV_TMA_Q_ISSUE);
  wg(0).erase(wg(0).begin() + static_cast<std::ptrdiff_t>(q));
  expect_error({"block 0 warp 0 end of the stream", "loads K/V but has no TMA_Q_ISSUE"});
}

TEST_F(TranslateErrors, ConsumerInWarpGroupZero) {
  std::swap(wg(0), wg(1));
  expect_error({"block 0 WarpGroup 0 (warp 0): records consumer events"});
}

TEST_F(TranslateErrors, OverflowedBufferCannotBeTranslated) {
  // Capacity below consumer 0's event count: its buffers overflow.
  const auto cap = static_cast<std::uint32_t>(wg(1).size() - 2);
  const std::string msg = error_of(testing::emulate(src_->kernel(), ev_, SIMFA_CLOCK_CLOCK64, 1830000000ull, cap));
  EXPECT_NE(msg.find("block 0 WarpGroup 1 (warp 4): its buffer overflowed"), std::string::npos) << msg;
}

TEST_F(TranslateErrors, MissingTensorMap) {
  trace::KernelInfo info = src_->kernel();
  info.tmaps.pop_back();  // no O map
  info.tmap_defined.pop_back();
  EXPECT_NE(error_of(testing::emulate(info, ev_)).find("no TensorMap with id 3 (O)"), std::string::npos);
}

TEST_F(TranslateErrors, TensorMapOfAnotherKernel) {
  trace::KernelInfo info = src_->kernel();
  info.tmaps[1].strides[2] *= 2;  // K rows (sequence positions) twice as far apart
  const std::string msg = error_of(testing::emulate(info, ev_));
  EXPECT_NE(msg.find("TensorMap 1 (K) of the log does not match the FA3 kernel"), std::string::npos) << msg;
}

TEST_F(TranslateErrors, CtaWithTooFewWarpGroups) {
  for (auto& cta : ev_) cta.resize(1);  // only the producer: 4 warps per block
  EXPECT_NE(error_of(testing::emulate(src_->kernel(), ev_)).find("1 WarpGroups"), std::string::npos);
}

// simfa-attn (fa3.kernel = simfa-attn, `simfa translate --kernel simfa-attn`): logs of the other
// kernel and events the kernel does not have are errors naming the file and the fix.
class TranslateSimfaAttnErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = std::make_unique<workload::Fa3Source>(shape_of(c_), cfg_, 2);
    ev_ = testing::synthesize_and_log(*src_).events;
  }
  std::string error_of(const instr::LoggerEmulator& em, const Config& cfg) {
    try {
      Fa3LogSource tr(parse(em, "bad.evlog"), cfg, 2);
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
  }
  const Case& c_ = case_named("simfa_attn");
  Config cfg_ = config_of(c_);
  std::unique_ptr<workload::Fa3Source> src_;
  EventLists ev_;
};

TEST_F(TranslateSimfaAttnErrors, TheUnchangedLogTranslates) {
  EXPECT_NO_THROW(Fa3LogSource(parse(testing::emulate(*src_, ev_)), cfg_, 2));
}

TEST_F(TranslateSimfaAttnErrors, ALogWithAnOTensorMapIsAnFa3Log) {
  // The FA3 form of the maps, O included.
  const std::string msg = error_of(testing::emulate(src_->kernel(), ev_), cfg_);
  EXPECT_NE(msg.find("bad.evlog: the log has an O TensorMap (id 3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--kernel fa3"), std::string::npos) << msg;
}

TEST_F(TranslateSimfaAttnErrors, ItsLogTranslatedAsFa3NamesTheKernelFlag) {
  const std::string msg = error_of(testing::emulate(*src_, ev_), config_of(cases()[0]));
  EXPECT_NE(msg.find("no TensorMap with id 3 (O)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("translate its logs with --kernel simfa-attn"), std::string::npos) << msg;
}

TEST_F(TranslateSimfaAttnErrors, MissingKTensorMap) {
  auto maps = testing::log_maps(src_->kernel(), true);
  maps.erase(maps.begin() + 1);
  const std::string msg = error_of(testing::emulate_with_maps(maps, ev_), cfg_);
  EXPECT_NE(msg.find("no TensorMap with id 1 (K): a log of the simfa-attn kernel records its Q, K and V"),
            std::string::npos)
      << msg;
}

TEST_F(TranslateSimfaAttnErrors, TmaOStoreIsNotOneOfItsEvents) {
  auto& v = ev_[0][1];
  std::size_t e = 0;
  while (v[e].event != SIMFA_EV_EPILOGUE_START) ++e;
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(e) + 1, Rec{v[e].ts, SIMFA_EV_TMA_O_STORE, 0, v[e].payload});
  const std::string msg = error_of(testing::emulate(*src_, ev_), cfg_);
  EXPECT_NE(msg.find("entry " + std::to_string(e + 1)), std::string::npos) << msg;
  EXPECT_NE(msg.find("stores O from registers with ordinary stores, not by TMA"), std::string::npos) << msg;
}

TEST_F(TranslateSimfaAttnErrors, MeasuredEpilogueTakesTheBracketedGap) {
  // Stretch every EPILOGUE_START..END gap to 5000 ticks (clock64: cycles).
  std::size_t epilogues = 0;
  for (auto& cta : ev_)
    for (auto& wg : cta)
      for (std::size_t i = 0; i + 1 < wg.size(); ++i)
        if (wg[i].event == SIMFA_EV_EPILOGUE_START) {
          ASSERT_EQ(wg[i + 1].event, SIMFA_EV_EPILOGUE_END);
          const std::uint64_t shift = wg[i].ts + 5000 - wg[i + 1].ts;
          for (std::size_t j = i + 1; j < wg.size(); ++j) wg[j].ts += shift;
          ++epilogues;
        }
  ASSERT_EQ(epilogues, 8u * 2);  // 8 tiles, two consumers each
  TranslateOptions opt;
  opt.bubbles = BubbleMode::Measured;
  Fa3LogSource tr(parse(testing::emulate(*src_, ev_)), cfg_, 2, opt);
  std::size_t stretched = 0;
  for (std::uint32_t cta = 0; cta < 2; ++cta)
    for (const auto& w : tr.translate_cta(cta))
      for (std::size_t i = 0; i < w.code.size(); ++i)
        if (w.code[i].op == trace::Op::BUBBLE && w.code[i].cycles() == 5000) {
          ++stretched;
          ASSERT_LT(i + 1, w.code.size());
          EXPECT_EQ(w.code[i + 1].op, trace::Op::TMA_STORE);  // the stores follow the epilogue
        }
  EXPECT_EQ(stretched, epilogues);
}

}  // namespace
}  // namespace simfa::translate
