// `simfa translate LOG`: turns an instrumentation log of an FA3 kernel into a simfa trace
// (paper §5.2): checks it, prints a summary and, with -o, writes the trace directory that
// `simfa trace run` simulates. Warnings go to stderr; errors are one line (exit 2).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "instr/log_reader.h"
#include "sim/error.h"
#include "trace/io.h"
#include "translate/fa3_log_source.h"

namespace simfa::cli {

void add_translate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("translate", "translate an instrumentation log (.evlog) into a simfa trace");
  struct Opts {
    std::string log, out, kernel, bubbles = "model", dtype = "fp16";
    bool causal = false;
    GpuOptions gpu;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("log", o->log, "event log written by EvlogHost or the logger emulator")->required();
  cmd->add_option("-o,--output", o->out, "write the trace here (kernel.sft + one file per CTA)")
      ->check(output_dir());
  cmd->add_option("--kernel", o->kernel,
                  "kernel the log comes from: fa3 (FlashAttention-3) or simfa-attn (gpu/attn); sets fa3.kernel "
                  "(default: fa3)");
  cmd->add_option("--bubbles", o->bubbles,
                  "softmax bubbles: 'model' (the paper's formula) or 'measured' (SOFTMAX_START/END gaps)")
      ->capture_default_str();
  cmd->add_flag("--causal", o->causal, "the kernel ran with a causal mask (the log does not record it)");
  cmd->add_option("--dtype", o->dtype, "element type of 2-byte tensors: fp16 or bf16 (1-byte: fp8)")
      ->capture_default_str();
  add_gpu_options(cmd, o->gpu, /*ablate=*/false);
  cmd->callback([o] {
    translate::TranslateOptions opt;
    opt.bubbles = translate::parse_bubble_mode(o->bubbles);
    opt.causal = o->causal;
    const spec::DType dt = spec::parse_dtype(o->dtype, "--dtype");
    if (dt == spec::DType::FP8_E4M3)
      throw UserError("--dtype fp8: FP8 is recognised from 1-byte TensorMaps; --dtype picks fp16 or bf16");
    opt.dtype16 = dt;
    Config cfg = make_config(o->gpu);
    if (!o->kernel.empty()) set_kernel(cfg, o->kernel);
    require_simulatable(cfg);  // the trace is of a Hopper kernel, timed for this GPU's simulation
    translate::Fa3LogSource src(instr::read_log(o->log), cfg, static_cast<int>(cfg.i("gpu.num_sms")), opt);
    for (const auto& w : src.warnings()) std::cerr << "simfa: warning: " << w << "\n";
    const auto& k = src.kernel();
    std::cout << fmt::format("{}: {} ({} CTAs of {} WarpGroups, cluster {}): {} events -> {} instructions\n",
                             o->log, k.name, k.ctas, src.wgs_per_cta(0), k.cluster, src.events(),
                             src.instructions());
    if (!o->out.empty()) {
      trace::write_trace_dir(o->out, src);
      std::cout << fmt::format("wrote {}\n", o->out);
    }
  });
}

}  // namespace simfa::cli
