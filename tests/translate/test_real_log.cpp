// A real log: simfa's own attention kernel (gpu/attn) instrumented on an NVIDIA H200
// (data/measured/h200/evlog/llama3-8b-s512.evlog.xz: Llama-3 8B heads, L = S = 512, 132 CTAs).
// Translated as the simfa-attn kernel, it must give the synthesizer's instruction streams for that
// shape exactly (model bubbles; the log's tensor addresses), keep them with measured bubbles (only
// the bracketed bubbles change), and simulate on the H200 preset.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

#include "api/run.h"
#include "instr/log_reader.h"
#include "sim/error.h"
#include "translate/fa3_log_source.h"
#include "workload/emitter.h"
#include "workload/fa3_source.h"

namespace simfa::translate {
namespace {

using trace::Instr;
using trace::Op;

const std::string kLogXz = std::string(SIMFA_SOURCE_DIR) + "/data/measured/h200/evlog/llama3-8b-s512.evlog.xz";

// The committed log, decompressed once per process with xz (scripts/install-deps installs
// xz-utils). ctest runs each test as its own process, in parallel: every process gets its own file.
struct RemovedAtExit {
  std::string path;
  ~RemovedAtExit() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove(path, ec);
  }
};

const std::string& log_path() {
  static const RemovedAtExit file{[] {
    const std::string out =
        ::testing::TempDir() + "simfa_h200_llama3-8b-s512." + std::to_string(::getpid()) + ".evlog";
    const std::string cmd = "xz -dc '" + kLogXz + "' > '" + out + "'";
    if (std::system(cmd.c_str()) != 0) return std::string();
    return out;
  }()};
  return file.path;
}

Config h200(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> sets = {"fa3.kernel=simfa-attn"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return make_config("h200", sets);
}

spec::AttentionShape llama3_8b_512() {
  spec::AttentionShape s;
  s.batch = 1, s.seqlen_q = 512, s.seqlen_kv = 512, s.heads_kv = 8, s.group = 4, s.head_dim = 128;
  return s;
}

std::vector<Instr> drain(trace::InstrStream& s) {
  std::vector<Instr> v, buf(64);
  for (std::size_t n; (n = s.read(buf.data(), buf.size())) > 0;) v.insert(v.end(), buf.begin(), buf.begin() + n);
  return v;
}

// An instruction with its global address made relative to its TensorMap's base, so a trace with
// the log's cudaMalloc pointers compares with one in the synthesizer's default layout.
Instr relative(Instr in, const trace::KernelInfo& k) {
  if (in.op == Op::TMA_TENSOR || in.op == Op::TMA_STORE) in.gmem -= k.tmap(in.map).base.value_or(0);
  return in;
}

class RealLog : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(log_path().empty()) << "could not decompress " << kLogXz << " with xz (scripts/install-deps)";
  }
};

TEST_F(RealLog, TranslatesToTheSynthesizedSimfaAttnKernel) {
  const Config cfg = h200();
  Fa3LogSource tr(instr::read_log(log_path()), cfg, 132);
  EXPECT_TRUE(tr.warnings().empty()) << tr.warnings().front();
  const workload::Fa3Kernel& k = tr.fa3();
  EXPECT_EQ(k.name(), "simfa_attn_fwd_hdim128_fp16");
  EXPECT_EQ(k.grid, 132u);
  EXPECT_EQ(k.tile_m, 128);
  EXPECT_EQ(k.tile_n, 176);
  EXPECT_EQ(k.cluster, 1);
  EXPECT_FALSE(k.pack_gqa);
  EXPECT_TRUE(k.intra_wg_overlap);
  const spec::AttentionShape& s = k.shape;
  EXPECT_EQ(s.batch, 1);
  EXPECT_EQ(s.seqlen_q, 512);
  EXPECT_EQ(s.seqlen_kv, 512);
  EXPECT_EQ(s.heads_kv, 8);
  EXPECT_EQ(s.group, 4);
  EXPECT_EQ(s.head_dim, 128);
  // The log's pointers (Q, K, V; the O and LSE arrays after them).
  const instr::EventLog log = instr::read_log(log_path());
  for (std::uint16_t id = 0; id < 3; ++id) EXPECT_EQ(tr.kernel().tmap(id).base, log.tensormap(id)->base);

  // 128 tiles on 132 CTAs: every CTA's streams equal the synthesizer's for the shape.
  workload::Fa3Source synth(llama3_8b_512(), cfg, 132);
  EXPECT_EQ(trace::format_kernel_line(synth.kernel()), trace::format_kernel_line(tr.kernel()));
  std::size_t gemms = 0, stores = 0;
  for (std::uint32_t cta = 0; cta < 132; ++cta) {
    trace::CtaProgram p = synth.open(cta);
    const auto got = tr.translate_cta(cta);
    ASSERT_EQ(got.size(), p.wgs.size());
    for (std::size_t w = 0; w < got.size(); ++w) {
      const auto want = drain(*p.wgs[w].stream);
      ASSERT_EQ(got[w].code.size(), want.size()) << "cta " << cta << " wg " << w;
      for (std::size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(relative(got[w].code[i], tr.kernel()), relative(want[i], synth.kernel()))
            << "cta " << cta << " wg " << w << " instruction " << i << ": " << trace::format(got[w].code[i]);
        gemms += want[i].op == Op::WGMMA;
        stores += want[i].op == Op::TMA_STORE;
      }
    }
  }
  // 128 tiles x 3 KV blocks x 2 consumers x (8 QK + 11 PV) WGMMAs; 2 O boxes + 1 LSE per consumer.
  EXPECT_EQ(gemms, 128u * 3 * 2 * 19);
  EXPECT_EQ(stores, 128u * 2 * 3);
}

