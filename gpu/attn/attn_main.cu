// simfa-attn / simfa-attn-evlog: correctness check, timings and instrumentation logs for the
// attention kernel (attn_kernel.cuh). The -evlog binary is the same source built with
// -DSIMFA_EVLOG_ENABLED; only it can write logs.
//   check  small random cases, both schedules, vs the CPU reference (rel. L2 error < 1e-2)
//   time   CUDA-event timings over the paper's §5.3 shapes -> timings CSV (simfa validate columns)
//   log    one instrumented run per shape -> <out-dir>/<case>.evlog
#include <algorithm>
#include <chrono>
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
// batch 1, self-attention (seqlen_q = seqlen_k), non-causal; sequence lengths 512..8192.
std::vector<NamedShape> llama_shapes(int max_seqlen) {
  std::vector<NamedShape> v;
  const struct {
    const char* name;
    int h;
  } models[] = {{"llama3-8b", 32}, {"llama3-70b", 64}, {"llama3-405b", 128}};
  for (const auto& m : models)
    for (int sl : {512, 1024, 2048, 4096, 6144, 8192}) {
      if (sl > max_seqlen) continue;
      Shape s;
      s.b = 1, s.h = m.h, s.h_kv = 8, s.sq = sl, s.sk = sl;
      v.push_back({std::string(m.name) + "-s" + std::to_string(sl), s});
    }
  return v;
}

// The FA3 paper's Fig. 5 grid at head dim 128 (non-causal): 16 heads, batch = 16384 / seqlen.
std::vector<NamedShape> mha_shapes(int max_seqlen) {
  std::vector<NamedShape> v;
  for (int sl : {512, 1024, 2048, 4096, 8192, 16384}) {
    if (sl > max_seqlen) continue;
    Shape s;
    s.b = 16384 / sl, s.h = 16, s.h_kv = 16, s.sq = sl, s.sk = sl;
    v.push_back({"mha-h16-s" + std::to_string(sl), s});
  }
  return v;
}

// --cases a,b,c keeps the named shapes (in the given set's order); unknown names are an error.
std::vector<NamedShape> select_cases(std::vector<NamedShape> all, const std::string& cases,
                                     Args& args) {
  if (cases.empty()) return all;
  std::vector<std::string> want;
  for (size_t pos = 0; pos <= cases.size();) {
    const size_t c = std::min(cases.find(',', pos), cases.size());
    want.push_back(cases.substr(pos, c - pos));
    pos = c + 1;
  }
  std::vector<NamedShape> out;
  for (const std::string& w : want) {
    bool found = false;
    for (const NamedShape& ns : all) found = found || ns.name == w;
    if (!found) args.fail("--cases: no shape named '" + w + "'");
  }
  for (const NamedShape& ns : all)
    if (std::find(want.begin(), want.end(), ns.name) != want.end()) out.push_back(ns);
  return out;
}

