// One vocabulary: every quantity a user states, with its one name in each place it can be stated —
// the command line's flag, the configuration key (--set, GPU files), Python's keyword, the study
// file's key and the column of the tables simfa writes or reads. `simfa config show --markdown`
// prints it into docs/configuration.md ("One vocabulary"); tests hold each name to the program
// (the flag in the commands' --help, the key in the registry, the keyword in Python's signatures).
//
// A quantity has one name per place. Where a place has a second spelling it is an exact alias,
// listed in `aliases`: the analytic model's flags (--tile-m is --set fa3.tile_m), Python's analyze
// keywords (tile_m), the old --kv-seqlen and the measurements column kv_seqlen.
#pragma once
#include <string_view>

namespace simfa {

struct Term {
  std::string_view quantity;
  std::string_view flag;     // "" : no flag (give the key with --set)
  std::string_view key;      // "" : not a configuration key (a shape key, a choice of command)
  std::string_view keyword;  // Python (simfa.run / simfa.analyze)
  std::string_view study;    // the study file (the shape key or the configuration key)
  std::string_view column;   // results: simfa analyze --csv/--json points, the results database, the measurements CSV
  std::string_view aliases;  // exact aliases and where they are accepted
};

inline constexpr Term kVocabulary[] = {
    {"workload (fa3, gemm)", "--workload", "", "workload (run)", "workload", "workload", ""},
    {"model preset (heads, head_dim)", "--model", "", "model", "model", "model", ""},
    {"batch B", "--batch", "", "batch", "batch", "batch", ""},
    {"query and KV length L = S", "--seqlen", "", "seqlen", "seqlen", "seqlen (measurements)",
     "the results give seqlen_q and seqlen_kv"},
    {"query length L", "--seqlen-q", "", "seqlen_q", "seqlen_q", "seqlen_q", ""},
    {"KV length S", "--seqlen-kv", "", "seqlen_kv", "seqlen_kv", "seqlen_kv",
     "--kv-seqlen (flag), kv_seqlen (measurements column): the old names"},
    {"KV heads H_KV", "--heads-kv", "", "heads_kv", "heads_kv", "heads_kv", ""},
    {"query heads per KV head G", "--group", "", "group", "group", "group",
     "the measurements CSV gives heads (H_KV x G) instead"},
    {"head dimension D", "--head-dim", "", "head_dim", "head_dim", "head_dim", ""},
    {"data type", "--dtype", "", "dtype", "dtype", "dtype", ""},
    {"causal mask", "--causal", "", "causal", "causal", "causal", ""},
    {"GEMM M, N, K", "--m, --n, --k", "", "m, n, k (run)", "m, n, k", "m, n, k", ""},
    {"GPU", "--gpu", "", "gpu", "gpu", "gpu; gpu_name (gpu.name)", ""},
    {"GPU architecture", "", "gpu.arch", "set", "gpu.arch", "gpu.arch (analyze --json)", ""},
    {"SM clock", "--clock-mhz (MHz)", "gpu.clock", "clock_mhz (run)", "gpu.clock", "clock_mhz",
     "--clock-mhz N is --set gpu.clock=NMHz"},
    {"SMs N_SM", "--num-sms (analyze, plot)", "gpu.num_sms", "num_sms (analyze)", "gpu.num_sms", "num_sms",
     "--num-sms, num_sms: aliases of gpu.num_sms"},
    {"attention kernel (fa3, simfa-attn, cutile)", "--kernel (analyze, plot, validate, translate)", "fa3.kernel",
     "kernel (analyze)", "fa3.kernel", "kernel", "--kernel, kernel: aliases of fa3.kernel"},
    {"query tile rows T_M", "--tile-m (analyze, plot)", "fa3.tile_m", "tile_m (analyze)", "fa3.tile_m", "tile_m",
     "--tile-m, tile_m, --sweep tile_m: aliases of fa3.tile_m"},
    {"KV block rows T_N", "--tile-n (analyze, plot)", "fa3.tile_n", "tile_n (analyze)", "fa3.tile_n", "tile_n",
     "--tile-n, tile_n, --sweep tile_n: aliases of fa3.tile_n"},
    {"split-KV pieces", "--splits (analyze, plot; auto = 0)", "fa3.splits", "splits (analyze)", "fa3.splits",
     "num_splits (resolved)", "--splits, splits, --sweep splits: aliases of fa3.splits"},
    {"PackGQA", "--pack-gqa (analyze, plot)", "fa3.pack_gqa", "pack_gqa (analyze)", "fa3.pack_gqa",
     "pack_gqa (resolved, 0/1)", "--pack-gqa, pack_gqa: aliases of fa3.pack_gqa"},
    {"cluster size", "", "fa3.cluster", "set", "fa3.cluster", "cluster (resolved)", ""},
    {"resident CTAs per SM O_limit (analytic model)", "--occupancy (analyze, plot)", "model.occupancy",
     "occupancy (analyze)", "model.occupancy", "occupancy", "--occupancy, occupancy: aliases of model.occupancy"},
    {"effective L2 of Eq. 4", "--l2-effective-mib (analyze, plot; MiB)", "model.l2_effective",
     "l2_effective_mib (analyze; MiB)", "model.l2_effective", "l2_effective_bytes",
     "--l2-effective-mib X, l2_effective_mib: aliases of model.l2_effective=XMiB"},
    {"paper Table 5 ablation", "--ablate", "", "ablate (run)", "ablate", "",
     "no-lrc, simple-hash, no-dedup set mem.lrc.enabled, mem.l2.hash, tma.dedup"},
    {"any other configuration key", "--set KEY=VALUE", "KEY", "set={KEY: VALUE}", "KEY", "KEY (results database)",
     ""},
};

}  // namespace simfa
