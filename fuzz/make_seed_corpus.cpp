// Writes the fuzz seed corpus with the logger emulator: valid logs of several shapes (FA3-like
// 3-WarpGroup CTAs with tensormaps, overflowing warps, user events, non-monotonic timestamps,
// empty buffers). Usage: make_seed_corpus DIR
#include <cstdio>
#include <filesystem>
#include <string>

#include "instr/emulator.h"

using simfa::instr::Dim3;
using simfa::instr::LoggerEmulator;

namespace {

simfa_tensormap_desc tmap(uint32_t id) {
  simfa_tensormap_desc t{};
  t.id = id;
  t.rank = 4;
  t.base = 0x7f0000000000ull + (uint64_t{id} << 30);
  // FA3's row-major [batch, seq, head, dim], innermost first: D, H, L, B.
  t.dims[0] = 128, t.dims[1] = 16, t.dims[2] = 2048, t.dims[3] = 2;
  t.strides_bytes[0] = 2, t.strides_bytes[1] = 256, t.strides_bytes[2] = 256 * 16,
  t.strides_bytes[3] = 256ull * 16 * 2048;
  t.box[0] = 64, t.box[1] = 1, t.box[2] = id == SIMFA_TMAP_Q || id == SIMFA_TMAP_O ? 128 : 176,
  t.box[3] = 1;
  t.elem_bytes = 2;
  return t;
}

// A producer WarpGroup and two consumers per CTA, n_kv tiles, ping-pong-ish timestamps.
LoggerEmulator fa3_like(uint32_t ctas, uint32_t n_kv, uint32_t cap) {
  LoggerEmulator e(Dim3{ctas, 1, 1}, Dim3{384, 1, 1}, cap);
  for (uint32_t id = SIMFA_TMAP_Q; id <= SIMFA_TMAP_O; ++id) e.add_tensormap(tmap(id));
  for (uint64_t b = 0; b < ctas; ++b) {
    uint64_t t = 1000 * b;
    e.record_warpgroup(b, 0, t, SIMFA_EV_TILE_START, 0, static_cast<uint16_t>(b));
    e.record_warpgroup(b, 0, t += 5, SIMFA_EV_TMA_Q_ISSUE, 0, static_cast<uint16_t>(b));
    for (uint16_t j = 0; j < n_kv; ++j) {
      e.record_warpgroup(b, 0, t += 20, SIMFA_EV_TMA_K_ISSUE, j % 2, j);
      e.record_warpgroup(b, 0, t += 20, SIMFA_EV_TMA_V_ISSUE, j % 2, j);
      for (uint32_t wg = 1; wg <= 2; ++wg) {
        uint64_t c = t + 300 * wg;
        e.record_warpgroup(b, wg, c, SIMFA_EV_WAIT_K_START, j % 2, j);
        e.record_warpgroup(b, wg, c += 10, SIMFA_EV_GEMM_QK_ISSUE, j % 2, j);
        e.record_warpgroup(b, wg, c += 80, SIMFA_EV_WAIT_WG_1, j % 2, j);
        e.record_warpgroup(b, wg, c += 900, SIMFA_EV_WAIT_V_START, j % 2, j);
        e.record_warpgroup(b, wg, c += 10, SIMFA_EV_GEMM_PV_ISSUE, j % 2, j);
        e.record_warpgroup(b, wg, c += 80, SIMFA_EV_WAIT_WG_0, j % 2, j);
      }
    }
    for (uint32_t wg = 1; wg <= 2; ++wg) {
      e.record_warpgroup(b, wg, t + 5000, SIMFA_EV_EPILOGUE_START, 0, 0);
      e.record_warpgroup(b, wg, t + 5100, SIMFA_EV_TMA_O_STORE, 0, static_cast<uint16_t>(b));
      e.record_warpgroup(b, wg, t + 5200, SIMFA_EV_EPILOGUE_END, 0, 0);
    }
  }
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seed_corpus DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  auto put = [&](const std::string& name, const LoggerEmulator& e) {
    e.write((dir / (name + ".evlog")).string());
  };
  put("fa3_1cta_2kv", fa3_like(1, 2, 64));
  put("fa3_2cta_3kv_overflow", fa3_like(2, 3, 12));  // consumers overflow
  put("fa3_1cta_1kv_tight", fa3_like(1, 1, 9));
  {
    LoggerEmulator e(Dim3{2, 2, 1}, Dim3{16, 3, 1}, 3, SIMFA_CLOCK_GLOBALTIMER_NS);
    e.record(3, 1, 10, SIMFA_EV_USER_BASE + 7, 1, 2);
    e.record(3, 1, 5, 0xFFFF, 0, 0);  // decreasing timestamp: a warning
    e.record(0, 0, 1, SIMFA_EV_BAR_ARRIVE, 0, 1);
    put("user_events_2d", e);
  }
  put("empty_buffers", LoggerEmulator(Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0));
  std::printf("make_seed_corpus: wrote 5 seeds to %s\n", dir.string().c_str());
  return 0;
}
