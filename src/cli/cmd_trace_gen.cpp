// `simfa trace gen`: writes the synthesized FA3 trace of a workload as a trace directory.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/workload_flags.h"
#include "sim/error.h"
#include "trace/io.h"
#include "workload/fa3_source.h"

namespace simfa::cli {

void add_trace_gen_command(CLI::App& trace) {
  auto* gen = trace.add_subcommand("gen", "write the synthesized FlashAttention-3 trace of a workload");
  struct Opts {
    WorkloadFlags w;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  add_workload_flags(gen, o->w);
  gen->add_option("-o,--output", o->out, "output directory (kernel.sft + one file per CTA)")->required()
      ->check(output_dir());
  gen->callback([o] {
    const Config cfg = workload_config(o->w);
    if (cfg.s("sample.mode") != "off")
      throw UserError(fmt::format("sample.mode = {} ({}): sampling applies to a simulation; trace gen writes every "
                                  "instruction of the kernel (drop the key, or simulate with simfa run)",
                                  cfg.s("sample.mode"), cfg.origin("sample.mode")));
    workload::Fa3Source src(workload_shape(o->w), cfg, static_cast<int>(cfg.i("gpu.num_sms")));
    trace::write_trace_dir(o->out, src);
    const auto& k = src.kernel();
    std::cout << fmt::format("wrote {} ({} CTAs of {} WarpGroups, cluster {}) to {}\n", k.name, k.ctas,
                             src.wgs_per_cta(0), k.cluster, o->out);
  });
}

}  // namespace simfa::cli