TEST_F(RealLog, MeasuredBubblesChangeOnlyTheBracketedBubbles) {
  const Config cfg = h200();
  TranslateOptions opt;
  Fa3LogSource model(instr::read_log(log_path()), cfg, 132, opt);
  opt.bubbles = BubbleMode::Measured;
  Fa3LogSource measured(instr::read_log(log_path()), cfg, 132, opt);
  EXPECT_TRUE(measured.warnings().empty()) << measured.warnings().front();
  ASSERT_EQ(model.instructions(), measured.instructions());
  const workload::BubbleCosts& bc = model.fa3().bubbles;
  const std::uint32_t model_softmax = bc.softmax(), model_epilogue = model.fa3().register_epilogue_bubble();
  std::size_t softmax = 0, epilogue = 0;
  for (std::uint32_t cta = 0; cta < 128; ++cta) {  // CTAs 128..131 have no tile
    const auto a = model.translate_cta(cta), b = measured.translate_cta(cta);
    for (std::size_t w = 1; w < a.size(); ++w)
      for (std::size_t i = 0; i < a[w].code.size(); ++i) {
        Instr x = a[w].code[i], y = b[w].code[i];
        ASSERT_EQ(x.op, y.op);
        if (x.op != Op::BUBBLE) {
          EXPECT_EQ(x, y);
          continue;
        }
        // The steady-state softmax (880 model cycles) and the epilogue (224) are bracketed; on the
        // H200 both took longer than the unit-rate model.
        if (x.cycles() == model_softmax) {
          ++softmax;
          EXPECT_GT(y.cycles(), model_softmax);
        }
        if (x.cycles() == model_epilogue) {
          ++epilogue;
          EXPECT_GT(y.cycles(), model_epilogue);
        }
      }
  }
  EXPECT_EQ(softmax, 128u * 2 * 2);  // blocks 1 and 0 of each tile, both consumers
  EXPECT_EQ(epilogue, 128u * 2);
}

TEST_F(RealLog, SimulatesOnTheH200Preset) {
  const Config cfg = h200({"gpu.clock=1735MHz"});  // the in-kernel clock of this shape's timing runs
  Fa3LogSource tr(instr::read_log(log_path()), cfg, 132);
  const RunResult r = run_trace(tr, cfg);
  EXPECT_EQ(r.ctas, 132u);
  EXPECT_GT(r.stat("gpu.tensor.utilization"), 0.0);
  // Eq. 1 FLOPs with S rounded up to whole 176-row blocks (528), all on the tensor pipe.
  EXPECT_DOUBLE_EQ(r.stat("gpu.tensor.flops"), 4.0 * 32 * 512 * 528 * 128);
  EXPECT_GT(r.latency_us, 1.0);
  EXPECT_LT(r.latency_us, 100.0);
}

TEST(RealLogErrors, AnFa3TranslationNamesTheKernelFlag) {
  ASSERT_FALSE(log_path().empty());
  try {
    Fa3LogSource tr(instr::read_log(log_path()), make_config("h200"), 132);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("no TensorMap with id 3 (O)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--kernel simfa-attn"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace simfa::translate
