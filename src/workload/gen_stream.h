// GenStream: an InstrStream over a StepGen coroutine (workload/step_gen.h), shared by the
// synthesized workloads (FA3, GEMM): it refills its buffer one step at a time while the simulator
// pulls instructions.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trace/source.h"
#include "workload/step_gen.h"

namespace simfa::workload {

// An InstrStream over a StepGen: refills its buffer one step at a time.
class GenStream final : public trace::InstrStream {
 public:
  // one_step: read() returns at most the rest of one step, so that the next step is generated
  // when the WarpGroup has issued the previous one (the sampler's clock readings; sampled runs).
  GenStream(std::string name, bool one_step = false) : name_(std::move(name)), one_step_(one_step) {}
  void start(StepGen g) { gen_ = std::move(g); }
  std::vector<trace::Instr>* buffer() { return &buf_; }

  std::size_t read(trace::Instr* out, std::size_t max) override {
    std::size_t n = 0;
    while (n < max) {
      if (pos_ == buf_.size()) {
        if (one_step_ && n > 0) break;
        buf_.clear();
        pos_ = 0;
        while (buf_.empty() && !gen_.done()) gen_.step();
        if (buf_.empty()) break;
      }
      const std::size_t take = std::min(max - n, buf_.size() - pos_);
      std::copy_n(buf_.begin() + static_cast<std::ptrdiff_t>(pos_), take, out + n);
      pos_ += take;
      n += take;
    }
    return n;
  }
  std::string where(std::uint64_t index) const override {
    return fmt::format("{} instruction {}", name_, index);
  }

 private:
  std::string name_;
  bool one_step_ = false;
  std::vector<trace::Instr> buf_;
  std::size_t pos_ = 0;
  StepGen gen_;  // declared last: destroyed first, while the buffer it points to still exists
};

}  // namespace simfa::workload
