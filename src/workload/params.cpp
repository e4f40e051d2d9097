// Configuration keys of the FA3 workload. Each default is FA3's own choice ("auto" resolves from the
// kernel version, the shape and the GPU exactly as FA3's launch code does) and names its source.
#include "workload/params.h"

#include "sim/config.h"
#include "sim/variants.h"
#include "workload/fa3_kernel.h"

namespace simfa::workload {

void register_workload_params(ParamRegistry& r) {
  using T = ParamType;
  // Sampled simulation (docs/sampling.md). These are the sampler's method parameters, not
  // properties of a GPU: they trade simulation time against the sampling error it reports.
  r.add({"sample.mode", T::Enum, "off", "",
         "sampled simulation of FA3: 'on' simulates windows in detail and fast-forwards the steady state "
         "in between (docs/sampling.md); 'off' simulates every block",
         "docs/sampling.md", 0, 0, {"off", "on"}});
  r.add({"sample.window_blocks", T::Int, "8", "blocks",
         "a measurement window ends when the running CTAs completed this many KV blocks each",
         "docs/sampling.md (method parameter)", 1, 1000000, {}});
  r.add({"sample.warmup_windows", T::Int, "2", "windows",
         "windows dropped at the start (cold caches, pipeline fill) before the fit uses any",
         "docs/sampling.md (method parameter)", 0, 1000, {}});
  r.add({"sample.min_windows", T::Int, "4", "windows",
         "steady-state windows before the first fast-forward span",
         "docs/sampling.md (method parameter)", 1, 1000, {}});
  r.add({"sample.tolerance", T::Float, "0.01", "fraction",
         "steady state: the block cost fitted on the latest sample.min_windows windows is within this "
         "fraction of the fit on the windows before them",
         "docs/sampling.md (method parameter)", 0.0001, 1, {}});
  r.add({"sample.checks", T::Int, "2", "checks",
         "detail check points between fast-forward spans (each measures the fit's error and refines it)",
         "docs/sampling.md (method parameter)", 0, 1000, {}});
  r.add({"sample.check_windows", T::Int, "2", "windows",
         "windows per check point", "docs/sampling.md (method parameter)", 1, 1000, {}});
  r.add({"sample.drift", T::Bool, "true", "",
         "fast-forward spans let the CTAs drift apart as measured: each cluster's wake-up moves by the span's "
         "time times its pace in the latest detail period (relative to all CTAs; single-CTA clusters at "
         "their SM pair's pace), bounded by the DRAM burst of the tile starts, when that burst is longer "
         "than mem.lrc.window; and the two CTAs of an SM pair move apart as their offset (the time between "
         "their marks of the same KV block) grew so far, in proportion to the time since launch, within half "
         "a block (false: every cluster skips the same time and keeps its offset)",
         "docs/sampling.md step 4 (method choice: the full-detail runs' offsets between CTAs that share K/V "
         "grow while a late CTA queues behind the tile starts' DRAM reads, and stop at about that burst; "
         "the L2 request coalescer merges only within an SM pair, so the pair's own offset sets the L2 "
         "request bytes)",
         0, 0, {}});
  r.add({"sample.first_reads", T::Bool, "true", "",
         "fast-forward spans predict every cluster's blocks together, in time order: a KV block whose K/V "
         "no CTA has read within the L2's residency, or read less than the DRAM's mean read latency "
         "earlier, costs the measured time of such blocks in detail, one whose K/V is in the L2 the "
         "measured time of those; where the two differ by less than sample.tolerance or not significantly, "
         "and with false, every block costs the fitted block cost",
         "docs/sampling.md step 4 (method choice: in full-detail runs a CTA that reads a K/V block first "
         "waits for DRAM, one that reads it later hits the L2 and catches up, and they lock in step)",
         0, 0, {}});
  r.add({"sample.drift_warning", T::Float, "0.05", "fraction",
         "the report warns that L2 request bytes and MSHR merges may be off by several percent or more, either way, when the L2 "
         "sectors a KV block requests rise by more than this fraction from the first detail period to the "
         "last (the CTAs drift apart, which fast-forward spans follow only in part: sample.drift)",
         "docs/sampling.md step 9 (method parameter: on the accuracy and holdout sets the rise is 29-98% "
         "where CTAs drift, with L2 bytes from -4.3% to +7.5%, and -1.2% to +1.6% elsewhere, with L2 bytes "
         "within 2.9%)", 0.0001, 100, {}});
  r.add({"sample.tail_blocks", T::Int, "128", "blocks",
         "KV blocks at the end of every CTA that always run in detail (the kernel's tail, where the L2's "
         "final contents and so the DRAM writes form)",
         "docs/sampling.md (method parameter; 16 until session 22, \"Accuracy and speed\")", 1, 1000000000, {}});
  r.add({"sample.min_skip_blocks", T::Int, "16", "blocks",
         "a CTA's fast-forward must skip at least this many blocks (shorter spans run in detail)",
         "docs/sampling.md (method parameter)", 1, 1000000000, {}});
  r.add({"sample.replay_slice_stride", T::Int, "1", "slices",
         "span replay: every this-many-th L2 slice of each partition is a replay slice (1: every slice); "
         "its counted sets (sample.replay_set_stride) run every line of the skipped work through their "
         "tags in order, and their DRAM reads, write-backs and misses, scaled to the whole L2, are the "
         "skipped work's (set sampling, Kessler et al. 1994); 0 = extrapolate them from the windows' fit",
         "docs/sampling.md step 5 (method parameter; whole slices, 8, until session 21: their slice "
         "hash's structure biased the DRAM reads by up to 4.6% on a full-detail run)", 0, 1024, {}});
  r.add({"sample.replay_after_drain", T::Bool, "true", "",
         "span replay: wait until every cut WarpGroup sleeps and no memory request is in flight, so that "
         "what they issued before their sleeps (a finished tile's O stores, the next block's loads) "
         "reaches the L2 before the skipped work's traffic, as in the real kernel; false = replay when "
         "the last cluster is cut",
         "docs/sampling.md step 5 (mechanism switch; off until session 22)", 0, 0, {}});
  r.add({"sample.replay_set_stride", T::Int, "8", "set classes",
         "span replay: the replay slices count the sets of every this-many-th set class (a power of two "
         "up to 64; the classes hash the set index) and warm the others like the other slices; "
         "sample.replay_lines may raise it",
         "docs/sampling.md step 5 (method parameter: 1/8 of the L2, as the 10 of 80 whole slices before)",
         1, 64, {}});
  r.add({"sample.replay_lines", T::Float, "2e7", "lines",
         "span replay's budget: when the skipped work would put more lines than this through the counted "
         "sets, the replay slices count only the sets of every k-th set class (k a power of two from "
         "sample.replay_set_stride up to 64, at least 256 sets left) and scale by the sets too; the "
         "other sets are warmed like the other slices",
         "docs/sampling.md (method parameter)", 1000, 1e15, {}});
  r.add(variant_param("fa3.kernel", "fa3",
                      "which attention kernel is modelled (simfa-attn fixes every other structural key; "
                      "fa3.intra_wg_overlap stays free)",
                      "gpu/attn/attn_kernel.cuh; docs/fa3-workload.md 'The simfa-attn kernel'; paper §6.1 (cutile)",
                      kernel_variants()));
  r.add({"fa3.version", T::Enum, "current", "",
         "FA3 forward kernel version: 'current' (HEAD 0251105a) or 'original' (first release 7f67966c, "
         "what the FA3 paper measured)",
         "fa3-kernel.md header", 0, 0, version_variants().names()});
  r.add({"fa3.recipe", T::Enum, "source", "",
         "trace recipe: 'source' follows the FA3 code; 'paper' applies the seed paper's §5.2 translation "
         "(one TMA per tile, paper ping-pong placement, every consumer waits, one 988-cycle-style bubble)",
         "issue 4; fa3-kernel.md §8", 0, 0, recipe_variants().names()});
  r.add({"fa3.tile_m", T::Int, "0", "rows",
         "kBlockM (T_M): query rows per CTA tile (0 = the kernel's: FA3's tile_size_fwd_sm90, cuTile's 64, "
         "simfa-attn's 128); the simulator takes 64, 128, 192 or 256, the analytic model any value up to 4096",
         "fa3-kernel.md §0", 0, 4096, {}});
  r.add({"fa3.tile_n", T::Int, "0", "rows",
         "kBlockN (T_N): KV rows per mainloop block (0 = the kernel's: FA3's table, cuTile's 32, simfa-attn's "
         "176); the simulator takes multiples of the WGMMA K (16, FP8 32) up to 256, the analytic model any value up to 4096",
         "fa3-kernel.md §0", 0, 4096, {}});
  r.add({"fa3.splits", T::Int, "0", "splits",
         "split-KV pieces per query tile (FA3's num_splits): 0 = FA3's num_splits heuristic (what "
         "flash_attn_with_kvcache runs), 1 = no split (flash_attn_func), N = forced. The analytic model "
         "models every value; the cycle simulator synthesizes the unsplit kernel only: it refuses N > 1 and "
         "warns when the heuristic would split",
         "fa3-kernel.md §7 (hopper/heuristics.h num_splits_heuristic)", 0, 256, {}});
  r.add({"fa3.stages", T::Int, "2", "stages", "K and V pipeline stages (kStages)",
         "fa3-kernel.md §0: always 2 on SM90", 1, 7, {}});
  r.add({"fa3.intra_wg_overlap", T::Enum, "auto", "",
         "overlap softmax(j) with PV(j+1) inside a consumer WarpGroup (auto = FA3: on)",
         "fa3-kernel.md §0, §3.1-3.2", 0, 0, {"auto", "on", "off"}});
  r.add({"fa3.pingpong", T::Enum, "auto", "",
         "inter-WarpGroup ping-pong scheduler barrier (auto = FA3's UseSchedulerBarrier rule)",
         "fa3-kernel.md §3.1 'When the ping-pong barrier is on'", 0, 0, {"auto", "on", "off"}});
  r.add({"fa3.cluster", T::Enum, "auto", "",
         "CTAs per cluster; K/V are multicast across the cluster (auto = FA3's launch rule)",
         "fa3-kernel.md §0, §2.1", 0, 0, cluster_variants().names()});
  r.add({"fa3.scheduler", T::Enum, "auto", "",
         "tile scheduler: 'static' persistent (M fastest), 'dynamic' (current: LPT + L2 sections, tiles "
         "claimed through an atomic counter in the order CTAs finish) or 'counter' (74b0761f: claimed "
         "through the counter, static M-fastest order); auto = static if non-causal, else dynamic "
         "(current) or counter (original; docs/fa3-workload.md 'Tile schedulers')",
         "fa3-kernel.md §4.3, §5", 0, 0, {"auto", "static", "dynamic", "counter"}});
  r.add({"fa3.grid", T::Int, "0", "CTAs",
         "persistent grid size (0 = FA3: the SM count; the original release hard-coded 132)",
         "fa3-kernel.md §1.2, §5", 0, 1 << 20, {}});
  r.add({"fa3.pack_gqa", T::Enum, "auto", "",
         "pack the query heads of one KV head into the M dimension (auto = FA3's should_pack_gqa)",
         "fa3-kernel.md §5 PackGQA; hopper/heuristics.h", 0, 0, {"auto", "on", "off"}});
  r.add({"fa3.tma_per_tile", T::Enum, "auto", "",
         "TMA instructions per K/V/Q tile: 'swizzle' = one per swizzle-width column slab (FA3: two "
         "64-column halves for hdim 128), 'tile' = one per tile (paper); auto follows fa3.recipe",
         "fa3-kernel.md §2.1, §8", 0, 0, {"auto", "swizzle", "tile"}});
  r.add({"fa3.consumer_waits", T::Enum, "auto", "",
         "which consumer WarpGroups wait on K/V full barriers in the steady state: 'first' (current FA3 "
         "with ping-pong) or 'all'; auto follows the version and recipe",
         "fa3-kernel.md §3.1 step 3.1, §3.3", 0, 0, {"auto", "first", "all"}});
  r.add({"fa3.pingpong_placement", T::Enum, "auto", "",
         "where the ping-pong barriers sit: 'source' (sync own barrier before QK, arrive other's after "
         "PV) or 'paper' (§5.2); auto follows fa3.recipe",
         "fa3-kernel.md §8; paper §5.2", 0, 0, {"auto", "source", "paper"}});
  r.add({"fa3.bubbles", T::Enum, "auto", "",
         "softmax bubble placement: 'source' (each CUDA-core step where FA3 runs it) or 'paper' (one "
         "lump of rowmax+exp+rowsum+convert+rescale after wait_group 1); auto follows fa3.recipe",
         "paper §5.2; fa3-kernel.md §3", 0, 0, {"auto", "source", "paper"}});
  r.add({"fa3.bubble_costs", T::Enum, "auto", "",
         "cost model of the CUDA-core bubbles: 'pipes' (per-thread instruction counts of FA3's softmax on "
         "the SM sub-partition's pipes with its dependency chains, sm.*_ops_per_cycle and sm.*_latency) "
         "or 'paper' (§5.2: ceil(operations / SM unit rate)); auto = paper with fa3.recipe = paper, "
         "else pipes",
         "paper §5.2; docs/fa3-workload.md 'Bubble costs'", 0, 0, {"auto", "pipes", "paper"}});
  r.add({"fa3.mask_ops_per_element", T::Float, "2", "ops",
         "FP32-pipe operations per score element of a masked block (compare and select)",
         "fa3-kernel.md §4.2: per-element compare and select", 0, 64, {}});
  r.add({"fa3.l2_swizzle_budget", T::Size, "32MiB", "bytes",
         "K+V bytes the dynamic scheduler assumes fit in L2 when it sizes a head section",
         "fa3-kernel.md §4.3 (32 MB in tile_scheduler.hpp)", 1, 1e15, {}});
  r.add({"fa3.dynamic_overhead_blocks", T::Float, "1", "blocks",
         "per-tile cost, in mainloop blocks, added to a tile's block count when the dynamic "
         "scheduler's claim order is predicted (epilogue and prologue)",
         "modelling choice: tiles are claimed in predicted finish order (docs/fa3-workload.md)", 0, 1e6, {}});
}

}  // namespace simfa::workload
