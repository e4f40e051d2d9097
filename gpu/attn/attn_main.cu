// simfa-attn / simfa-attn-evlog: correctness check, timings and instrumentation logs for the
// attention kernel (attn_kernel.cuh). The -evlog binary is the same source built with
// -DSIMFA_EVLOG_ENABLED; only it can write logs.
//   check  small random cases, both schedules, vs the CPU reference (rel. L2 error < 1e-2)
//   time   CUDA-event timings over the paper's §5.3 shapes -> timings CSV (simfa validate columns)
//   log    one instrumented run per shape -> <out-dir>/<case>.evlog
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/clock.cuh"
#include "../common/host_util.h"
#include "attn_host.cuh"
#include "attn_ref.h"
#ifdef SIMFA_EVLOG_ENABLED
#include "simfa/evlog_host.h"
#endif

using namespace simfa_attn;
using simfa_gpu::Args;
using simfa_gpu::CsvOut;

namespace {

#ifdef SIMFA_EVLOG_ENABLED
constexpr bool kEvlog = true;
#else
constexpr bool kEvlog = false;
#endif

struct NamedShape {
  std::string name;
  Shape s;
};

// Paper §5.3: Llama-3 8B / 70B / 405B attention heads (32/64/128 query heads, 8 KV heads, d 128),
// sequence lengths 512..6144, batch 1, self-attention (seqlen_q = seqlen_k), non-causal.
std::vector<NamedShape> paper_shapes(int max_seqlen) {
  std::vector<NamedShape> v;
  const struct {
    const char* name;
    int h;
  } models[] = {{"llama3-8b", 32}, {"llama3-70b", 64}, {"llama3-405b", 128}};
  for (const auto& m : models)
    for (int sl : {512, 1024, 2048, 4096, 6144}) {
      if (sl > max_seqlen) continue;
      Shape s;
      s.b = 1, s.h = m.h, s.h_kv = 8, s.sq = sl, s.sk = sl;
      v.push_back({std::string(m.name) + "-s" + std::to_string(sl), s});
    }
  return v;
}

std::vector<float> to_float(const __half* dev, size_t n) {
  std::vector<__half> h(n);
  SIMFA_CUDA_CHECK(cudaMemcpy(h.data(), dev, n * 2, cudaMemcpyDeviceToHost));
  std::vector<float> f(n);
  for (size_t i = 0; i < n; ++i) f[i] = __half2float(h[i]);
  return f;
}

SimfaEvlogDev no_log() { return SimfaEvlogDev{}; }

// ---- check --------------------------------------------------------------------------------------
int cmd_check(Args& args) {
  const std::string out = args.str("--out", "");
  args.done();
  const simfa_gpu::DeviceInfo dev = simfa_gpu::query_device();
  struct Case {
    const char* name;
    Shape s;
    int grid;  // 0 = SM count
  };
  const Case cases[] = {
      {"one-block", {1, 2, 1, 128, 176}, 0},         // exactly one tile and one KV block
      {"short-kv", {1, 2, 2, 100, 40}, 0},           // single partial KV block, partial Q tile
      {"gqa-ragged", {2, 4, 2, 300, 500}, 0},        // GQA, both sequence ends ragged
      {"persistent", {1, 3, 1, 257, 1000}, 2},       // 9 tiles on 2 CTAs, 6 KV blocks
      {"persistent-1cta", {2, 2, 1, 384, 704}, 1},   // all tiles on one CTA
  };
  CsvOut csv(out);
  csv.line(simfa_gpu::device_comment(dev));
  csv.linef("# evlog_compiled_in=%d\n", kEvlog ? 1 : 0);
  csv.line("case,variant,batch,seqlen_q,seqlen_k,heads,heads_kv,grid,o_max_abs_err,o_rel_l2_err,"
           "lse_max_abs_err,pass\n");
  int failures = 0;
  for (const Case& c : cases) {
    Buffers b;
    b.alloc(c.s);
    fill_inputs(c.s, b, 1234);
    const Maps maps = make_maps(c.s, b);
    const Params p = make_params(c.s, b);
    const int grid = c.grid ? c.grid : dev.sm_count;
    std::vector<float> q = to_float(b.q, c.s.q_elems()), k = to_float(b.k, c.s.kv_elems()),
                       v = to_float(b.v, c.s.kv_elems()), ref_o, ref_lse;
    attention_reference(q, k, v, c.s.b, c.s.h, c.s.h_kv, c.s.sq, c.s.sk, kD, p.scale, ref_o,
                        ref_lse);
    for (int variant = 0; variant < 2; ++variant) {
      const bool overlap = variant == 0;
      SIMFA_CUDA_CHECK(cudaMemset(b.o, 0xff, c.s.q_elems() * 2));  // NaN: catches unwritten rows
      SimfaEvlogDev ev = no_log();
#ifdef SIMFA_EVLOG_ENABLED
      simfa::EvlogHost log(dim3(grid), dim3(kThreads), evlog_entries_per_warp(c.s, grid),
                           SIMFA_CLOCK_CLOCK64);
      ev = log.dev();
#endif
      launch_variant(overlap, maps, p, grid, ev);
      SIMFA_CUDA_CHECK(cudaGetLastError());
      SIMFA_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> o = to_float(b.o, c.s.q_elems());
      std::vector<float> lse(ref_lse.size());
      SIMFA_CUDA_CHECK(cudaMemcpy(lse.data(), b.lse, lse.size() * 4, cudaMemcpyDeviceToHost));
      const ErrorStats eo = compare(o, ref_o), el = compare(lse, ref_lse);
      const bool pass = eo.rel_l2 < 1e-2 && el.max_abs < 1e-2;
      failures += pass ? 0 : 1;
      csv.linef("%s,%s,%d,%d,%d,%d,%d,%d,%.3g,%.3g,%.3g,%d\n", c.name,
                overlap ? "intra-wg-overlap" : "no-overlap", c.s.b, c.s.sq, c.s.sk, c.s.h,
                c.s.h_kv, grid, eo.max_abs, eo.rel_l2, el.max_abs, pass ? 1 : 0);
    }
    b.free();
  }
  std::fprintf(stderr, "check: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

// ---- time ---------------------------------------------------------------------------------------
int cmd_time(Args& args) {
  const std::string out = args.str("--out", "");
  const int warmup = static_cast<int>(args.num("--warmup", 5));
  const int runs = static_cast<int>(std::max<long long>(1, args.num("--runs", 50)));
  const int max_seqlen = static_cast<int>(args.num("--max-seqlen", 6144));
  const bool overlap = args.str("--variant", "intra-wg-overlap") != "no-overlap";
  args.done();
  const simfa_gpu::DeviceInfo dev = simfa_gpu::query_device();
  CsvOut csv(out);  // no '#' lines: this file is read by `simfa validate`
  csv.line("case,batch,seqlen,heads,head_dim,causal,measured_us,kv_seqlen,heads_kv,dtype,"
           "clock_mhz,gpu\n");
  cudaEvent_t e0, e1;
  SIMFA_CUDA_CHECK(cudaEventCreate(&e0));
  SIMFA_CUDA_CHECK(cudaEventCreate(&e1));
  unsigned long long* spin_out = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&spin_out, 2 * sizeof(unsigned long long)));
  for (const NamedShape& ns : paper_shapes(max_seqlen)) {
    const Shape& s = ns.s;
    // Enough input sets that consecutive runs never find their inputs in L2.
    const size_t set_bytes = (s.q_elems() + 2 * s.kv_elems()) * 2;
    const int sets = static_cast<int>(
        std::clamp<size_t>((3 * size_t(dev.l2_bytes)) / set_bytes + 1, 2, 16));
    std::vector<Buffers> bufs(sets);
    std::vector<Maps> maps(sets);
    std::vector<Params> params(sets);
    for (int i = 0; i < sets; ++i) {
      bufs[i].alloc(s);
      fill_inputs(s, bufs[i], 77 + i);
      maps[i] = make_maps(s, bufs[i]);
      params[i] = make_params(s, bufs[i]);
    }
    const int grid = dev.sm_count;
    std::vector<float> ms;
    for (int r = 0; r < warmup + runs; ++r) {
      const int i = r % sets;
      // A 30 us spin first, so the event, the kernel and the event are queued on the device by the
      // time it ends: the measured interval then holds no host launch latency.
      simfa_gpu::clock_probe_kernel<<<1, 1>>>(30000, spin_out);
      SIMFA_CUDA_CHECK(cudaEventRecord(e0));
      launch_variant(overlap, maps[i], params[i], grid, no_log());
      SIMFA_CUDA_CHECK(cudaEventRecord(e1));
      SIMFA_CUDA_CHECK(cudaEventSynchronize(e1));
      SIMFA_CUDA_CHECK(cudaGetLastError());
      float t = 0;
      SIMFA_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
      if (r >= warmup) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double median_us = 1e3 * (ms.size() % 2 ? ms[ms.size() / 2]
                                                  : 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]));
    const double mhz = simfa_gpu::measure_sm_clock_mhz(10.0);
    csv.linef("%s,%d,%d,%d,%d,0,%.2f,%d,%d,fp16,%.0f,%s\n", ns.name.c_str(), s.b, s.sq, s.h, kD,
              median_us, s.sk, s.h_kv, mhz, dev.name.c_str());
    for (Buffers& b : bufs) b.free();
  }
  SIMFA_CUDA_CHECK(cudaFree(spin_out));
  return 0;
}