// Kernel-side figures of one launch from the Params::clk records: span (first CTA entry to last
// consumer end, ns) and the SM clock (MHz: cycles / ns of each CTA that had tiles; mean, min, max).
struct KernelClock {
  double span_ns = 0, mhz = 0, mhz_min = 0, mhz_max = 0;
};
KernelClock read_clk(const unsigned long long* dclk, int grid) {
  std::vector<unsigned long long> h(size_t(grid) * kClkWords);
  SIMFA_CUDA_CHECK(cudaMemcpy(h.data(), dclk, h.size() * 8, cudaMemcpyDeviceToHost));
  unsigned long long g0 = ~0ull, g1 = 0;
  double sum = 0, lo = 0, hi = 0;
  int n = 0;
  for (int b = 0; b < grid; ++b) {
    const unsigned long long* c = &h[size_t(b) * kClkWords];
    g0 = std::min(g0, c[1]);
    const unsigned long long c_end = std::max(c[2], c[4]), g_end = std::max(c[3], c[5]);
    if (g_end <= c[1]) continue;  // no tiles
    g1 = std::max(g1, g_end);
    const double mhz = 1e3 * double(c_end - c[0]) / double(g_end - c[1]);
    sum += mhz, lo = n ? std::min(lo, mhz) : mhz, hi = std::max(hi, mhz), ++n;
  }
  KernelClock k;
  k.span_ns = g1 > g0 ? double(g1 - g0) : 0.0;
  k.mhz = n ? sum / n : 0.0;
  k.mhz_min = lo, k.mhz_max = hi;
  return k;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
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
  const std::string detail = args.str("--detail", "");
  const int warmup = static_cast<int>(args.num("--warmup", 5));
  const int runs = static_cast<int>(std::max<long long>(1, args.num("--runs", 50)));
  const int max_seqlen = static_cast<int>(args.num("--max-seqlen", 16384));
  const bool overlap = args.str("--variant", "intra-wg-overlap") != "no-overlap";
  const std::string cases = args.str("--cases", "");
  const bool mha = !args.flag("--no-mha");
  args.done();
  const simfa_gpu::DeviceInfo dev = simfa_gpu::query_device();
  std::vector<NamedShape> shapes = llama_shapes(max_seqlen);
  if (mha)
    for (const NamedShape& ns : mha_shapes(max_seqlen)) shapes.push_back(ns);
  shapes = select_cases(shapes, cases, args);
  CsvOut csv(out);  // no '#' lines: this file is read by `simfa validate`
  // measured_clock_mhz: the clock inside the kernel during these runs (simfa validate simulates at
  // it exactly, without the preset's power limit).
  csv.line("case,batch,seqlen,heads,head_dim,causal,measured_us,kv_seqlen,heads_kv,dtype,"
           "measured_clock_mhz,gpu\n");
  CsvOut det(detail);
  det.line(simfa_gpu::device_comment(dev));
  det.linef("# method=%s schedule; per shape %d warm-ups then %d runs, each queued behind a 30 us "
            "spin kernel; event_us = CUDA events around the launch; kernel_us = first CTA entry "
            "to last consumer end by %%globaltimer; clock_mhz = clock64 / %%globaltimer over each "
            "CTA's run, mean over CTAs; probe_mhz = a one-thread spin right after; inputs rotate "
            "over enough sets to exceed 3x L2\n",
            overlap ? "intra-wg-overlap" : "no-overlap", warmup, runs);
  det.line("case,batch,seqlen,heads,heads_kv,head_dim,grid,tiles,event_us_median,event_us_min,"
           "kernel_us_median,kernel_us_min,clock_mhz_median,probe_mhz,tflops_event,tflops_kernel\n");
  cudaEvent_t e0, e1;
  SIMFA_CUDA_CHECK(cudaEventCreate(&e0));
  SIMFA_CUDA_CHECK(cudaEventCreate(&e1));
  unsigned long long *spin_out = nullptr, *dclk = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&spin_out, 2 * sizeof(unsigned long long)));
  const int grid = dev.sm_count;
  SIMFA_CUDA_CHECK(cudaMalloc(&dclk, size_t(grid) * kClkWords * 8));
  for (const NamedShape& ns : shapes) {
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
      params[i].clk = dclk;
    }
    std::vector<double> ev_us, k_us, mhz;
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
      if (r < warmup) continue;
      const KernelClock k = read_clk(dclk, grid);
      ev_us.push_back(1e3 * t);
      k_us.push_back(1e-3 * k.span_ns);
      mhz.push_back(k.mhz);
    }
    const double median_us = median_of(ev_us), kernel_us = median_of(k_us), kmhz = median_of(mhz);
    const double probe = simfa_gpu::measure_sm_clock_mhz(10.0);
    const double flops = 4.0 * s.b * s.h * double(s.sq) * s.sk * kD;
    csv.linef("%s,%d,%d,%d,%d,0,%.2f,%d,%d,fp16,%.0f,%s\n", ns.name.c_str(), s.b, s.sq, s.h, kD,
              median_us, s.sk, s.h_kv, kmhz, dev.name.c_str());
    det.linef("%s,%d,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.1f,%.0f,%.1f,%.1f\n", ns.name.c_str(),
              s.b, s.sq, s.h, s.h_kv, kD, grid, s.num_tiles(), median_us,
              *std::min_element(ev_us.begin(), ev_us.end()), kernel_us,
              *std::min_element(k_us.begin(), k_us.end()), kmhz, probe,
              flops / (median_us * 1e-6) / 1e12, kernel_us > 0 ? flops / (kernel_us * 1e-6) / 1e12 : 0.0);
    for (Buffers& b : bufs) b.free();
  }
  SIMFA_CUDA_CHECK(cudaFree(spin_out));
  SIMFA_CUDA_CHECK(cudaFree(dclk));
  return 0;
}

