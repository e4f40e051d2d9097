// Test helpers for the DRAM model: parameter sets, a recording client that drives a request plan
// with back-pressure, and a streaming source.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "mem/dram/dram.h"
#include "mem/dram/hbm.h"
#include "mem/dram/params.h"
#include "mem/port.h"
#include "sim/config.h"
#include "sim/engine.h"

namespace simfa::mem::test {

// The memory keys (dram.* among them) plus the core clock, which the core library registers in the
// full simulator; this stand-in copies its default (1830 MHz).
inline ParamRegistry dram_registry() {
  ParamRegistry r;
  register_mem_params(r);
  r.add(ParamDesc{"gpu.clock", ParamType::Frequency, "1830MHz", "Hz", "SM clock (test stand-in)",
                  "src/core/params.cpp", 1e6, 1e11, {}});
  return r;
}

// The default (HBM3-5200, 80 channels) parameters, resolved through the registry.
inline DramParams default_params() {
  static const ParamRegistry reg = dram_registry();
  Config cfg(reg);
  return dram_params_from(cfg);
}

// A one-channel DRAM whose core clock equals the DRAM clock (core cycle == DRAM cycle), refresh
// off: command timings can be read directly in core cycles.
inline DramParams one_channel_params() {
  DramParams p = default_params();
  p.channels = 1;
  p.refresh = RefreshMode::Off;
  p.core_hz = p.dram_hz();
  p.ctrl_latency = 7;
  return p;
}

struct Response {
  DramReq req;
  Cycle at;
};

// Offers the requests of a plan in order (each not before its cycle, at most `per_cycle` per
// cycle); a refused request is offered again after the next retry. Records every response.
class Driver final : public Component, public DramClient {
 public:
  explicit Driver(Engine& e) : engine_(e) { e.add(this); }
  void attach(Dram* d) { dram_ = d; }
  void plan(Cycle at, DramReq r) { plan_.push_back({at, r}); }
  void start() {
    std::stable_sort(plan_.begin(), plan_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (!plan_.empty()) engine_.wake(this, plan_.front().first);
  }
  Cycle tick(Cycle now) override {
    if (blocked_) return kNever;
    int n = 0;
    while (next_ < plan_.size() && plan_[next_].first <= now && n < per_cycle) {
      if (!dram_->try_enqueue(plan_[next_].second, now)) {
        blocked_ = true;
        ++refused;
        return kNever;
      }
      accepted_at.push_back(now);
      ++next_, ++n;
    }
    if (next_ < plan_.size()) return std::max(now + 1, plan_[next_].first);
    return kNever;
  }
  void on_dram_response(const DramReq& r, Cycle now) override { responses.push_back({r, now}); }
  void on_dram_retry(std::uint32_t, Cycle now) override {
    ++retries;
    if (blocked_) {
      blocked_ = false;
      engine_.wake(this, now);
    }
  }
  bool done() const { return next_ == plan_.size() && dram_->in_flight() == 0; }
  // Runs the engine until every planned request is answered (false on deadlock or limit).
  bool run(Cycle limit = 100'000'000) {
    start();
    return engine_.run([this] { return done(); }, limit);
  }
  const Response* find(std::uint32_t tag) const {
    for (const auto& r : responses)
      if (r.req.tag == tag) return &r;
    return nullptr;
  }

  std::vector<Response> responses;
  std::vector<Cycle> accepted_at;
  std::uint64_t retries = 0, refused = 0;
  int per_cycle = 1 << 30;

 private:
  Engine& engine_;
  Dram* dram_ = nullptr;
  std::vector<std::pair<Cycle, DramReq>> plan_;
  std::size_t next_ = 0;
  bool blocked_ = false;
};

// Streams reads of lines `stride_lines` apart, keeping up to `window` requests outstanding (in the
// DRAM or refused and waiting); offers at most `per_cycle` lines per cycle. A refused line waits in
// the FIFO of its pseudo-channel, so one full queue does not stall the others (as L2 slices would).
class Streamer final : public Component, public DramClient {
 public:
  Streamer(Engine& e, std::uint64_t lines, std::uint32_t line_bytes, std::uint32_t window,
           int per_cycle, Addr base = 0, std::uint64_t stride_lines = 1)
      : engine_(e),
        lines_(lines),
        line_bytes_(line_bytes),
        window_(window),
        per_cycle_(per_cycle),
        base_(base),
        stride_(stride_lines) {
    e.add(this);
  }
  void attach(HbmDram* d) {
    dram_ = d;
    parked_.resize(d->params().channels * d->params().pseudo_channels);
  }
  Cycle tick(Cycle now) override {
    int n = 0;
    if (retry_) {  // some queue has room: offer each waiting FIFO's head, oldest first
      retry_ = false;
      for (auto& f : parked_)
        while (!f.empty() && n < per_cycle_ && dram_->try_enqueue(f.front(), now)) {
          f.pop_front();
          ++n;
          --parked_count_;
        }
      if (parked_count_ > 0 && n >= per_cycle_) retry_ = true;
    }
    while (issued_ < lines_ && outstanding() < window_ && n < per_cycle_) {
      DramReq r;
      r.line = base_ + issued_ * stride_ * line_bytes_;
      r.tag = static_cast<std::uint32_t>(issued_);
      ++issued_;
      ++n;
      const DramCoord c = dram_->mapping().map(r.line);
      auto& f = parked_[c.channel * dram_->params().pseudo_channels + c.pc];
      if (!f.empty() || !dram_->try_enqueue(r, now)) {
        f.push_back(r);
        ++parked_count_;
      }
    }
    return (issued_ < lines_ && outstanding() < window_) || retry_ ? now + 1 : kNever;
  }
  void on_dram_response(const DramReq& r, Cycle now) override {
    ++done_;
    if (now >= window_start && now < window_end) window_bytes += line_bytes_;
    last_response = now;
    engine_.wake(this, now);
  }
  void on_dram_retry(std::uint32_t, Cycle now) override {
    retry_ = true;
    engine_.wake(this, now);
  }
  bool done() const { return done_ == lines_; }
  std::uint64_t completed() const { return done_; }

  Cycle window_start = 0, window_end = kNever;
  std::uint64_t window_bytes = 0;
  Cycle last_response = 0;

 private:
  std::uint64_t outstanding() const { return issued_ - done_; }
  Engine& engine_;
  HbmDram* dram_ = nullptr;
  std::uint64_t lines_;
  std::uint32_t line_bytes_, window_;
  int per_cycle_;
  Addr base_;
  std::uint64_t stride_;
  std::uint64_t issued_ = 0, done_ = 0;
  std::vector<std::deque<DramReq>> parked_;
  std::uint64_t parked_count_ = 0;
  bool retry_ = false;
};

}  // namespace simfa::mem::test
