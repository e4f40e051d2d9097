// Configuration keys of the GPU and SM core, with their sources.
#include "core/params.h"

#include "core/warp_scheduler.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/variants.h"

namespace simfa::core {

namespace {
constinit const Variant<ClockModel> kPowerLimitedClock{
    "power-limited",
    "min(gpu.clock, gpu.power_limited_clock) (FA3 keeps the tensor pipe busy, and a 700 W Hopper part does not "
    "hold 1830 MHz doing that)",
    ClockModel::PowerLimited};
constinit const Variant<ClockModel> kFixedClock{
    "fixed", "gpu.clock as given (a clock measured during the run; a part that holds its lock)", ClockModel::Fixed};
constinit const Variant<ArchSupport> kHopper{
    "hopper",
    "sm_90 (H100, H200, H800): WGMMA tensor cores, TMA, mbarriers, thread-block clusters; what the cycle simulator "
    "models",
    {true, ""}};
constinit const Variant<ArchSupport> kBlackwell{
    "blackwell",
    "sm_100 (B200, GB200): tensor cores issued by tcgen05.mma (UMMA) with accumulators in tensor memory; the "
    "analytic model only",
    {false,
     "tcgen05 UMMA (MMA issued by one thread, accumulators in the 256 KB of tensor memory per SM; sm_100 has no "
     "WGMMA, which is the simulator's tensor-core model), tensor memory and its tcgen05.ld/st/cp traffic, "
     "CTA-pair (2-SM) UMMA, and a Blackwell attention kernel (FlashAttention-4, cuTile) to synthesize traces of"}};
constinit const Variant<ArchSupport> kBlackwellSm12x{
    "blackwell-sm12x",
    "compute capability 12.x (GB10, RTX 50 series): tensor cores issued by warp-level mma.sync, neither WGMMA nor "
    "tcgen05; the analytic model only",
    {false,
     "warp-level mma.sync tensor cores (compute capability 12.x has neither WGMMA, which is the simulator's "
     "tensor-core model, nor tcgen05 and tensor memory), an LPDDR5X memory model (the simulator's DRAM is HBM), "
     "and the attention kernel that runs there (the paper's §6: cuTile) to synthesize traces of"}};
}  // namespace

const VariantList<ArchSupport>& gpu_archs() {
  static const VariantList<ArchSupport> list("gpu.arch", "GPU architecture", {&kHopper, &kBlackwell, &kBlackwellSm12x});
  return list;
}

const VariantList<ClockModel>& clock_models() {
  static const VariantList<ClockModel> list("gpu.clock_model", "clock model", {&kPowerLimitedClock, &kFixedClock});
  return list;
}

void register_core_params(ParamRegistry& r) {
  using T = ParamType;
  r.add({"gpu.name", T::String, "H800 SXM5", "", "GPU model name (informational)", "preset"});
  r.add(variant_param("gpu.arch", "hopper",
                      "GPU architecture; simulating paths (run, trace gen/run, validate, ablate, microbench, Python "
                      "simfa.run) refuse one the cycle simulator does not model, analyze covers all",
                      "per preset (../shared/reference/hardware.md)", gpu_archs()));
  r.add({"gpu.assumed", T::String, "", "",
         "configuration keys (comma-separated) whose values in this GPU description are assumptions, not published "
         "or measured figures; simfa analyze names them in a warning",
         "per preset (each preset's comments say why)"});
  r.add({"gpu.num_sms", T::Int, "132", "SMs", "streaming multiprocessors", "paper Table 2 (H800 SXM)", 1, 4096});
  r.add({"gpu.clock", T::Frequency, "1830MHz", "Hz",
         "SM clock the GPU is set to (locked or boost); all core cycles are of the clock a run uses "
         "(gpu.clock_model)",
         "paper §5.3: H800 locked at 1830 MHz", 1e6, 1e10});
  r.add({"gpu.power_limited_clock", T::Frequency, "0", "Hz",
         "highest SM clock the board's power limit lets the GPU hold under a saturating tensor-core load "
         "(0: no limit)",
         "per preset, measured by gpu/ubench/clock.cu (data/measured/h200/ubench/clock.csv)", 0, 1e10});
  r.add(variant_param("gpu.clock_model", "power-limited",
                      "clock of kernel runs (run, trace run, validate, Python; microbenchmarks always use gpu.clock)",
                      "data/measured/h200/ubench/clock.csv, attn_clock.csv; ../shared/reference/sm-compute.md "
                      "'Clocks under load'",
                      clock_models()));
  r.add({"gpu.cta_launch_cycles", T::Int, "0", "cycles",
         "delay between a CTA slot freeing and the next CTA starting there", "not calibrated", 0, 1e6});
  r.add({"sm.max_ctas", T::Int, "32", "CTAs", "resident CTAs per SM", "hardware.md (H100 deviceQuery)", 1, 1024});
  r.add({"sm.max_warps", T::Int, "64", "warps", "resident warps per SM", "hardware.md", 4, 4096});
  r.add({"sm.smem", T::Size, "228KiB", "bytes", "shared memory per SM", "hardware.md (H100 datasheet)", 1, 1e12});
  r.add({"sm.max_smem_per_cta", T::Size, "227KiB", "bytes", "largest shared-memory allocation of one CTA",
         "hardware.md (227 KB per block)", 1, 1e12});
  r.add({"sm.regs", T::Int, "65536", "registers", "32-bit registers per SM", "hardware.md", 1, 1e9});
  r.add({"sm.issue_width", T::Int, "1", "instructions/cycle",
         "WarpGroup instructions the SM issues per cycle (IPC limit)",
         "one WarpGroup instruction occupies the four sub-core schedulers for a cycle", 1, 64});
  r.add(variant_param("sm.scheduler", "gto", "physical-thread (WarpGroup) selection", "paper §4.2",
                      warp_schedulers()));
  r.add({"sm.fetch_chunk", T::Int, "64", "instructions",
         "instructions pulled from a trace stream at a time (memory vs. call overhead)", "design choice", 1, 1 << 20});
  r.add({"sm.cluster_multicast_cycles", T::Int, "1", "cycles",
         "extra delay for multicast TMA data to reach the peer CTA's shared memory", "not measured; the crossbar "
         "delivers the response to both SMs", 1, 1e6});
  r.add({"sm.cluster_signal_cycles", T::Int, "148", "cycles",
         "delay of a RELEASE_STAGE arrival on a peer CTA's barrier",
         "Luo et al. DSMEM: remote 181 - local 33 cycles (hardware.md)", 1, 1e6});
  // CUDA-core unit throughputs (the bubble formula of paper §5.2 uses them).
  r.add({"sm.fp32_ops_per_cycle", ParamType::Int, "128", "ops/cycle",
         "FP32 CUDA-core operations per SM per cycle (one per lane of the 4 x 32 FP32 units)",
         "paper §5.2 (128 threads, 1 FP32 op per cycle); NVIDIA H100 whitepaper: 128 FP32 cores per SM; "
         "measured 125 FFMA lanes/cycle/SM with loop overhead (data/measured/h200/ubench/pipes.csv)",
         1, 1e6, {}});
  r.add({"sm.fp16_ops_per_cycle", ParamType::Int, "256", "ops/cycle",
         "packed FP16 / conversion operations per SM per cycle",
         "paper §5.2 (FP32-to-FP16 conversion at 256 ops/cycle); used by the paper bubble formula only "
         "(the H200 packs 2 x 64 = 128 values/cycle/SM with F2FP: sm.alu_ops_per_cycle)", 1, 1e6, {}});
  r.add({"sm.mufu_ops_per_cycle", ParamType::Int, "16", "ops/cycle",
         "special-function (MUFU: exp2) operations per SM per cycle",
         "paper §5.2 and FA3 paper (Shah et al. 2024): 16 ops/SM/cycle = 3.9 TFLOPS on H100 SXM5; measured "
         "16.0 MUFU.EX2 lanes/cycle/SM on an H200 (data/measured/h200/ubench/pipes.csv)", 1,
         1e6, {}});
  // The pipe bubble model (fa3.bubble_costs = pipes): measured by gpu/ubench/pipes.cu on an H200,
  // one block on one SM, up to 32 warps x 8 independent chains (throughput) or one warp and one
  // chain (latency, loop overhead included): data/measured/h200/ubench/pipes.csv.
  const char* pipes = "data/measured/h200/ubench/pipes.csv (H200, gpu/ubench/pipes.cu)";
  r.add({"sm.alu_ops_per_cycle", ParamType::Float, "64", "ops/cycle",
         "FMNMX and F2FP (FP32 -> 16-bit pack of two) lane operations per SM per cycle",
         std::string(pipes) + ": FMNMX 63.6, F2FP 63.7 lanes/cycle/SM (half the FP32 rate)", 1, 1e6});
  r.add({"sm.shfl_ops_per_cycle", ParamType::Float, "32", "ops/cycle", "SHFL lane operations per SM per cycle",
         std::string(pipes) + ": SHFL.BFLY 32.0 lanes/cycle/SM", 1, 1e6});
  r.add({"sm.fp32_latency", ParamType::Float, "4.22", "cycles", "dependent latency of FFMA/FADD/FMUL",
         std::string(pipes) + ": 4.22 cycles per step of one dependent chain (loop overhead included)", 0, 1e6});
  r.add({"sm.alu_latency", ParamType::Float, "4.22", "cycles", "dependent latency of FMNMX and F2FP",
         std::string(pipes) + ": FMNMX 4.22, F2FP 4.22 cycles per step of one dependent chain", 0, 1e6});
  r.add({"sm.mufu_latency", ParamType::Float, "17", "cycles", "dependent latency of MUFU.EX2",
         std::string(pipes) + ": 17.0 cycles (FlashGPU-Sim's H100 note: 18.9)", 0, 1e6});
  r.add({"sm.shfl_latency", ParamType::Float, "24", "cycles", "dependent latency of SHFL.BFLY",
         std::string(pipes) + ": 24.0 cycles", 0, 1e6});
  r.add({"sm.smem_bytes_per_cycle", ParamType::Int, "128", "bytes/cycle",
         "shared-memory bandwidth per SM (32 banks x 4 bytes), used for the STSM epilogue bubble",
         "NVIDIA CUDA programming guide: 32 banks of 4 bytes per cycle", 1, 1e6, {}});
  r.add({"tma.launch_cycles", T::Int, "40", "cycles", "common launch latency of every TMA copy",
         "paper §4.3 (TMAU patent split of the 170-cycle TMA overhead)", 0, 1e6});
  r.add({"tma.tensormap_setup_cycles", T::Int, "65", "cycles", "TensorMap setup latency, tensor copies only",
         "measured once on tma_bandwidth.csv (h800-pcie): per-copy time of tensor1d minus bulk at equal "
         "bytes on the latency-bound points (1 KiB at 114/228/342/456 blocks: 66, 68, 64, 64; 2 KiB at "
         "114/228: 64, 64) -> 65; the paper's §4.3 split (40 launch + 130 setup) is of a 170-cycle total "
         "that the bulk chase of tma_latency.csv already covers", 0, 1e6});
  r.add({"tma.lines_per_cycle", T::Int, "2", "lines/cycle", "cache-line requests the TMA unit generates per cycle",
         "paper Table 2", 1, 64});
  r.add({"tma.max_inflight_sectors", T::Int, "512", "sectors",
         "outstanding requested 32-byte sectors per TMA unit (a line request holds as many as it touches)",
         "calibrated once on tma_bandwidth.csv (h800-pcie, 112 points): swept 256 (Table 2's 64 full "
         "lines), 384, 512, 1024 -> MAPE 12.9%, 11.6%, 10.6%, 11.6%; 512 lets one 16 KiB copy be in "
         "flight whole and 3D boxes with 16-byte rows keep 512 one-sector requests out "
         "(docs/validation.md)", 4, 1 << 20});
  r.add({"tma.queue_depth", T::Int, "16", "copies", "TMA request queue entries per SM (issue stalls when full)",
         "not published; large enough not to limit FA3 (4 copies per K/V step)", 1, 1 << 16});
  r.add({"tma.descriptor_cache_entries", T::Int, "8", "descriptors", "TensorMap descriptor cache entries per SM",
         "not published (TMAU patent describes a small cache)", 1, 1 << 16});
  r.add({"tma.descriptor_miss_cycles", T::Int, "258", "cycles", "extra latency of a descriptor-cache miss",
         "one L2 near hit (paper Table 2): the descriptor is fetched from global memory", 0, 1e6});
  r.add({"tma.dedup", T::Bool, "true", "", "deduplicate a box's addresses to unique cache lines (false: one "
         "request per element, the paper's ablation)", "paper §5.4"});
  r.add({"tensor.issue_buffer", T::Int, "16", "WGMMAs", "WGMMA instruction buffer (unfinished WGMMAs per SM)",
         "paper Table 2", 1, 1 << 16});
  r.add({"tensor.flops_per_cycle_16bit", T::Float, "4096", "FLOP/cycle",
         "dense FP16/BF16 tensor throughput per SM; m64nNk16 takes N/2 cycles",
         "989 TFLOPS / (132 SMs x 1.83 GHz) (hardware.md); Luo et al.: m64n256k16 = 128 cycles", 1, 1e9});
  r.add({"tensor.flops_per_cycle_fp8", T::Float, "8192", "FLOP/cycle", "dense FP8 tensor throughput per SM",
         "NVIDIA H100 datasheet: FP8 is twice FP16", 1, 1e9});
  r.add({"tensor.flops_per_cycle_tf32", T::Float, "2048", "FLOP/cycle", "dense TF32 tensor throughput per SM",
         "NVIDIA H100 datasheet: TF32 is half FP16", 1, 1e9});
  r.add({"tensor.min_wgmma_cycles", T::Int, "4", "cycles", "lower bound of one WGMMA's pipe occupancy (small N)",
         "N/2 rule for N = 8 (not measured below N = 64)", 1, 1e6});
  // WGMMA timing measured on an H200 (same GH100 SM as H100/H800) by gpu/ubench/wgmma.cu:
  // data/measured/h200/ubench/wgmma_chain.csv (chains of 1-24 m64nNk16, N 64/128/176/256, SS/RS).
  const char* chain = "data/measured/h200/ubench/wgmma_chain.csv (H200, gpu/ubench/wgmma.cu)";
  r.add({"tensor.rs_extra_cycles", T::Float, "5.4", "cycles",
         "extra pipe and issue cycles of a WGMMA whose A operand comes from registers (RS)",
         std::string(chain) + ": RS chains take 37.3/69.4/133.4 cycles per WGMMA for N 64/128/256 against "
         "N/2, and RS issue intervals are 5.4 above SS", 0, 1e6});
  r.add({"tensor.lone_latency_ss", T::Float, "54", "cycles",
         "a lone SS WGMMA: cycles from its issue to the release of wait_group, minus its pipe time",
         std::string(chain) + ": one WGMMA completes in 86/118/142/182 cycles for N 64/128/176/256 = N/2 + 54",
         1, 1e6});
  r.add({"tensor.lone_latency_rs", T::Float, "46.6", "cycles",
         "a lone RS WGMMA: cycles from its issue to the release of wait_group, minus its pipe time",
         std::string(chain) + ": 84/116/180 cycles for N 64/128/256 = N/2 + 5.4 + 46.6", 1, 1e6});
  r.add({"tensor.first_issue_ss", T::Float, "11", "cycles",
         "cycles a WarpGroup spends issuing an SS WGMMA that follows a non-WGMMA instruction",
         std::string(chain) + ": the first WGMMA of a chain takes 11 cycles to issue for every N", 1, 1e6});
  r.add({"tensor.first_issue_rs", T::Float, "19", "cycles",
         "cycles a WarpGroup spends issuing an RS WGMMA that follows a non-WGMMA instruction",
         std::string(chain) + ": 19 cycles for every N", 1, 1e6});
  r.add({"tensor.issue_per_column", T::Float, "0.125", "cycles",
         "issue cycles per N column of a WGMMA that follows another WGMMA (interval = N x this + "
         "tensor.issue_offset, + tensor.rs_extra_cycles for RS; at least 1)",
         std::string(chain) + ": SS issue intervals 4/12/18.5/28 for N 64/128/176/256 = N/8 - 4", 0, 1e6});
  r.add({"tensor.issue_offset", T::Float, "-4", "cycles", "constant term of the WGMMA issue interval",
         std::string(chain) + ": N/8 - 4", -1e6, 1e6});
  r.add({"tensor.max_outstanding", T::Int, "7", "WGMMAs",
         "WGMMAs one WarpGroup may have issued and not yet retired; the next one's issue waits",
         std::string(chain) + ": issue time jumps by N/2 per WGMMA from the 8th on; a queue of 7 fits all 77 "
         "points (mean error 0.07 cycles SS, 0.8 RS)", 1, 1 << 16});
  r.add({"tensor.slot_release_ss", T::Float, "38", "cycles",
         "cycles after an SS WGMMA leaves the pipe until its outstanding slot frees",
         std::string(chain) + ": fitted with tensor.max_outstanding = 7 (the simulator's pipe starts the cycle "
         "after issue; tests/core/wgmma_chain_test.cpp replays the whole CSV)", 0, 1e6});
  r.add({"tensor.slot_release_rs", T::Float, "68", "cycles",
         "cycles after an RS WGMMA leaves the pipe until its outstanding slot frees",
         std::string(chain) + ": fitted as tensor.slot_release_ss", 0, 1e6});
  r.add({"tensor.rs_slowdown_with_cuda", T::Float, "1.075", "x",
         "pipe time factor of an RS WGMMA that starts while another WarpGroup of the SM runs CUDA-core "
         "work (register-file reads of the A operand compete)",
         "data/measured/h200/ubench/interference.csv: 11 x m64n128k16 RS with the attention kernel's softmax "
         "running in another WarpGroup: 303140 / 281848 cycles = 1.075 (SS: 1.006, not modelled)", 1, 100});
  r.add({"sm.interference", T::Bool, "true", "",
         "CUDA-core work (BUBBLE) progresses slower while the SM's tensor pipe runs a WGMMA and while "
         "other WarpGroups' bubbles run (false: the ablation no-interference: every bubble takes its "
         "cycles)", "data/measured/h200/ubench/interference.csv, visit2/ubench/sharing.csv"});
  r.add({"sm.cuda_slowdown_under_ss", T::Float, "1.72", "x",
         "time factor of CUDA-core work while the tensor pipe runs an SS WGMMA",
         "data/measured/h200/ubench/interference.csv: the attention kernel's softmax + P conversion + O "
         "rescale (64 x 176 block, head dim 128) takes 1478516 / 861457 = 1.716x as long next to 8 x "
         "m64n176k16 SS; per instruction class FFMA 1.23, MUFU.EX2 1.37, FMNMX 1.96, F2FP 1.95", 1, 100});
  r.add({"sm.cuda_pair_slowdown", T::Float, "1.70", "x",
         "time factor of CUDA-core work while one other WarpGroup of the SM runs CUDA-core work too "
         "(three at once: sm.cuda_triple_slowdown); multiplies with the tensor-pipe factors",
         "data/measured/h200/visit2/ubench/sharing.csv: the attention kernel's softmax in two WarpGroups "
         "at once: 1.698 (FA3's fast-exp build 1.710; MUFU.EX2 alone 2.07, FFMA 1.14); with wgmma "
         "running as well the factors multiply (EX2 2.77 = 2.07 x 1.34)", 1, 100});
  r.add({"sm.cuda_triple_slowdown", T::Float, "2.25", "x",
         "time factor of CUDA-core work while two other WarpGroups of the SM run CUDA-core work too "
         "(FA3's three consumers at head dim 64); each WarpGroup beyond three adds (this - "
         "sm.cuda_pair_slowdown) again (not measured: a modelling choice); multiplies with the "
         "tensor-pipe factors",
         "data/measured/h200/visit3/ubench/sharing_d64.csv: FA3's head-dim-64 consumer softmax (64 x 128 "
         "block, fast exp) in three WarpGroups at once: 1376085 / 612118 = 2.248 (two at once: 1.657)",
         1, 100});
  r.add({"sm.cuda_slowdown_under_rs", T::Float, "1.84", "x",
         "time factor of CUDA-core work while the tensor pipe runs an RS WGMMA",
         "data/measured/h200/ubench/interference.csv: the same softmax next to 11 x m64n128k16 RS: "
         "1511626 / 821538 = 1.840; FFMA 1.12, MUFU.EX2 1.46, FMNMX 2.28, F2FP 2.39", 1, 100});
  r.add({"sim.max_cycles", T::Int, "0", "cycles",
         "stop a run that passes this many simulated cycles without finishing, with an error (exit 2); "
         "0 = no limit. Lets scripts bound runs whose length they do not know",
         "design choice", 0, 1e15});
  r.add({"sim.watchdog_cycles", T::Int, "20000000", "cycles",
         "stop with a deadlock report when no instruction issued for this long", "design choice", 1000, 1e15});
  r.add({"sim.seed", T::Int, "1", "", "seed of every random stream", "design choice", 0, 1e18});
}

GpuParams gpu_params(const Config& c) {
  GpuParams g;
  g.num_sms = static_cast<int>(c.i("gpu.num_sms"));
  g.clock_hz = c.f("gpu.clock");
  g.cta_launch_cycles = c.u("gpu.cta_launch_cycles");
  g.watchdog_cycles = c.u("sim.watchdog_cycles");
  g.max_cycles = c.u("sim.max_cycles");
  SmParams& s = g.sm;
  s.max_ctas = static_cast<std::uint32_t>(c.u("sm.max_ctas"));
  s.max_warps = static_cast<std::uint32_t>(c.u("sm.max_warps"));
  s.smem_bytes = c.u("sm.smem");
  s.max_smem_per_cta = c.u("sm.max_smem_per_cta");
  s.regs = static_cast<std::uint32_t>(c.u("sm.regs"));
  s.issue_width = static_cast<std::uint32_t>(c.u("sm.issue_width"));
  s.scheduler = c.s("sm.scheduler");
  s.fetch_chunk = static_cast<std::uint32_t>(c.u("sm.fetch_chunk"));
  s.cluster_multicast_cycles = c.u("sm.cluster_multicast_cycles");
  s.cluster_signal_cycles = c.u("sm.cluster_signal_cycles");
  TmaParams& t = s.tma;
  t.launch_cycles = c.u("tma.launch_cycles");
  t.tensormap_setup_cycles = c.u("tma.tensormap_setup_cycles");
  t.lines_per_cycle = static_cast<std::uint32_t>(c.u("tma.lines_per_cycle"));
  t.max_inflight_sectors = static_cast<std::uint32_t>(c.u("tma.max_inflight_sectors"));
  t.queue_depth = static_cast<std::uint32_t>(c.u("tma.queue_depth"));
  t.descriptor_cache_entries = static_cast<std::uint32_t>(c.u("tma.descriptor_cache_entries"));
  t.descriptor_miss_cycles = c.u("tma.descriptor_miss_cycles");
  t.dedup = c.b("tma.dedup");
  t.line_bytes = static_cast<std::uint32_t>(c.u("mem.line_bytes"));
  TensorParams& tc = s.tensor;
  tc.issue_buffer = static_cast<std::uint32_t>(c.u("tensor.issue_buffer"));
  tc.flops_per_cycle_16bit = c.f("tensor.flops_per_cycle_16bit");
  tc.flops_per_cycle_fp8 = c.f("tensor.flops_per_cycle_fp8");
  tc.flops_per_cycle_tf32 = c.f("tensor.flops_per_cycle_tf32");
  tc.min_wgmma_cycles = c.u("tensor.min_wgmma_cycles");
  tc.rs_extra_cycles = c.f("tensor.rs_extra_cycles");
  tc.lone_latency_ss = c.f("tensor.lone_latency_ss");
  tc.lone_latency_rs = c.f("tensor.lone_latency_rs");
  tc.first_issue_ss = c.f("tensor.first_issue_ss");
  tc.first_issue_rs = c.f("tensor.first_issue_rs");
  tc.issue_per_column = c.f("tensor.issue_per_column");
  tc.issue_offset = c.f("tensor.issue_offset");
  tc.max_outstanding = static_cast<std::uint32_t>(c.u("tensor.max_outstanding"));
  tc.slot_release_ss = c.f("tensor.slot_release_ss");
  tc.slot_release_rs = c.f("tensor.slot_release_rs");
  tc.rs_slowdown_with_cuda = c.f("tensor.rs_slowdown_with_cuda");
  CudaCoreParams& cu = s.cuda;
  cu.interference = c.b("sm.interference");
  cu.slowdown_under_ss = c.f("sm.cuda_slowdown_under_ss");
  cu.slowdown_under_rs = c.f("sm.cuda_slowdown_under_rs");
  cu.pair_slowdown = c.f("sm.cuda_pair_slowdown");
  cu.triple_slowdown = c.f("sm.cuda_triple_slowdown");
  if (cu.triple_slowdown < cu.pair_slowdown)
    user_error("sm.cuda_triple_slowdown = {} is below sm.cuda_pair_slowdown = {}: three WarpGroups "
               "sharing the pipes cannot be faster than two", cu.triple_slowdown, cu.pair_slowdown);
  return g;
}

}  // namespace simfa::core
