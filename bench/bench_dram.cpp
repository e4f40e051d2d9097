// Speed of the DRAM model: line requests simulated per second (wall clock) for a saturating
// sequential read stream, a random read/write mix, and a sparse (mostly idle) load. Numbers are
// recorded in docs/performance.md under "DRAM"; this is not a timed test.
#include <benchmark/benchmark.h>

#include <deque>
#include <vector>

#include "mem/dram/hbm.h"
#include "mem/port.h"
#include "sim/config.h"
#include "sim/engine.h"
#include "sim/rng.h"

namespace {

using namespace simfa;
using namespace simfa::mem;

DramParams preset() {
  static const ParamRegistry reg = [] {
    ParamRegistry r;
    register_mem_params(r);  // includes dram.* when the hierarchy is built
    if (!r.find("dram.channels")) register_dram_params(r);
    if (!r.find("gpu.clock"))  // registered by the core library in the full simulator
      r.add(ParamDesc{"gpu.clock",
                      ParamType::Frequency,
                      "1830MHz",
                      "Hz",
                      "SM clock (stand-in)",
                      "src/core/params.cpp",
                      1e6,
                      1e11,
                      {}});
    return r;
  }();
  Config cfg(reg);
  return dram_params_from(cfg);
}

// Keeps up to `window` requests outstanding; addresses from a generator. A refused request waits
// in the FIFO of its pseudo-channel (as in an L2 slice) and is offered again after a retry.
class Source final : public Component, public DramClient {
 public:
  using Gen = DramReq (*)(std::uint64_t i, Rng& rng);
  Source(Engine& e, std::uint64_t n, std::uint32_t window, int per_cycle, Gen gen, Cycle gap)
      : e_(e),
        n_(n),
        window_(window),
        per_cycle_(per_cycle),
        gen_(gen),
        gap_(gap),
        rng_(1, "bench") {
    e.add(this);
  }
  void attach(HbmDram* d) {
    d_ = d;
    parked_.resize(d->params().channels * d->params().pseudo_channels);
  }
  Cycle tick(Cycle now) override {
    int k = 0;
    if (retry_) {
      retry_ = false;
      for (auto& f : parked_)
        while (!f.empty() && k < per_cycle_ && d_->try_enqueue(f.front(), now)) {
          f.pop_front();
          ++k;
          --parked_count_;
        }
      if (parked_count_ > 0 && k >= per_cycle_) retry_ = true;
    }
    while (issued_ < n_ && issued_ - done_ < window_ && k < per_cycle_) {
      const DramReq r = gen_(issued_++, rng_);
      ++k;
      const DramCoord c = d_->mapping().map(r.line);
      auto& f = parked_[c.channel * d_->params().pseudo_channels + c.pc];
      if (!f.empty() || !d_->try_enqueue(r, now)) {
        f.push_back(r);
        ++parked_count_;
      }
      if (gap_) return now + gap_;
    }
    return (issued_ < n_ && issued_ - done_ < window_) || retry_ ? now + 1 : kNever;
  }
  void on_dram_response(const DramReq&, Cycle now) override {
    ++done_;
    e_.wake(this, now);
  }
  void on_dram_retry(std::uint32_t, Cycle now) override {
    retry_ = true;
    e_.wake(this, now);
  }
  bool done() const { return done_ == n_; }

 private:
  Engine& e_;
  HbmDram* d_ = nullptr;
  std::uint64_t n_, issued_ = 0, done_ = 0;
  std::uint32_t window_;
  int per_cycle_;
  Gen gen_;
  Cycle gap_;
  Rng rng_;
  std::vector<std::deque<DramReq>> parked_;
  std::uint64_t parked_count_ = 0;
  bool retry_ = false;
};

DramReq sequential(std::uint64_t i, Rng&) {
  return {i * 128, static_cast<std::uint32_t>(i), false, 0xF};
}
DramReq random_mix(std::uint64_t i, Rng& rng) {
  return {(rng.next() % (1ULL << 34)) / 128 * 128, static_cast<std::uint32_t>(i),
          rng.next() % 4 == 0, 0xF};
}

void run(benchmark::State& state, Source::Gen gen, Cycle gap) {
  const DramParams p = preset();
  const std::uint64_t n = static_cast<std::uint64_t>(state.range(0));
  std::uint64_t cycles = 0;
  for (auto _ : state) {
    Engine engine;
    Source src(engine, n, 20480, 64, gen, gap);  // 80 L2 slices x 256 MSHRs
    HbmDram dram(p, engine, &src);
    src.attach(&dram);
    engine.wake(&src, 0);
    engine.run([&] { return src.done(); });
    cycles += engine.now();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.counters["core_cycles_per_s"] =
      benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
}

void BM_DramStreamReads(benchmark::State& s) { run(s, sequential, 0); }
void BM_DramRandomMix(benchmark::State& s) { run(s, random_mix, 0); }
void BM_DramSparse(benchmark::State& s) { run(s, random_mix, 200); }

BENCHMARK(BM_DramStreamReads)->Arg(200'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DramRandomMix)->Arg(200'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DramSparse)->Arg(20'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
