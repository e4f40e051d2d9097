// Error types shared by every layer: user errors (exit 2), simulated deadlocks (exit 3), internal
// errors (exit 1). User-facing messages are one line and name the file, key, line or record.
#pragma once
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace simfa {

// Bad input of any kind: configuration, trace, log, shape, command-line flag. The message is
// complete ("trace.sft:12: unknown opcode 'FOO'") and is printed as is; the CLI exits with 2 and
// Python raises ValueError.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& msg) : std::runtime_error(msg) {}
};

// The user stopped the run (Ctrl-C). The CLI exits with 130, as a shell does for SIGINT.
class InterruptedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The simulated program can never make progress. `what()` is a one-line summary; `report()` lists
// every blocked WarpGroup and what it waits for. The CLI exits with 3.
class DeadlockError : public std::runtime_error {
 public:
  DeadlockError(const std::string& summary, std::string report)
      : std::runtime_error(summary), report_(std::move(report)) {}
  const std::string& report() const { return report_; }

 private:
  std::string report_;
};

// A broken internal invariant: a bug in simfa, not in the input. The CLI exits with 1.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& msg) : std::logic_error(msg) {}
};

template <typename... Args>
[[noreturn]] void user_error(fmt::format_string<Args...> f, Args&&... args) {
  throw UserError(fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace simfa

// Cheap invariant check kept on in release builds. `where` names the component (and cycle).
#define SIMFA_ASSERT(cond, where, ...)                                                      \
  do {                                                                                      \
    if (!(cond)) [[unlikely]]                                                               \
      throw ::simfa::InternalError(fmt::format("internal error in {}: {} ({}:{})", (where), \
                                               fmt::format(__VA_ARGS__), __FILE__, __LINE__)); \
  } while (0)
