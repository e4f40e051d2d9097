// Test double for an SM: issues a scripted list of line requests (each no earlier than its `at`
// cycle, in order, up to `per_cycle` per cycle), stops at a refusal until on_retry, and records
// every response with its cycle.
#pragma once
#include <cstdint>
#include <vector>

#include "mem/port.h"
#include "sim/engine.h"
#include "sim/error.h"

namespace simfa::mem::test {

struct Scripted {
  MemReq req;
  Cycle at = 0;
};

struct Response {
  MemReq req;
  Cycle at;
};

class MockSm final : public Component, public MemClient {
 public:
  MockSm(Engine& e, MemorySystem& m, std::uint16_t sm, std::uint32_t per_cycle = 2)
      : e_(e), m_(m), sm_(sm), per_cycle_(per_cycle) {
    e.add(this);
    m.connect(sm, this);
  }
  // Adds a request; `tag` is set to its index in the script.
  void add(Addr line, ReqKind kind, Cycle at = 0, std::uint8_t sectors = 0xF) {
    MemReq r;
    r.line = line;
    r.sm = sm_;
    r.kind = kind;
    r.sectors = sectors;
    r.tag = static_cast<std::uint32_t>(script_.size());
    script_.push_back({r, at});
  }
  void start() { e_.wake(this, script_.empty() ? 0 : script_.front().at); }

  Cycle tick(Cycle now) override {
    if (blocked_) return kNever;
    for (std::uint32_t n = 0; n < per_cycle_ && next_ < script_.size(); ++n) {
      if (script_[next_].at > now) return script_[next_].at;
      MemReq r = script_[next_].req;
      r.issued = now;
      if (!m_.try_send(r, now)) {
        ++refusals;
        blocked_ = true;
        return kNever;
      }
      sent_at.push_back(now);
      ++next_;
    }
    return next_ < script_.size() ? std::max(now + 1, script_[next_].at) : kNever;
  }
  void on_response(const MemReq& r, Cycle now) override {
    SIMFA_ASSERT(r.sm == sm_, "mock sm", "response for SM {} delivered to SM {}", r.sm, sm_);
    responses.push_back({r, now});
  }
  void on_retry(Cycle now) override {
    if (!blocked_) return;
    blocked_ = false;
    e_.wake(this, now);
  }

  bool done() const { return next_ == script_.size() && responses.size() == script_.size(); }
  std::size_t issued() const { return next_; }
  const std::vector<Scripted>& script() const { return script_; }

  std::vector<Response> responses;
  std::vector<Cycle> sent_at;
  std::uint64_t refusals = 0;

 private:
  Engine& e_;
  MemorySystem& m_;
  std::uint16_t sm_;
  std::uint32_t per_cycle_;
  std::vector<Scripted> script_;
  std::size_t next_ = 0;
  bool blocked_ = false;
};

}  // namespace simfa::mem::test