// ---- clock --------------------------------------------------------------------------------------
// The SM clock under a sustained attention load: one shape launched back to back for --seconds
// (two input sets alternating), every launch's clock and span from the Params::clk records.
int cmd_clock(Args& args) {
  const std::string out = args.str("--out", "");
  const double seconds = static_cast<double>(args.num("--seconds", 8));
  const std::string cases = args.str("--cases", "llama3-405b-s8192");
  args.done();
  if (seconds < 1 || seconds > 120) args.fail("--seconds must be in 1..120");
  const simfa_gpu::DeviceInfo dev = simfa_gpu::query_device();
  std::vector<NamedShape> all = llama_shapes(1 << 30);
  for (const NamedShape& ns : mha_shapes(1 << 30)) all.push_back(ns);
  const std::vector<NamedShape> shapes = select_cases(all, cases, args);
  const int grid = dev.sm_count;
  unsigned long long* dclk = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dclk, size_t(grid) * kClkWords * 8));
  CsvOut csv(out);
  csv.line(simfa_gpu::device_comment(dev));
  csv.linef("# method=attention kernel (intra-wg-overlap) launched back to back for %.0f s per "
            "shape; each launch: kernel_us (first CTA entry to last consumer end) and clock_mhz "
            "(clock64 / %%globaltimer per CTA, mean, min and max over CTAs)\n", seconds);
  csv.line("case,launch,t_ms,kernel_us,clock_mhz_mean,clock_mhz_min,clock_mhz_max\n");
  for (const NamedShape& ns : shapes) {
    const Shape& s = ns.s;
    Buffers b[2];
    Maps maps[2];
    Params params[2];
    for (int i = 0; i < 2; ++i) {
      b[i].alloc(s);
      fill_inputs(s, b[i], 5 + i);
      maps[i] = make_maps(s, b[i]);
      params[i] = make_params(s, b[i]);
      params[i].clk = dclk;
    }
    SIMFA_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int n = 0;; ++n) {
      launch_variant(true, maps[n & 1], params[n & 1], grid, no_log());
      SIMFA_CUDA_CHECK(cudaDeviceSynchronize());
      SIMFA_CUDA_CHECK(cudaGetLastError());
      const double t_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      const KernelClock k = read_clk(dclk, grid);
      csv.linef("%s,%d,%.1f,%.2f,%.1f,%.1f,%.1f\n", ns.name.c_str(), n, t_ms, 1e-3 * k.span_ns,
                k.mhz, k.mhz_min, k.mhz_max);
      if (t_ms > seconds * 1e3) break;
    }
    for (Buffers& x : b) x.free();
  }
  SIMFA_CUDA_CHECK(cudaFree(dclk));
  return 0;
}

