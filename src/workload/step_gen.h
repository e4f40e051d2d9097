// A minimal C++20 coroutine used to write each WarpGroup's program as straight-line code: the body
// appends instructions to a buffer owned by the stream and suspends (`co_yield 0`) after each step,
// so a stream holds at most one step of instructions at a time.
#pragma once
#include <coroutine>
#include <exception>
#include <utility>

namespace simfa::workload {

class StepGen {
 public:
  struct promise_type {
    std::exception_ptr error;
    StepGen get_return_object() { return StepGen(Handle::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    std::suspend_always yield_value(int) noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() { error = std::current_exception(); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  StepGen() = default;
  explicit StepGen(Handle h) : h_(h) {}
  StepGen(StepGen&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  StepGen& operator=(StepGen&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  StepGen(const StepGen&) = delete;
  StepGen& operator=(const StepGen&) = delete;
  ~StepGen() {
    if (h_) h_.destroy();
  }

  // Runs the body to its next suspension. Returns false once the body has finished.
  bool step() {
    if (!h_ || h_.done()) return false;
    h_.resume();
    if (h_.promise().error) std::rethrow_exception(std::exchange(h_.promise().error, nullptr));
    return !h_.done();
  }
  bool done() const { return !h_ || h_.done(); }

 private:
  Handle h_;
};

}  // namespace simfa::workload
