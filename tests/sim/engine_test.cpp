// Event engine ordering contract.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/engine.h"

namespace simfa {
namespace {

struct Log {
  std::vector<std::string> v;
};

struct Ticker : Component {
  Log& log;
  std::string name;
  std::vector<Cycle> plan;  // cycles to request after each tick
  std::size_t i = 0;
  Ticker(Log& l, std::string n) : log(l), name(std::move(n)) {}
  Cycle tick(Cycle now) override {
    log.v.push_back(name + "@" + std::to_string(now));
    return i < plan.size() ? plan[i++] : kNever;
  }
};

struct Target : EventTarget {
  Log& log;
  Engine& e;
  Component* wake = nullptr;
  Target(Log& l, Engine& en) : log(l), e(en) {}
  void on_event(std::uint32_t tag, const Payload& p, Cycle now) override {
    log.v.push_back("msg" + std::to_string(tag) + "=" + std::to_string(p.as<int>()) + "@" + std::to_string(now));
    if (wake) e.wake(wake, now);
  }
};

std::vector<std::string> scenario(bool skip) {
  Log log;
  Engine e(skip);
  Ticker a(log, "a"), b(log, "b");
  Target t(log, e);
  e.add(&a);
  e.add(&b);
  a.plan = {5, 3000};
  t.wake = &b;
  e.wake(&a, 0);
  e.send(&t, 1, Payload::of(7), 5);   // delivered before ticks at 5, wakes b at 5
  e.send(&t, 2, Payload::of(8), 5);   // same cycle: scheduling order
  e.send(&t, 3, Payload::of(9), 2500);  // beyond the wheel
  int n = 0;
  e.run([&] { return ++n > 100000 || e.now() >= 3000; });
  return log.v;
}

TEST(Engine, MessagesBeforeTicksInIdOrderAndFarEvents) {
  auto v = scenario(true);
  std::vector<std::string> want = {"a@0", "msg1=7@5", "msg2=8@5", "a@5", "b@5", "msg3=9@2500", "b@2500", "a@3000"};
  EXPECT_EQ(v, want);
}

TEST(Engine, NoSkipModeTicksEverythingButOrdersTheSame) {
  auto v = scenario(false);
  // Every cycle ticks a and b; the messages keep their positions.
  EXPECT_EQ(v[0], "a@0");
  EXPECT_EQ(v[1], "b@0");
  auto pos = [&](const std::string& s) { return std::find(v.begin(), v.end(), s) - v.begin(); };
  EXPECT_LT(pos("msg1=7@5"), pos("a@5"));
  EXPECT_LT(pos("msg2=8@5"), pos("b@5"));
  EXPECT_LT(pos("a@5"), pos("b@5"));
}

TEST(Engine, WakeDuringTickPhase) {
  Log log;
  Engine e(true);
  struct W : Component {
    Log& log;
    Engine& e;
    Component* other = nullptr;
    std::string name;
    W(Log& l, Engine& en, std::string n) : log(l), e(en), name(std::move(n)) {}
    Cycle tick(Cycle now) override {
      log.v.push_back(name + "@" + std::to_string(now));
      if (other && now == 0) e.wake(other, now);
      return kNever;
    }
  } x(log, e, "x"), y(log, e, "y"), z(log, e, "z");
  e.add(&x);
  e.add(&y);
  e.add(&z);
  y.other = &z;  // higher id: runs in the same cycle
  z.other = &x;  // lower id: deferred to the next cycle
  e.wake(&y, 0);
  e.run([] { return false; });
  std::vector<std::string> want = {"y@0", "z@0", "x@1"};
  EXPECT_EQ(log.v, want);
}

TEST(Engine, ReportsNothingLeftToDo) {
  Engine e(true);
  EXPECT_FALSE(e.run([] { return false; }));
}

}  // namespace
}  // namespace simfa
