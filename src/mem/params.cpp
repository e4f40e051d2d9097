// Configuration keys of the memory system. Each default names its source.
#include "mem/dram/dram.h"
#include "mem/memory_model.h"
#include "mem/replacement.h"
#include "mem/slice_hash.h"
#include "sim/config.h"
#include "sim/variants.h"

namespace simfa::mem {
namespace {

// A descriptor with every field named (keeps -Wextra quiet about the Enum-only choices; the Enum
// keys name variants and come from variant_param).
ParamDesc desc(std::string key, ParamType t, std::string def, std::string unit, std::string doc,
               std::string source, double min = -1e300, double max = 1e300) {
  return {std::move(key), t, std::move(def), std::move(unit), std::move(doc), std::move(source),
          min, max, {}};
}

void add_l1_lrc_xbar(ParamRegistry& r) {
  r.add(desc("mem.l1.enabled", ParamType::Bool, "true", "",
         "model the SMs' L1 data cache for ordinary loads (TMA copies always bypass it)",
         "Hopper: ordinary loads are cached in L1 (load_latency.csv shows L1 hits)"));
  r.add(desc("mem.l1.size", ParamType::Size, "256KiB", "bytes",
         "L1 data cache capacity per SM seen by ordinary loads",
         "load_latency.csv: L1 hits up to 215 KiB, half the hops miss at about 254 KiB; Hopper's "
         "combined L1/shared memory is 256 KB per SM (NVIDIA Hopper tuning guide)",
         128, 16 << 20));  // at most 64x Hopper's: the tags of every SM's L1 live in host memory
  r.add(desc("mem.l1.assoc", ParamType::Int, "4", "ways", "L1 associativity",
         "design choice: with a contiguous working set every set fills evenly, so only the "
         "capacity shows in load_latency.csv", 1, 1024));
  r.add(variant_param("mem.l1.replacement", "lru", "L1 replacement policy",
         "load_latency.csv: the pointer chase misses completely above about 1.3 x 256 KiB, as "
         "LRU does on a cyclic walk (random replacement keeps hitting up to 3x)",
         replacement_policies()));
  r.add(desc("mem.l1.hit_latency", ParamType::Int, "32", "cycles",
         "request accepted to response for an L1 hit (the whole ordinary-load latency)",
         "load_latency.csv floor 32.0 cycles (Luo et al. logs)", 1, 1e6));
  r.add(desc("mem.l1.miss_latency", ParamType::Int, "6", "cycles",
         "delay an L1 miss adds before the request leaves the SM",
         "load_latency.csv L2 floor 264.5 minus the near hit 258 of Table 2, rounded down", 0, 1e6));
  r.add(desc("mem.lrc.enabled", ParamType::Bool, "true", "",
         "L2 Request Coalescer per SM pair (false: the ablation no-lrc)", "§5.4, Table 5"));
  r.add(desc("mem.lrc.window", ParamType::Int, "512", "cycles",
         "a read merges with a request of its SM pair for the same line issued at most this long "
         "before and still in flight", "design choice: about two unloaded L2 hits; the paper "
         "gives no figure", 0, 1e9));
  r.add(desc("mem.lrc.entries", ParamType::Int, "128", "lines",
         "in-flight lines each coalescer tracks for merging", "design choice (two SMs x the TMA "
         "max-inflight-lines=64 of Table 2)", 1, 65536));
  r.add(desc("mem.xbar.sm_bytes_per_cycle", ParamType::Float, "64", "bytes/cycle",
         "bandwidth of each SM's crossbar port, in each direction",
         "A100 whitepaper L2 read bandwidth 5120 B/clk for 108 SMs (about 47 B/clk/SM) rounded up "
         "to a 64-byte port", 1, 1e6));
  r.add(desc("mem.xbar.header_bytes", ParamType::Int, "16", "bytes",
         "size of a read request or write acknowledgement packet (writes add their data)",
         "design choice", 1, 4096));
  r.add(desc("mem.xbar.sm_queue", ParamType::Int, "32", "packets",
         "request packets that may wait at an SM's injection port before back-pressure",
         "design choice", 1, 1e6));
  r.add(desc("mem.xbar.slice_buffer", ParamType::Int, "96", "requests",
         "requests in flight in the crossbar toward one slice, besides its request queue",
         "design choice: covers one request per cycle over the one-way near latency (119 "
         "cycles) minus the queue", 0, 1e6));
}

void add_l2(ParamRegistry& r) {
  r.add(desc("mem.l2.size", ParamType::Size, "50MiB", "bytes", "L2 capacity, all slices",
         "Table 2 (50 MB); deviceQuery reports 52428800 bytes", 4096, 1 << 30));  // 20x Hopper's
  r.add(desc("mem.l2.slices", ParamType::Int, "80", "", "number of L2 slices", "Table 2", 1, 65535));
  r.add(desc("mem.l2.partitions", ParamType::Int, "2", "",
         "L2 partitions; each SM pair is near one of them", "Luo et al. 2025: two 25 MB "
         "partitions (§4.3)", 1, 64));
  r.add(desc("mem.l2.assoc", ParamType::Int, "16", "ways", "L2 associativity per slice",
         "design choice (not disclosed by NVIDIA)", 1, 1024));
  r.add(variant_param("mem.l2.replacement", "lru", "L2 replacement policy",
         "design choice; tma_latency.csv's sharp L2 transitions fit LRU", replacement_policies()));
  r.add(variant_param("mem.l2.hash", "xor", "slice hash (line = byte address / line size, N slices)",
         "§5.4", slice_hashes()));
  r.add(desc("mem.l2.req_queue", ParamType::Int, "32", "requests", "request queue per slice",
         "Table 2 (req_q_size=32)", 1, 1e6));
  r.add(desc("mem.l2.resp_queue", ParamType::Int, "128", "responses", "response queue per slice",
         "Table 2 (resp_q_size=128)", 1, 1e6));
  r.add(desc("mem.l2.mshrs", ParamType::Int, "256", "entries", "MSHR entries per slice (fetches, and write-backs waiting for room in their DRAM channel)",
         "§4.3 and Fig. 4 (calibrated on tma_bandwidth.csv by the paper)", 1, 65534));
  r.add(desc("mem.l2.lookups_per_cycle", ParamType::Int, "1", "requests/cycle",
         "tag lookups one slice starts per cycle", "design choice (one tag pipeline per slice)",
         1, 64));
  r.add(desc("mem.l2.bytes_per_cycle", ParamType::Float, "64", "bytes/cycle",
         "data bandwidth of one slice's response port",
         "80 x 64 = 5120 B/clk, the A100 whitepaper's L2 read bandwidth per clock; Luo et al. "
         "IPDPS'24 measured 3942 B/clk achieved on Hopper", 1, 1e6));
  r.add(desc("mem.l2.lookup_latency", ParamType::Int, "20", "cycles",
         "tag and data pipeline of a slice (part of every hit latency)",
         "design choice; only its split against the crossbar delays depends on it", 0, 1e6));
  r.add(desc("mem.l2.near_hit_latency", ParamType::Float, "258", "cycles",
         "unloaded round trip of an L2 hit in the SM's near partition", "Table 2; Luo et al. 2025",
         1, 1e6));
  r.add(desc("mem.l2.far_hit_latency", ParamType::Float, "414", "cycles",
         "unloaded round trip of an L2 hit in the far partition", "Table 2; Luo et al. 2025",
         1, 1e6));
  r.add(desc("mem.l2.near_miss_latency", ParamType::Float, "555.5", "cycles",
         "unloaded round trip of an L2 miss homed in the near partition (sets the L2-DRAM link "
         "delay given the DRAM's own unloaded latency)", "Luo et al. 2025 extended version "
         "(reference/hardware.md)", 1, 1e6));
  r.add(desc("mem.l2.far_miss_latency", ParamType::Float, "743.7", "cycles",
         "unloaded round trip of an L2 miss homed in the far partition",
         "Luo et al. 2025 extended version (reference/hardware.md)", 1, 1e6));
  r.add(desc("mem.l2.remote_copy.enabled", ParamType::Bool, "true", "",
         "RemoteCopy proxy: far-homed reads may leave a shadow copy in the near partition",
         "§4.3"));
  r.add(desc("mem.l2.remote_copy.max_probability", ParamType::Float, "1.0", "",
         "probability that a far read inserts a shadow line while under the threshold",
         "calibrated once on tma_latency.csv (docs/validation.md)", 0, 1));
  r.add(desc("mem.l2.remote_copy.occupancy_threshold", ParamType::Float, "1.0", "",
         "no shadow insertion while shadow lines fill this fraction of the near slice or more",
         "calibrated once on tma_latency.csv (docs/validation.md)", 0, 1));
  r.add(desc("mem.seed", ParamType::Int, "1", "",
         "seed of the memory system's random streams (replacement, RemoteCopy)", "design choice",
         0, 9.0e15));
}

}  // namespace

void register_mem_params(ParamRegistry& r) {
  r.add(variant_param("mem.model", "fixed", "memory system behind the SMs", "design choice", memory_models()));
  r.add(desc("mem.line_bytes", ParamType::Size, "128", "bytes", "cache line size",
         "Hopper L2 line (Luo et al. 2025)", 32, 1024));
  r.add(desc("mem.fixed.latency", ParamType::Int, "300", "cycles",
         "fixed memory: cycles from service start to response", "round figure near the L2 hit "
         "latency of Table 2 (258/414); the fixed model is for testing the core", 1, 1e9));
  r.add(desc("mem.fixed.bytes_per_cycle", ParamType::Float, "1024", "bytes/cycle",
         "fixed memory: bandwidth for the whole GPU", "round figure below the L2 throughput of "
         "3942 B/cycle (Luo et al. IPDPS'24 Table V)", 1e-3, 1e9));
  r.add(desc("mem.fixed.queue", ParamType::Int, "256", "requests",
         "fixed memory: requests that may wait for service before back-pressure", "design choice",
         1, 1e9));
  add_l1_lrc_xbar(r);
  add_l2(r);
  register_dram_params(r);
}

}  // namespace simfa::mem