// ---- log ----------------------------------------------------------------------------------------
int cmd_log(Args& args) {
  const std::string out_dir = args.str("--out-dir", ".");
  const int max_seqlen = static_cast<int>(args.num("--max-seqlen", 2048));
  const bool overlap = args.str("--variant", "intra-wg-overlap") != "no-overlap";
  const std::string clock = args.str("--clock", "clock64");
  const std::string cases = args.str("--cases", "");
  const std::vector<NamedShape> shapes = select_cases(llama_shapes(max_seqlen), cases, args);
  args.done();
#ifndef SIMFA_EVLOG_ENABLED
  (void)out_dir, (void)overlap, (void)clock, (void)shapes;
  std::fprintf(stderr, "log: this binary was built without SIMFA_EVLOG_ENABLED; use simfa-attn-evlog\n");
  return 2;
#else
  if (clock != "clock64" && clock != "globaltimer") args.fail("--clock must be clock64 or globaltimer");
  const simfa_gpu::DeviceInfo dev = simfa_gpu::query_device();
  // The instrumentation's cost: the kernel's own span and clock without and with logging.
  CsvOut times(out_dir + "/log-times.csv");
  times.line(simfa_gpu::device_comment(dev));
  times.line("# method=per case: one plain launch (warm-up), one plain launch measured, one logged "
             "launch measured; kernel_us = first CTA entry to last consumer end (%globaltimer), "
             "clock_mhz = clock64 / %globaltimer per CTA (Params::clk)\n");
  times.line("case,plain_kernel_us,plain_clock_mhz,logged_kernel_us,logged_clock_mhz,events\n");
  unsigned long long* dclk = nullptr;
  SIMFA_CUDA_CHECK(cudaMalloc(&dclk, size_t(dev.sm_count) * kClkWords * 8));
  for (const NamedShape& ns : shapes) {
    const Shape& s = ns.s;
    Buffers b;
    b.alloc(s);
    fill_inputs(s, b, 99);
    const Maps maps = make_maps(s, b);
    Params p = make_params(s, b);
    p.clk = dclk;
    const int grid = dev.sm_count;
    launch_variant(overlap, maps, p, grid, no_log());  // warm-up (clocks, descriptor caches)
    SIMFA_CUDA_CHECK(cudaDeviceSynchronize());
    launch_variant(overlap, maps, p, grid, no_log());
    SIMFA_CUDA_CHECK(cudaDeviceSynchronize());
    const KernelClock plain = read_clk(dclk, grid);
    const double mhz = simfa_gpu::measure_sm_clock_mhz(10.0);
    simfa::EvlogHost log(dim3(grid), dim3(kThreads), evlog_entries_per_warp(s, grid),
                         clock == "clock64" ? SIMFA_CLOCK_CLOCK64 : SIMFA_CLOCK_GLOBALTIMER_NS);
    if (clock == "clock64") log.set_clock_rate_hz(static_cast<uint64_t>(mhz * 1e6));
    for (const simfa_tensormap_desc& d : maps.desc) log.add_tensormap(d);
    launch_variant(overlap, maps, p, grid, log.dev());
    SIMFA_CUDA_CHECK(cudaGetLastError());
    SIMFA_CUDA_CHECK(cudaDeviceSynchronize());
    const KernelClock logged = read_clk(dclk, grid);
    log.copy_back();
    const std::string path = out_dir + "/" + ns.name + ".evlog";
    log.write(path);
    size_t events = 0, overflow = 0;
    for (uint32_t c : log.counts()) events += c;
    for (uint32_t f : log.overflow()) overflow += f;
    std::printf("%s,%s,events=%zu,overflowed_warps=%zu,clock_mhz=%.0f\n", ns.name.c_str(),
                path.c_str(), events, overflow, mhz);
    times.linef("%s,%.2f,%.1f,%.2f,%.1f,%zu\n", ns.name.c_str(), 1e-3 * plain.span_ns, plain.mhz,
                1e-3 * logged.span_ns, logged.mhz, events);
    b.free();
  }
  SIMFA_CUDA_CHECK(cudaFree(dclk));
  return 0;
#endif
}

const char* kUsage =
    "simfa-attn[-evlog] COMMAND [options]: simfa's warp-specialised attention kernel (FP16, d 128,\n"
    "tile 128x176, 2 stages, 1 producer + 2 consumer warpgroups).\n"
    "  check [--out FILE]                       CPU-reference check, both schedules; exit 1 on failure\n"
    "  time  [--out FILE] [--detail FILE] [--runs N] [--warmup N] [--max-seqlen N] [--variant V]\n"
    "        [--cases LIST] [--no-mha]          median CUDA-event time per shape: Llama-3 8B/70B/405B\n"
    "                                           (seqlen 512-8192) and 16-head MHA (512-16384); the\n"
    "                                           detail CSV adds kernel span and in-kernel SM clock\n"
    "  clock [--out FILE] [--seconds S] [--cases LIST]\n"
    "                                           back-to-back launches of one shape: clock per launch\n"
    "  log   [--out-dir DIR] [--max-seqlen N] [--cases LIST] [--variant V]\n"
    "        [--clock clock64|globaltimer]      instrumented run per Llama shape (evlog build only)\n"
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
    if (cmd == "clock") return cmd_clock(args);
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
