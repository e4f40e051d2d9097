// The synthesized FA3 schedule, instruction by instruction, against a hand-written expectation
// derived from fa3-kernel.md (Summary: per-tile event sequence, current HEAD), plus structural
// checks of the other versions and recipes, and a protocol run (no deadlock) of every variant.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "trace/io.h"
#include "workload/fa3_source.h"
#include "protocol_check.h"
#include "workload_test_util.h"

namespace simfa::workload {
namespace {

using testing::config;
using testing::drain;
using testing::shape;
using trace::DType;
using trace::Instr;
using trace::MmaMode;

std::string listing(const std::vector<Instr>& v) {
  std::string s;
  for (const auto& in : v) s += trace::format(in) + "\n";
  return s;
}

// Tiny shape: B 1, L 128 (one M-block, so no cluster), S 528 (three 176-row KV blocks), one head,
// D 128, FP16, non-causal, on 2 SMs (CTA 1 has no tile and falls through).
struct Tiny {
  // Global layout (emitter.h): Q, K, V, O from 4 GiB, each 2 MiB aligned.
  static constexpr std::uint64_t Q = 0x100000000, K = 0x100200000, V = 0x100400000, O = 0x100600000;
  // Shared memory of the current kernel: V stages at 0 (45056 B each), then Q, then K.
  static constexpr std::uint64_t sV = 0, sQ = 0x16000, sK = 0x1e000, kStage = 0xb000, kSlab = 0x5800;
  static constexpr std::uint64_t row = 128 * 2;  // bytes per K/V/Q row

  // One K or V tile: acquire the stage for 176 x 128 x 2 bytes, then two 64-column TMAs.
  static void kv(std::vector<Instr>& o, bool v, int s, int n) {
    const std::uint16_t sid = static_cast<std::uint16_t>(v ? 2 + s : s);
    o.push_back(Instr::acquire(sid, 45056));
    for (int h = 0; h < 2; ++h)
      o.push_back(Instr::tma_tensor((v ? sV : sK) + s * kStage + h * kSlab, (v ? V : K) + n * 176 * row + h * 128,
                                    v ? 2 : 1, sid));
  }
  static void qk(std::vector<Instr>& o, int c, int s) {
    for (int i = 0; i < 8; ++i)
      o.push_back(Instr::wgmma(0, sQ + c * 64 * row + i * 32, sK + s * kStage + i * 32, 64, 176, 16, DType::F16,
                               i > 0, MmaMode::SS, false, 0));
    o.push_back(Instr::wgmma_commit(0));
  }
  static void pv(std::vector<Instr>& o, int s) {
    for (int i = 0; i < 11; ++i)
      o.push_back(Instr::wgmma(1, 2, sV + s * kStage + i * 16 * row, 64, 128, 16, DType::F16, true, MmaMode::RS,
                               false, 1));
    o.push_back(Instr::wgmma_commit(1));
  }

  static std::vector<Instr> producer() {
    std::vector<Instr> o;
    kv(o, false, 0, 2);                         // K(N-1) into stage 0
    o.push_back(Instr::acquire(4, 32768));      // QueryEmpty + barrier_Q (stage 4)
    o.push_back(Instr::tma_tensor(sQ, Q, 0, 4));
    o.push_back(Instr::tma_tensor(sQ + 0x4000, Q + 128, 0, 4));
    kv(o, false, 1, 1), kv(o, true, 0, 2);      // K(1), V(2)
    kv(o, false, 0, 0), kv(o, true, 1, 1);      // K(0), V(1)
    kv(o, true, 0, 0);                          // V(0)
    o.push_back(Instr::bar_wait(13, 1));        // kernel end: barrier_O of the last store
    return o;
  }

