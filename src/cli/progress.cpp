#include "cli/progress.h"

#include <atomic>
#include <csignal>
#include <cstdio>

#include <unistd.h>

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::cli {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

}  // namespace

void install_interrupt_handler() {
  // A shell starts background jobs with SIGINT ignored (and nohup does): leave that as it is.
  if (std::signal(SIGINT, on_sigint) == SIG_IGN) std::signal(SIGINT, SIG_IGN);
}

void check_interrupted() {
  if (g_interrupted.load()) throw InterruptedError("interrupted (Ctrl-C): the simulation stopped, nothing was written");
}

RunProgressLine::RunProgressLine(double clock_hz)
    : clock_hz_(clock_hz), tty_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()),
      last_(start_) {}

RunProgressLine::~RunProgressLine() { finish(); }

void RunProgressLine::finish() {
  if (shown_) std::fputs("\r\033[K", stderr);
  shown_ = false;
  tty_ = false;
}

std::function<void(const core::RunProgress&)> RunProgressLine::poll() {
  return [this](const core::RunProgress& p) {
    check_interrupted();
    if (tty_) update(p);
  };
}

void RunProgressLine::update(const core::RunProgress& p) {
  using namespace std::chrono;
  const auto now = steady_clock::now();
  const double elapsed = duration<double>(now - start_).count();
  if (elapsed < 2.0 || duration<double>(now - last_).count() < 0.5) return;
  last_ = now;
  shown_ = true;
  const double us = clock_hz_ > 0 ? double(p.cycle) / clock_hz_ * 1e6 : 0.0;
  const std::string line =
      fmt::format("\r\033[Ksimulating: cycle {} ({:.1f} us simulated), CTAs done {}/{}, {:.0f} s elapsed, {:.0f} cycles/s",
                  p.cycle, us, p.ctas_done, p.ctas_total, elapsed, double(p.cycle) / elapsed);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

std::function<void(const core::RunProgress&)> interrupt_poll() {
  return [](const core::RunProgress&) { check_interrupted(); };
}

}  // namespace simfa::cli
