// The log translator (paper §5.2): turns an instrumentation log of an FA3 forward kernel into the
// simulator's trace. `Fa3LogSource` is a trace::TraceSource like the synthesizer's Fa3Source, so a
// log can be simulated directly or written with trace::write_trace_dir.
//
// Contract:
//  - The kernel (implementation, shape, tiles, version, recipe, ...) is the synthesizer's
//    `resolve_fa3` for the shape the log's TensorMaps describe (Q, K, V, O = ids 0..3; simfa-attn,
//    fa3.kernel = simfa-attn, records Q, K and V only) and the launch the header records (grid ->
//    fa3.grid, WarpGroups per CTA -> fa3.tile_m, K box rows -> fa3.tile_n, each only when the
//    configuration leaves the key at its default); the other fa3.* keys come from `cfg`. The log's
//    TensorMaps, dimensions put in stride order, must then equal the kernel's (bases excepted: the
//    trace keeps the log's; simfa-attn's O and LSE go after the highest of Q, K and V).
//  - Each logged event becomes the instructions the synthesizer emits for that FA3 operation
//    (workload::Fa3Emitter), and the kernel's instructions that have no event (the Q wait and
//    release, stage releases after the wgmma waits, the ping-pong and epilogue barriers, the O
//    store, bubbles) are inserted where the kernel runs them, so a log recorded from a schedule
//    translates to exactly the synthesizer's instructions for that schedule.
//  - Everything is checked in the constructor, before any simulation: a log whose events do not
//    fit the FA3 kernel throws UserError naming the block, warp and entry. The CTAs are translated
//    again, one at a time, when the simulator opens them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "instr/event_log.h"
#include "spec/attention.h"
#include "trace/source.h"
#include "workload/fa3_kernel.h"

namespace simfa {
class Config;
}

namespace simfa::translate {

enum class BubbleMode : std::uint8_t {
  Model,     // the §5.2 formula, as the synthesizer computes it (fa3.bubbles / fa3.recipe)
  Measured,  // bubbles bracketed by SOFTMAX_START / SOFTMAX_END (simfa-attn also EPILOGUE_START /
             // EPILOGUE_END) take the measured time; clock64 ticks count 1:1 as cycles
};
BubbleMode parse_bubble_mode(const std::string& text);  // "model" | "measured"; UserError otherwise

struct TranslateOptions {
  BubbleMode bubbles = BubbleMode::Model;
  bool causal = false;                       // the log does not record the mask
  spec::DType dtype16 = spec::DType::FP16;   // 2-byte elements: FP16 or BF16 (not in the log)
};

// The FA3 kernel the log was recorded from (see the contract above). UserError when the log lacks
// the FA3 TensorMaps or describes a launch the kernel cannot have.
workload::Fa3Kernel fa3_kernel_from_log(const instr::EventLog& log, const Config& cfg, int num_sms,
                                        const TranslateOptions& opt = {});

struct TranslatedWg {
  std::string role;  // "producer", "consumer0", ...
  std::vector<trace::Instr> code;
};

class Fa3LogSource final : public trace::TraceSource {
 public:
  // `cfg` supplies the fa3.* keys, the unit rates of the bubble formula and gpu.clock (measured
  // bubbles); `num_sms` is the simulated GPU's SM count. Throws UserError (see the contract).
  Fa3LogSource(instr::EventLog log, const Config& cfg, int num_sms, TranslateOptions opt = {});
  ~Fa3LogSource() override;

  const trace::KernelInfo& kernel() const override;
  std::uint32_t wgs_per_cta(std::uint32_t cta) const override;
  trace::CtaProgram open(std::uint32_t cta) override;
  bool prevalidated() const override { return false; }

  // The translated instructions of CTA `cta`, one entry per WarpGroup.
  std::vector<TranslatedWg> translate_cta(std::uint32_t cta) const;
  const workload::Fa3Kernel& fa3() const;
  // Reader, deduplication and translation warnings (the log is still usable), one line each.
  const std::vector<std::string>& warnings() const;
  // Events translated and instructions emitted over the whole log (filled by the constructor).
  std::uint64_t events() const;
  std::uint64_t instructions() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace simfa::translate