  static std::vector<Instr> consumer(int c) {
    std::vector<Instr> o;
    const std::uint16_t own = static_cast<std::uint16_t>(9 + c), other = static_cast<std::uint16_t>(10 - c);
    if (c == 0) o.push_back(Instr::bar_arrive(9));  // mma_init: WG1 may go first
    o.push_back(Instr::mb_wait(4));                  // barrier_Q
    // Prologue: QK(2) outside the ping-pong, wait_group 0, release K, mask + softmax + convert + zero O.
    o.push_back(Instr::mb_wait(0));
    qk(o, c, 0);
    o.push_back(Instr::wgmma_wait(1, 0));
    o.push_back(Instr::release(0));
    // Bubbles of the pipe model (docs/fa3-workload.md "Bubble costs"; 64 x 176, D 128): mask 176,
    // softmax 243 + 720 + 22 = 985, convert P 88, zero O 64, rescale O 64, convert O 64, STSM 128.
    o.push_back(Instr::bubble(176 + 985 + 88 + 64));
    // Steady state j = 1, 0 (stages K 1/V 0, then K 0/V 1); only WG1 waits on K and V.
    const int ks[2] = {1, 0}, vs[2] = {0, 1};
    for (int j = 0; j < 2; ++j) {
      if (c == 0) o.push_back(Instr::mb_wait(static_cast<std::uint16_t>(ks[j])));
      o.push_back(Instr::bar_wait(own, 1));
      qk(o, c, ks[j]);
      if (c == 0) o.push_back(Instr::mb_wait(static_cast<std::uint16_t>(2 + vs[j])));
      pv(o, vs[j]);
      o.push_back(Instr::bar_arrive(other));
      o.push_back(Instr::wgmma_wait(1, 1));
      o.push_back(Instr::release(static_cast<std::uint16_t>(ks[j])));
      o.push_back(Instr::bubble(243 + 720 + 22));  // rowmax + exp + rowsum
      o.push_back(Instr::wgmma_wait(1, 0));
      o.push_back(Instr::release(static_cast<std::uint16_t>(2 + vs[j])));
      o.push_back(Instr::bubble(88 + 64));  // convert P, rescale O
    }
    // Tail: QueryEmpty, PV(0), 1/rowsum.
    o.push_back(Instr::release(4));
    o.push_back(Instr::mb_wait(2));
    pv(o, 0);
    o.push_back(Instr::wgmma_wait(1, 0));
    o.push_back(Instr::release(2));
    o.push_back(Instr::bubble(64));
    // Epilogue: convert O, sync 256, STSM, then WG2 stores O by TMA after everyone arrived.
    o.push_back(Instr::bubble(64));
    o.push_back(Instr::bar_wait(1, 1));
    o.push_back(Instr::bubble(128));
    if (c == 0) {
      o.push_back(Instr::bar_arrive(1));
    } else {
      o.push_back(Instr::bar_wait(1, 1));
      o.push_back(Instr::tma_store(sV, O, 3, 0));
      o.push_back(Instr::tma_store(sV + 0x4000, O + 128, 3, 0));
      o.push_back(Instr::tma_commit(0));
      o.push_back(Instr::tma_wait(0, 0, true));
      o.push_back(Instr::bar_arrive(13));
    }
    return o;
  }
};

TEST(Synthesis, CurrentKernelMatchesHandWrittenScheduleInstructionByInstruction) {
  Fa3Source src(shape(128, 528), config(), 2);
  const auto& k = src.kernel();
  EXPECT_EQ(k.ctas, 2u);
  EXPECT_EQ(k.cluster, 1u);
  EXPECT_EQ(k.stages, 5u);
  EXPECT_EQ(k.stage_arrivals, 2u);
  EXPECT_EQ(k.smem, 216064u);  // the compile probe's SharedStorage
  EXPECT_EQ(k.threads, 384u);
  auto cta0 = src.open(0);
  ASSERT_EQ(cta0.wgs.size(), 3u);
  EXPECT_EQ(listing(drain(*cta0.wgs[0].stream)), listing(Tiny::producer()));
  EXPECT_EQ(listing(drain(*cta0.wgs[1].stream)), listing(Tiny::consumer(0)));
  EXPECT_EQ(listing(drain(*cta0.wgs[2].stream)), listing(Tiny::consumer(1)));
  auto cta1 = src.open(1);
  EXPECT_TRUE(drain(*cta1.wgs[0].stream).empty());
  EXPECT_EQ(listing(drain(*cta1.wgs[1].stream)), listing({Instr::bar_arrive(9)}));
  EXPECT_TRUE(drain(*cta1.wgs[2].stream).empty());
}

// simfa's own kernel (gpu/attn/attn_kernel.cuh) on the same tiny shape, written from its source:
// FA3's current mainloop, its own smem layout (Q, K stages, V stages), ping-pong on named barriers
// 2/3, no barrier_O, and each consumer's epilogue one bubble plus its own O rows and LSE.
struct TinyOwn {
  static constexpr std::uint64_t Q = Tiny::Q, K = Tiny::K, V = Tiny::V, O = Tiny::O, LSE = 0x100800000;
  static constexpr std::uint64_t sQ = 0, sK = 0x8000, sV = 0x1e000, kStage = Tiny::kStage, kSlab = Tiny::kSlab;
  static constexpr std::uint64_t row = Tiny::row;

