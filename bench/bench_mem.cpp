// Speed of the memory hierarchy: line requests simulated per second of wall time through the L2
// (hits) and through the L2 and the HBM model (streaming misses), with closed-loop SMs that keep
// a TMA-like window of requests in flight. Reports rates; no pass/fail thresholds.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "api/run.h"
#include "mem/port.h"
#include "sim/config.h"
#include "sim/engine.h"

namespace {

using namespace simfa;

// An SM that keeps `window` line reads in flight, two new ones per cycle at most, walking its own
// region of `span` bytes with a stride of one line; stops after `total` requests.
class Streamer final : public Component, public mem::MemClient {
 public:
  Streamer(Engine& e, mem::MemorySystem& m, std::uint16_t sm, Addr base, Addr span,
           std::uint64_t total, std::uint32_t window)
      : e_(e), m_(m), sm_(sm), base_(base), span_(span), total_(total), window_(window) {
    e.add(this);
    m.connect(sm, this);
    e.wake(this, 0);
  }
  Cycle tick(Cycle now) override {
    for (int n = 0; n < 2 && !blocked_ && sent_ < total_ && inflight_ < window_; ++n) {
      mem::MemReq r;
      r.line = base_ + (sent_ * 128) % span_;
      r.sm = sm_;
      r.tag = static_cast<std::uint32_t>(sent_);
      r.issued = now;
      if (!m_.try_send(r, now)) {
        blocked_ = true;
        break;
      }
      ++sent_;
      ++inflight_;
    }
    return (!blocked_ && sent_ < total_ && inflight_ < window_) ? now + 1 : kNever;
  }
  void on_response(const mem::MemReq&, Cycle now) override {
    --inflight_;
    ++done_;
    e_.wake(this, now);
  }
  void on_retry(Cycle now) override {
    blocked_ = false;
    e_.wake(this, now);
  }
  bool finished() const { return done_ == total_; }

 private:
  Engine& e_;
  mem::MemorySystem& m_;
  std::uint16_t sm_;
  Addr base_, span_;
  std::uint64_t total_, sent_ = 0, done_ = 0;
  std::uint32_t window_, inflight_ = 0;
  bool blocked_ = false;
};

// Runs `sms` streamers of `per_sm` requests each over `span` bytes per SM; returns requests.
std::uint64_t run_once(int sms, std::uint64_t per_sm, Addr span, bool skip) {
  Config cfg(param_registry());
  cfg.set("mem.model", "hierarchy", "bench");
  Engine engine(skip);
  auto m = mem::make_memory_system(cfg, engine, sms);
  std::vector<std::unique_ptr<Streamer>> s;
  for (int i = 0; i < sms; ++i)
    s.push_back(std::make_unique<Streamer>(engine, *m, static_cast<std::uint16_t>(i),
                                           (Addr{1} << 36) + i * span, span, per_sm, 64));
  engine.run([&] {
    for (auto& x : s)
      if (!x->finished()) return false;
    return true;
  });
  return static_cast<std::uint64_t>(sms) * per_sm;
}

// Builds the memory system once so that its one-time DRAM calibration (dram_probe.h, cached per
// process) is not timed.
const bool kWarm = run_once(2, 1, 128, true) > 0;

// L2 hits: each SM re-reads 64 KiB (8 MiB in all for 132 SMs), so after the first pass every
// request hits.
void BM_L2Hits(benchmark::State& st) {
  std::uint64_t n = 0;
  for (auto _ : st) n += run_once(132, 20000, 64 << 10, true);
  st.SetItemsProcessed(static_cast<std::int64_t>(n));
  st.counters["line_requests_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_L2Hits)->Unit(benchmark::kMillisecond)->UseRealTime();

// Streaming misses: each SM walks its own 64 MiB region once, so every request goes to DRAM.
void BM_DramStream(benchmark::State& st) {
  std::uint64_t n = 0;
  for (auto _ : st) n += run_once(132, 8000, 64 << 20, true);
  st.SetItemsProcessed(static_cast<std::int64_t>(n));
  st.counters["line_requests_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DramStream)->Unit(benchmark::kMillisecond)->UseRealTime();

// The reference mode on the hit workload, to show what skipping idle cycles saves.
void BM_L2HitsNoSkip(benchmark::State& st) {
  std::uint64_t n = 0;
  for (auto _ : st) n += run_once(132, 2000, 64 << 10, false);
  st.SetItemsProcessed(static_cast<std::int64_t>(n));
  st.counters["line_requests_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_L2HitsNoSkip)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
