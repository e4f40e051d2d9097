// Ctrl-C and progress for the CLI's simulations. The first SIGINT asks the running simulations to
// stop (each throws InterruptedError at its next poll, within 65,536 simulated cycles; the CLI
// exits with 130, no output file half-written); a second one kills the process as usual. A single
// run longer than two seconds shows a progress line on stderr when stderr is a terminal: cycles
// and simulated time, CTAs done, elapsed wall time and the simulation rate; nothing otherwise.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "core/gpu.h"

namespace simfa::cli {

// Installs the SIGINT handler (once; main() calls it).
void install_interrupt_handler();
// Throws InterruptedError when Ctrl-C was pressed.
void check_interrupted();

// The poll of one run: interrupts, and the progress line (clearing it when destroyed).
class RunProgressLine {
 public:
  explicit RunProgressLine(double clock_hz);
  ~RunProgressLine();
  RunProgressLine(const RunProgressLine&) = delete;
  RunProgressLine& operator=(const RunProgressLine&) = delete;
  std::function<void(const core::RunProgress&)> poll();
  // Clears the line (if one was shown) and shows no more; the destructor does it too.
  void finish();

 private:
  void update(const core::RunProgress& p);
  double clock_hz_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

// The poll of runs whose progress is reported otherwise (validate, ablate): interrupts only.
std::function<void(const core::RunProgress&)> interrupt_poll();

}  // namespace simfa::cli