  static void kv(std::vector<Instr>& o, bool v, int s, int n) {
    const std::uint16_t sid = static_cast<std::uint16_t>(v ? 2 + s : s);
    o.push_back(Instr::acquire(sid, 45056));
    for (int h = 0; h < 2; ++h)
      o.push_back(Instr::tma_tensor((v ? sV : sK) + s * kStage + h * kSlab, (v ? V : K) + n * 176 * row + h * 128,
                                    v ? 2 : 1, sid));
  }
  static void qk(std::vector<Instr>& o, int c, int s) {
    for (int i = 0; i < 8; ++i)
      o.push_back(Instr::wgmma(0, sQ + c * 64 * row + i * 32, sK + s * kStage + i * 32, 64, 176, 16, DType::F16,
                               i > 0, MmaMode::SS, false, 0));
    o.push_back(Instr::wgmma_commit(0));
  }
  static void pv(std::vector<Instr>& o, int s) {
    for (int i = 0; i < 11; ++i)
      o.push_back(Instr::wgmma(1, 2, sV + s * kStage + i * 16 * row, 64, 128, 16, DType::F16, true, MmaMode::RS,
                               false, 1));
    o.push_back(Instr::wgmma_commit(1));
  }

  static std::vector<Instr> producer() {
    std::vector<Instr> o;
    kv(o, false, 0, 2);                     // K(N-1)
    o.push_back(Instr::acquire(4, 32768));  // named barrier QueryEmpty (288) + bar_q expect-tx
    o.push_back(Instr::tma_tensor(sQ, Q, 0, 4));
    o.push_back(Instr::tma_tensor(sQ + 0x4000, Q + 128, 0, 4));
    kv(o, false, 1, 1), kv(o, true, 0, 2);  // K(1), V(2)
    kv(o, false, 0, 0), kv(o, true, 1, 1);  // K(0), V(1)
    kv(o, true, 0, 0);                      // V(0); no barrier_O
    return o;
  }

