// `simfa trace gen`: writes the synthesized trace of a workload (FA3 or GEMM) as a trace directory.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/workload_flags.h"
#include "sim/error.h"
#include "trace/io.h"

namespace simfa::cli {

void add_trace_gen_command(CLI::App& trace) {
  auto* gen = trace.add_subcommand("gen", "write the synthesized trace of a workload (FlashAttention-3 by default, or --workload gemm)");
  struct Opts {
    WorkloadFlags w;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  add_workload_flags(gen, o->w);
  gen->add_option("-o,--output", o->out, "output directory (kernel.sft + one file per CTA)")->required()
      ->check(output_dir());
  gen->callback([o, gen] {
    check_workload_flags(*gen, o->w);
    const Config cfg = workload_config(o->w);
    if (cfg.s("sample.mode") != "off")
      throw UserError(fmt::format("sample.mode = {} ({}): sampling applies to a simulation; trace gen writes every "
                                  "instruction of the kernel (drop the key, or simulate with simfa run)",
                                  cfg.s("sample.mode"), cfg.origin("sample.mode")));
    const std::unique_ptr<Workload> w = make_workload(o->w, cfg);
    for (const auto& warning : w->warnings()) std::cerr << "simfa: warning: " << warning << "\n";
    trace::TraceSource& src = w->source();
    trace::write_trace_dir(o->out, src);
    const auto& k = src.kernel();
    std::cout << fmt::format("wrote {} ({} CTAs of {} WarpGroups, cluster {}) to {}\n", k.name, k.ctas,
                             src.wgs_per_cta(0), k.cluster, o->out);
  });
}

}  // namespace simfa::cli