// ---- log ----------------------------------------------------------------------------------------
int cmd_log(Args& args) {
  const std::string out_dir = args.str("--out-dir", ".");
  const int max_seqlen = static_cast<int>(args.num("--max-seqlen", 2048));
  const bool overlap = args.str("--variant", "intra-wg-overlap") != "no-overlap";
  const std::string clock = args.str("--clock", "clock64");
  args.done();
#ifndef SIMFA_EVLOG_ENABLED
  (void)out_dir, (void)max_seqlen, (void)overlap, (void)clock;
  std::fprintf(stderr, "log: this binary was built without SIMFA_EVLOG_ENABLED; use simfa-attn-evlog\n");
  return 2;
#else
  if (clock != "clock64" && clock != "globaltimer") args.fail("--clock must be clock64 or globaltimer");
  const simfa_gpu::DeviceInfo dev = simfa_gpu::query_device();
  for (const NamedShape& ns : paper_shapes(max_seqlen)) {
    const Shape& s = ns.s;
    Buffers b;
    b.alloc(s);
    fill_inputs(s, b, 99);
    const Maps maps = make_maps(s, b);
    const Params p = make_params(s, b);
    const int grid = dev.sm_count;
    launch_variant(overlap, maps, p, grid, no_log());  // warm-up (clocks, descriptor caches)
    SIMFA_CUDA_CHECK(cudaDeviceSynchronize());
    const double mhz = simfa_gpu::measure_sm_clock_mhz(10.0);
    simfa::EvlogHost log(dim3(grid), dim3(kThreads), evlog_entries_per_warp(s, grid),
                         clock == "clock64" ? SIMFA_CLOCK_CLOCK64 : SIMFA_CLOCK_GLOBALTIMER_NS);
    if (clock == "clock64") log.set_clock_rate_hz(static_cast<uint64_t>(mhz * 1e6));
    for (const simfa_tensormap_desc& d : maps.desc) log.add_tensormap(d);
    launch_variant(overlap, maps, p, grid, log.dev());
    SIMFA_CUDA_CHECK(cudaGetLastError());
    log.copy_back();
    const std::string path = out_dir + "/" + ns.name + ".evlog";
    log.write(path);
    size_t events = 0, overflow = 0;
    for (uint32_t c : log.counts()) events += c;
    for (uint32_t f : log.overflow()) overflow += f;
    std::printf("%s,%s,events=%zu,overflowed_warps=%zu,clock_mhz=%.0f\n", ns.name.c_str(),
                path.c_str(), events, overflow, mhz);
    b.free();
  }
  return 0;
#endif
}

const char* kUsage =
    "simfa-attn[-evlog] COMMAND [options]: simfa's warp-specialised attention kernel (FP16, d 128,\n"
    "tile 128x176, 2 stages, 1 producer + 2 consumer warpgroups).\n"
    "  check [--out FILE]                       CPU-reference check, both schedules; exit 1 on failure\n"
    "  time  [--out FILE] [--runs N] [--warmup N] [--max-seqlen N] [--variant V]\n"
    "                                           median CUDA-event time per paper shape (CSV)\n"
    "  log   [--out-dir DIR] [--max-seqlen N] [--variant V] [--clock clock64|globaltimer]\n"
    "                                           instrumented run per shape (evlog build only)\n"
    "  V = intra-wg-overlap (default) | no-overlap\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  const std::string cmd = argv[1];
  Args args(argc - 1, argv + 1, kUsage);
  try {
    if (cmd == "check") return cmd_check(args);
    if (cmd == "time") return cmd_time(args);
    if (cmd == "log") return cmd_log(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 3;
  }
  if (cmd == "-h" || cmd == "--help") {
    std::printf("%s", kUsage);
    return 0;
  }
  std::fprintf(stderr, "unknown command '%s'\n%s", cmd.c_str(), kUsage);
  return 2;
}