  static std::vector<Instr> consumer(int c) {
    std::vector<Instr> o;
    const std::uint16_t own = static_cast<std::uint16_t>(2 + c), other = static_cast<std::uint16_t>(3 - c);
    if (c == 0) o.push_back(Instr::bar_arrive(2));  // WG1 issues first
    o.push_back(Instr::mb_wait(4));                  // bar_q
    o.push_back(Instr::mb_wait(0));
    qk(o, c, 0);
    o.push_back(Instr::wgmma_wait(1, 0));
    o.push_back(Instr::release(0));
    // Pipe-model bubbles (docs/fa3-workload.md): mask 176 + softmax 985 + convert P 88 + zero O 64.
    o.push_back(Instr::bubble(176 + 985 + 88 + 64));  // mask_cols + softmax + convert_p (+ zero O)
    const int ks[2] = {1, 0}, vs[2] = {0, 1};
    for (int j = 0; j < 2; ++j) {
      if (c == 0) o.push_back(Instr::mb_wait(static_cast<std::uint16_t>(ks[j])));
      o.push_back(Instr::bar_wait(own, 1));
      qk(o, c, ks[j]);
      if (c == 0) o.push_back(Instr::mb_wait(static_cast<std::uint16_t>(2 + vs[j])));
      pv(o, vs[j]);
      o.push_back(Instr::bar_arrive(other));
      o.push_back(Instr::wgmma_wait(1, 1));
      o.push_back(Instr::release(static_cast<std::uint16_t>(ks[j])));
      o.push_back(Instr::bubble(243 + 720 + 22));  // softmax_block
      o.push_back(Instr::wgmma_wait(1, 0));
      o.push_back(Instr::release(static_cast<std::uint16_t>(2 + vs[j])));
      o.push_back(Instr::bubble(88 + 64));  // convert_p, rescale_o
    }
    o.push_back(Instr::release(4));  // QueryEmpty arrive
    o.push_back(Instr::mb_wait(2));  // every consumer waits for V(0)
    pv(o, 0);
    o.push_back(Instr::wgmma_wait(1, 0));
    o.push_back(Instr::release(2));
    // Epilogue: 1/rowsum, convert, 64 x 128 x 2 bytes of st.global; stores of this WG's rows + LSE.
    o.push_back(Instr::bubble(64 + 64 + 128));
    o.push_back(Instr::tma_store(sV, O + c * 64 * row, 3, 0));
    o.push_back(Instr::tma_store(sV + 0x2000, O + c * 64 * row + 128, 3, 0));
    o.push_back(Instr::tma_store(sV, LSE + c * 64 * 4, 4, 0));
    o.push_back(Instr::tma_commit(0));
    return o;
  }
};

TEST(Synthesis, SimfaAttnKernelMatchesHandWrittenScheduleInstructionByInstruction) {
  Fa3Source src(shape(128, 528), config({"fa3.kernel=simfa-attn"}), 2);
  const auto& k = src.kernel();
  EXPECT_EQ(k.name, "simfa_attn_fwd_hdim128_fp16");
  EXPECT_EQ(k.cluster, 1u);
  EXPECT_EQ(k.smem, 215040u);  // kSmemBytes (launch.csv's attention-shaped kernel)
  EXPECT_EQ(k.regs, 384u * 168);
  EXPECT_EQ(k.threads, 384u);
  ASSERT_TRUE(k.has_tmap(4));
  EXPECT_EQ(trace::format(k.tmap(3)), "DEF_TMAP 3 4 128,1,128,1 256,256,32768 64,1,64,1 2 base=0x100600000");
  EXPECT_EQ(trace::format(k.tmap(4)), "DEF_TMAP 4 3 128,1,1 512,512 64,1,1 4 base=0x100800000");
  auto cta0 = src.open(0);
  ASSERT_EQ(cta0.wgs.size(), 3u);
  EXPECT_EQ(listing(drain(*cta0.wgs[0].stream)), listing(TinyOwn::producer()));
  EXPECT_EQ(listing(drain(*cta0.wgs[1].stream)), listing(TinyOwn::consumer(0)));
  EXPECT_EQ(listing(drain(*cta0.wgs[2].stream)), listing(TinyOwn::consumer(1)));
  auto cta1 = src.open(1);
  EXPECT_TRUE(drain(*cta1.wgs[0].stream).empty());
  EXPECT_EQ(listing(drain(*cta1.wgs[1].stream)), listing({Instr::bar_arrive(2)}));
}

TEST(Synthesis, SimfaAttnWithoutOverlapKeepsItsProducerOrder) {
  // attn_kernel.cuh's kIntraWGOverlap = false: the producer is unchanged (FA3's no-overlap path
  // loads V(N-1) before K(N-2)); every consumer waits on K and V; after the last PV it hands the
  // turn over and frees Q, then the epilogue.
  Fa3Source src(shape(128, 528), config({"fa3.kernel=simfa-attn", "fa3.intra_wg_overlap=off"}), 2);
  auto p = src.open(0);
  EXPECT_EQ(listing(drain(*p.wgs[0].stream)), listing(TinyOwn::producer()));  // the same producer order
  const auto c1 = drain(*p.wgs[2].stream);
  auto waits = std::count_if(c1.begin(), c1.end(), [](const Instr& i) { return i.op == trace::Op::MB_WAIT; });
  EXPECT_EQ(waits, 1 + 3 + 3);
  std::size_t e = c1.size() - 5;  // bubble + 3 stores + commit
  EXPECT_EQ(c1[e], Instr::bubble(64 + 64 + 128));
  EXPECT_EQ(c1[e - 1], Instr::release(4));
  EXPECT_EQ(c1[e - 2], Instr::bar_arrive(2));
  EXPECT_EQ(c1[1], Instr::bar_wait(3, 1));
}

TEST(Synthesis, ReadChunkSizeDoesNotChangeTheStream) {
  Fa3Source a(shape(128, 528), config(), 2), b(shape(128, 528), config(), 2);
  auto pa = a.open(0), pb = b.open(0);
  for (int w = 0; w < 3; ++w) EXPECT_EQ(drain(*pa.wgs[w].stream, 1), drain(*pb.wgs[w].stream, 1000));
}

TEST(Synthesis, StagesAndBarrierOContinueAcrossTiles) {
  // One CTA, two M-blocks: the second tile's K(2) goes to stage 1 (3 blocks already used stage
  // 0,1,0), and the producer waits for the first tile's O store (barrier_O) after loading Q.
  Fa3Source src(shape(256, 528), config({"fa3.grid=1", "fa3.cluster=1"}), 1);
  auto p = src.open(0);
  const auto prod = drain(*p.wgs[0].stream);
  std::vector<std::size_t> acq_q;
  for (std::size_t i = 0; i < prod.size(); ++i)
    if (prod[i].op == trace::Op::ACQUIRE_STAGE && prod[i].id == 4) acq_q.push_back(i);
  ASSERT_EQ(acq_q.size(), 2u);
  EXPECT_EQ(prod[acq_q[1] - 3], Instr::acquire(1, 45056));  // K(2) of tile 2 in stage 1
  EXPECT_EQ(prod[acq_q[1] + 3], Instr::bar_wait(13, 1));
  EXPECT_EQ(prod.back(), Instr::bar_wait(13, 1));
  const auto c1 = drain(*p.wgs[2].stream);
  EXPECT_EQ(std::count(c1.begin(), c1.end(), Instr::bar_arrive(13)), 2);
}

TEST(Synthesis, ClusterSplitsKvRowsAndMulticasts) {
  // L 256: two M-blocks, so a (2,1,1) cluster; each CTA loads 88 of the 176 rows for both CTAs.
  Fa3Source src(shape(256, 528), config(), 2);
  ASSERT_EQ(src.kernel().cluster, 2u);
  EXPECT_EQ(src.kernel().stage_arrivals, 4u);
  auto p1 = src.open(1);
  const auto prod = drain(*p1.wgs[0].stream);
  EXPECT_EQ(prod[0], Instr::acquire(0, 45056));
  EXPECT_EQ(prod[1].mc, 3);
  EXPECT_EQ(prod[1].gmem, Tiny::K + (2 * 176 + 88) * Tiny::row);
  const auto c0 = drain(*p1.wgs[1].stream);
  EXPECT_EQ(std::count(c0.begin(), c0.end(), Instr::release(0, 3)), 2);  // K stage 0, both CTAs
  EXPECT_EQ(std::count(c0.begin(), c0.end(), Instr::release(4, 3)), 1);  // QueryEmpty, both CTAs
}

TEST(Synthesis, OriginalKernelDiffersAsDocumented) {
  Fa3Source src(shape(384, 528), config({"fa3.version=original", "fa3.cluster=1", "fa3.grid=1"}), 132);
  auto p = src.open(0);
  const auto c0 = drain(*p.wgs[1].stream), c1 = drain(*p.wgs[2].stream);
  // WG2 gives WG1 the first turn; the prologue QK is inside the ping-pong.
  EXPECT_TRUE(c0.front().op == trace::Op::MB_WAIT);
  EXPECT_EQ(c1.front(), Instr::bar_arrive(9));
  EXPECT_EQ(c0[2], Instr::bar_wait(9, 1));
  // Every WarpGroup waits on K and V in every step: 3 tiles x 3 blocks each.
  auto waits = [](const std::vector<Instr>& v) {
    return std::count_if(v.begin(), v.end(), [](const Instr& i) { return i.op == trace::Op::MB_WAIT; });
  };
  EXPECT_EQ(waits(c0), waits(c1));
  EXPECT_EQ(waits(c1), 3 * (1 + 3 + 3));  // Q, K x3, V x3 per tile
  // The O store is not waited for in the epilogue but in the next tile's prologue, then at the end.
  EXPECT_EQ(std::count(c1.begin(), c1.end(), Instr::bar_arrive(13)), 2);
  EXPECT_EQ(c1.back(), Instr::tma_wait(0, 0));
  // O is rescaled between QK and PV in the steady state.
  auto it = std::find(c0.begin(), c0.end(), Instr::wgmma_commit(0));
  it = std::find(it + 1, c0.end(), Instr::wgmma_commit(0));
  EXPECT_EQ(*(it + 1), Instr::bubble(64));
}

TEST(Synthesis, PaperRecipeUsesPaperPlacementAndOneTmaPerTile) {
  Fa3Source src(shape(128, 528), config({"fa3.recipe=paper"}), 1);
  auto p = src.open(0);
  const auto prod = drain(*p.wgs[0].stream), c0 = drain(*p.wgs[1].stream), c1 = drain(*p.wgs[2].stream);
  EXPECT_EQ(prod[0], Instr::acquire(0, 45056));
  EXPECT_EQ(prod[1].op, trace::Op::TMA_TENSOR);
  EXPECT_EQ(prod[2].op, trace::Op::ACQUIRE_STAGE);  // Q: one TMA, then the next ACQUIRE
  // Consumer 1 arrives before each QK and waits before each softmax; consumer 2 the opposite.
  EXPECT_EQ(c0[2], Instr::bar_arrive(9));
  EXPECT_EQ(c1[2], Instr::bar_wait(9, 1));
  auto after_release_k = [](const std::vector<Instr>& v) {
    auto it = std::find(v.begin(), v.end(), Instr::release(0));
    return std::vector<Instr>(it + 1, it + 3);
  };
  EXPECT_EQ(after_release_k(c0), (std::vector<Instr>{Instr::bar_wait(10, 1), Instr::bubble(988)}));
  EXPECT_EQ(after_release_k(c1), (std::vector<Instr>{Instr::bar_arrive(10), Instr::bubble(988)}));
}

// Every variant must run to completion under the documented synchronization semantics.
struct Variant {
  const char* name;
  spec::AttentionShape s;
  std::vector<std::string> sets;
  int sms;
};

class ProtocolTest : public ::testing::TestWithParam<Variant> {};

TEST_P(ProtocolTest, CompletesWithoutDeadlock) {
  const Variant& v = GetParam();
  Fa3Source src(v.s, config(v.sets), v.sms);
  EXPECT_EQ(testing::run_protocol(src), "");
}

INSTANTIATE_TEST_SUITE_P(
    Variants, ProtocolTest,
    ::testing::Values(
        Variant{"current", shape(640, 1000, 2, 2), {}, 4},
        Variant{"current_cluster", shape(512, 1000, 1, 2), {}, 4},
        Variant{"current_causal_dynamic", shape(700, 700, 2, 2, 128, true), {}, 3},
        Variant{"current_causal_longer_q", shape(700, 300, 1, 1, 128, true), {}, 3},
        Variant{"original", shape(640, 1000, 2, 2), {"fa3.version=original"}, 4},
        Variant{"original_causal", shape(700, 700, 2, 2, 128, true), {"fa3.version=original", "fa3.grid=3"}, 3},
        Variant{"paper", shape(640, 1000, 2, 2), {"fa3.recipe=paper"}, 4},
        Variant{"paper_original", shape(640, 1000, 2, 2), {"fa3.recipe=paper", "fa3.version=original"}, 4},
        Variant{"no_overlap", shape(640, 1000, 2, 2), {"fa3.intra_wg_overlap=off"}, 4},
        // The original release had no non-overlapped path: the hybrid keeps the original's
        // barrier_O hand-off (it deadlocked from the second tile on before).
        Variant{"original_no_overlap", shape(640, 1000, 2, 2), {"fa3.version=original", "fa3.intra_wg_overlap=off"}, 4},
        Variant{"no_pingpong", shape(640, 1000, 2, 2), {"fa3.pingpong=off"}, 4},
        Variant{"hdim64_three_wgs", shape(800, 900, 1, 2, 64), {}, 4},
        Variant{"hdim256", shape(512, 700, 1, 1, 256), {}, 4},
        Variant{"one_wg", shape(300, 500, 1, 1), {"fa3.tile_m=64"}, 4},
        Variant{"three_stages", shape(640, 1000, 1, 1), {"fa3.stages=3"}, 4},
        Variant{"pack_gqa", shape(3, 1000, 2, 8), {}, 4},
        Variant{"fp8", shape(512, 1000, 1, 1, 128, false, 1, spec::DType::FP8_E4M3), {}, 4},
        Variant{"all_waits", shape(640, 1000, 2, 2), {"fa3.consumer_waits=all"}, 4}),
    [](const ::testing::TestParamInfo<Variant>& i) { return std::string(i.param.name); });

TEST(Synthesis, WrittenAndReadBackTraceIsIdentical) {
  const std::string dir = ::testing::TempDir() + "/fa3_roundtrip";
  Fa3Source gen(shape(256, 528, 1, 2), config(), 4);
  trace::write_trace_dir(dir, gen);
  trace::MemoryTrace back = trace::read_trace_paths({dir});
  Fa3Source ref(shape(256, 528, 1, 2), config(), 4);
  ASSERT_EQ(back.kernel().ctas, ref.kernel().ctas);
  EXPECT_EQ(trace::format_kernel_line(back.kernel()), trace::format_kernel_line(ref.kernel()));
  for (std::uint32_t c = 0; c < ref.kernel().ctas; ++c) {
    auto a = back.open(c), b = ref.open(c);
    ASSERT_EQ(a.wgs.size(), b.wgs.size());
    for (std::size_t w = 0; w < a.wgs.size(); ++w) EXPECT_EQ(drain(*a.wgs[w].stream), drain(*b.wgs[w].stream));
  }
}

}  // namespace
}  // namespace simfa::workload
