// Configuration keys of the HBM DRAM model (`dram.*`) and their resolution into DramParams. Each
// default is the H800 SXM5 / H100 SXM5 preset, HBM3-5200 with 80 channels; docs/dram.md derives it.
#include "mem/dram/params.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "mem/dram/dram.h"
#include "mem/dram/mapping.h"
#include "mem/dram/scheduler.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/variants.h"

namespace simfa::mem {
namespace {

constexpr const char* kHw = "../shared/reference/hardware.md";
constexpr const char* kRam =
    "Ramulator 2.1 HBM3 preset (hardware.md HBM3 table), ceil(ns / 0.769ns)";

// The modes of dram.channel_hash and dram.refresh: names for values of one implementation, listed
// here (the schedulers, which are implementations, are variant files: scheduler.h).
constinit const Variant<ChannelHash> kXorChannels{
    "xor", "an XOR fold of the other address fields is added to the channel digit (spreads power-of-two strides)",
    ChannelHash::Xor};
constinit const Variant<ChannelHash> kPlainChannels{"none", "the channel digit as it is", ChannelHash::None};
const VariantList<ChannelHash>& channel_hashes() {
  static const VariantList<ChannelHash> list("dram.channel_hash", "channel hash", {&kXorChannels, &kPlainChannels});
  return list;
}
constinit const Variant<RefreshMode> kAllBankRefresh{
    "all-bank", "REFab every tREFI, the pseudo-channel blocked for tRFC", RefreshMode::AllBank};
constinit const Variant<RefreshMode> kPerBankRefresh{
    "per-bank", "REFpb to one bank every tREFI/banks, that bank blocked for tRFCpb", RefreshMode::PerBank};
constinit const Variant<RefreshMode> kNoRefresh{"off", "no refresh", RefreshMode::Off};
const VariantList<RefreshMode>& refresh_modes() {
  static const VariantList<RefreshMode> list("dram.refresh", "refresh mode",
                                             {&kAllBankRefresh, &kPerBankRefresh, &kNoRefresh});
  return list;
}

// One descriptor; spelled out in full so every field is explicit.
void add(ParamRegistry& r, std::string key, ParamType type, std::string def, std::string unit,
         std::string doc, std::string src, double min = -1e300, double max = 1e300) {
  r.add(ParamDesc{std::move(key), type, std::move(def), std::move(unit), std::move(doc),
                  std::move(src), min, max, {}});
}

// At most 100,000 tCK (77 us at HBM3's 1.3 GHz): 20x the longest real timing (tREFI); beyond, the
// DRAM latency probe alone (2048 reads through refreshes) runs for minutes.
void timing(ParamRegistry& r, const char* key, const char* def, const char* doc,
            const std::string& src, double min = 0) {
  add(r, std::string("dram.timing.") + key, ParamType::Int, def, "tCK", doc, src, min, 1e5);
}

}  // namespace

DCycle ns_to_tck(double ns, double tck_ns) {
  return static_cast<DCycle>(std::ceil(ns / tck_ns - 1e-9));
}

void register_dram_params(ParamRegistry& r) {
  add(r, "dram.channels", ParamType::Int, "80", "channels", "64-bit HBM channels in all stacks",
      std::string(kHw) + ": 5 stacks x 16 channels (5120-bit bus)", 1, 4096);
  add(r, "dram.pseudo_channels", ParamType::Int, "2", "", "pseudo-channels per channel",
      std::string(kHw) + ": HBM3 splits each 64-bit channel in two 32-bit pseudo-channels", 1, 16);
  add(r, "dram.bank_groups", ParamType::Int, "4", "", "bank groups per pseudo-channel",
      std::string(kHw) + " (JESD238 organisation)", 1, 64);
  add(r, "dram.banks_per_group", ParamType::Int, "4", "", "banks per bank group",
      std::string(kHw) + " (JESD238 organisation)", 1, 64);
  add(r, "dram.rows", ParamType::Int, "32768", "", "rows per bank",
      "16 GiB per stack: 16 GiB / (16 ch x 2 pc x 16 banks x 1 KiB); hardware.md gives 8K-32K", 1,
      1 << 24);
  add(r, "dram.row_bytes", ParamType::Size, "1KiB", "bytes", "row size of a pseudo-channel bank",
      std::string(kHw) + " (1 KiB rows)", 32, 1 << 20);
  add(r, "dram.pc_width_bits", ParamType::Int, "32", "bits", "data bus width of a pseudo-channel",
      kHw, 8, 1024);
  add(r, "dram.burst_length", ParamType::Int, "8", "transfers", "data transfers per column command",
      std::string(kHw) + " (BL8)", 1, 64);
  add(r, "dram.transfers_per_clock", ParamType::Int, "4", "", "data transfers per command clock",
      std::string(kHw) + ": HBM3 command clock is a quarter of the data rate", 1, 16);
  add(r, "dram.data_rate", ParamType::Float, "5200", "MT/s", "per-pin data rate",
      std::string(kHw) + ": 3.35 TB/s over 5120 bits = 5.2 Gb/s per pin", 100, 1e5);
  add(r, "dram.mapping", ParamType::String, "RoBaCoBgPcCh", "",
      "line address fields, most significant first (Ro row, Ba bank, Bg bank group, Co column "
      "in lines, Pc pseudo-channel, Ch channel); each exactly once",
      "design choice (docs/dram.md): channels on the lowest line bits, then pseudo-channel, then "
      "bank group so a stream alternates bank groups (tCCD_S)");
  r.add(variant_param("dram.channel_hash", "xor", "channel selection", "design choice (docs/dram.md)",
                      channel_hashes()));
  r.add(variant_param("dram.scheduler", "frfcfs", "command scheduler per pseudo-channel",
                      "issue 3 (FR-FCFS, Rixner et al. ISCA 2000)", dram_schedulers()));
  add(r, "dram.read_queue", ParamType::Int, "32", "requests", "read queue per pseudo-channel",
      "design choice (Ramulator 2 default controller queue size 32)", 1, 4096);
  add(r, "dram.write_queue", ParamType::Int, "32", "requests", "write queue per pseudo-channel",
      "design choice (Ramulator 2 default controller queue size 32)", 1, 4096);
  add(r, "dram.write_high_watermark", ParamType::Int, "24", "requests",
      "queued writes at which the pseudo-channel switches to draining writes",
      "design choice: 75% of the write queue", 1, 4096);
  add(r, "dram.write_low_watermark", ParamType::Int, "8", "requests",
      "queued writes at which write draining stops when reads are waiting",
      "design choice: 25% of the write queue", 0, 4096);
  add(r, "dram.row_hit_cap", ParamType::Int, "32", "column commands",
      "column commands to an open row after which pending hits no longer delay a precharge "
      "for an older request (starvation guard)",
      "design choice: one row of 32-byte bursts (1 KiB / 32 B)", 1, 1 << 20);
  r.add(variant_param("dram.refresh", "all-bank", "refresh",
      "JESD238 baseline all-bank refresh; it puts streaming reads at 88% of peak, in the "
      "85-95% band measured on H100 (issue 3), where per-bank refresh would give 99%",
      refresh_modes()));
  add(r, "dram.ctrl_latency", ParamType::Int, "180", "cycles",
      "core cycles added to every DRAM response: controller, PHY and the return link",
      "calibration: L2 near miss - near hit = 555.5 - 258 = 297.5 cycles (Luo et al.) minus the "
      "row-conflict DRAM time (about 113 cycles at 1830 MHz); recalibrated by the hierarchy",
      0, 1e6);
  timing(r, "tCL", "17", "RD to read data", std::string(kRam).append(": 12.5 ns"), 1);
  timing(r, "tCWL", "9", "WR to write data", std::string(kRam).append(": 6.25 ns"), 1);
  timing(r, "tRCD_rd", "26", "ACT to RD", std::string(kRam).append(": 19.375 ns"), 1);
  timing(r, "tRCD_wr", "13", "ACT to WR", std::string(kRam).append(": 9.375 ns"), 1);
  timing(r, "tRP", "22", "PRE to ACT", std::string(kRam).append(": 16.25 ns"), 1);
  timing(r, "tRAS", "37", "ACT to PRE", std::string(kRam).append(": 28.125 ns"), 1);
  timing(r, "tRC", "59", "ACT to ACT, same bank", std::string(kRam).append(": 45 ns"), 1);
  timing(r, "tCCD_S", "2", "column to column, other bank group", "hardware.md: 2 tCK", 1);
  timing(r, "tCCD_L", "4", "column to column, same bank group", "hardware.md: 4 tCK", 1);
  timing(r, "tRRD_S", "4", "ACT to ACT, other bank group", std::string(kRam).append(": 2.5 ns"), 1);
  timing(r, "tRRD_L", "5", "ACT to ACT, same bank group", std::string(kRam).append(": 3.125 ns"),
         1);
  timing(r, "tFAW", "20", "four-activate window", std::string(kRam).append(": 15 ns"), 1);
  timing(r, "tWR", "27", "write recovery (end of write data to PRE)",
         std::string(kRam).append(": 20.625 ns"), 1);
  timing(r, "tRTP", "8", "RD to PRE", std::string(kRam).append(": 5.625 ns"), 1);
  timing(r, "tWTR_S", "6", "end of write data to RD, other bank group",
         std::string(kRam).append(": 4.375 ns"), 0);
  timing(r, "tWTR_L", "9", "end of write data to RD, same bank group",
         std::string(kRam).append(": 6.25 ns"), 0);
  timing(r, "tRTRS", "2", "read-to-write data-bus turnaround",
         "design choice: 2 tCK of bus turnaround (common DRAM-model value)", 0);
  timing(r, "tREFI", "5070", "refresh interval", std::string(kRam).append(": 3900 ns"), 1);
  timing(r, "tRFC", "585", "all-bank refresh cycle time",
         std::string(kRam).append(": 450 ns (16 Gb dies; table gives 350-450)"), 1);
  timing(r, "tRFCpb", "260", "per-bank refresh cycle time", std::string(kRam).append(": 200 ns"),
         1);
}

DramParams dram_params_from(const Config& cfg) {
  DramParams p;
  auto u32 = [&](const char* k) { return static_cast<std::uint32_t>(cfg.u(k)); };
  auto tk = [&](const char* k) {
    return static_cast<DCycle>(cfg.u(std::string("dram.timing.") + k));
  };
  p.channels = u32("dram.channels");
  p.pseudo_channels = u32("dram.pseudo_channels");
  p.bank_groups = u32("dram.bank_groups");
  p.banks_per_group = u32("dram.banks_per_group");
  p.rows = u32("dram.rows");
  p.row_bytes = u32("dram.row_bytes");
  p.pc_width_bits = u32("dram.pc_width_bits");
  p.burst_length = u32("dram.burst_length");
  p.transfers_per_clock = u32("dram.transfers_per_clock");
  p.data_rate_mts = cfg.f("dram.data_rate");
  p.line_bytes = u32("mem.line_bytes");
  p.mapping = cfg.s("dram.mapping");
  p.channel_hash = channel_hashes().get(cfg.s("dram.channel_hash")).make;
  p.scheduler = cfg.s("dram.scheduler");
  p.read_queue = u32("dram.read_queue");
  p.write_queue = u32("dram.write_queue");
  p.write_high = u32("dram.write_high_watermark");
  p.write_low = u32("dram.write_low_watermark");
  p.row_hit_cap = u32("dram.row_hit_cap");
  p.refresh = refresh_modes().get(cfg.s("dram.refresh")).make;
  p.ctrl_latency = cfg.u("dram.ctrl_latency");
  // The core clock is the SM clock of the core library's `gpu.clock`: every returned time is in it.
  p.core_hz = cfg.f("gpu.clock");
  DramTiming& t = p.t;
  t.tCL = tk("tCL");
  t.tCWL = tk("tCWL");
  t.tRCD_rd = tk("tRCD_rd");
  t.tRCD_wr = tk("tRCD_wr");
  t.tRP = tk("tRP");
  t.tRAS = tk("tRAS");
  t.tRC = tk("tRC");
  t.tCCD_S = tk("tCCD_S");
  t.tCCD_L = tk("tCCD_L");
  t.tRRD_S = tk("tRRD_S");
  t.tRRD_L = tk("tRRD_L");
  t.tFAW = tk("tFAW");
  t.tWR = tk("tWR");
  t.tRTP = tk("tRTP");
  t.tWTR_S = tk("tWTR_S");
  t.tWTR_L = tk("tWTR_L");
  t.tRTRS = tk("tRTRS");
  t.tREFI = tk("tREFI");
  t.tRFC = tk("tRFC");
  t.tRFCpb = tk("tRFCpb");

  // Consistency of the organisation.
  if (p.pc_width_bits % 8 != 0)
    user_error("dram.pc_width_bits = {}: must be a multiple of 8", p.pc_width_bits);
  if (p.burst_length % p.transfers_per_clock != 0)
    user_error("dram.burst_length = {}: must be a multiple of dram.transfers_per_clock ({})",
               p.burst_length, p.transfers_per_clock);
  t.tBL = p.burst_length / p.transfers_per_clock;
  if (p.line_bytes % p.burst_bytes() != 0 || p.bursts_per_line() > 8)
    user_error(
        "mem.line_bytes = {}: must be 1 to 8 DRAM bursts of {} bytes "
        "(dram.pc_width_bits / 8 x dram.burst_length)",
        p.line_bytes, p.burst_bytes());
  if (p.row_bytes % p.line_bytes != 0)
    user_error("dram.row_bytes = {}: must be a multiple of mem.line_bytes ({})", p.row_bytes,
               p.line_bytes);
  if (p.banks() > 64)
    user_error("dram.bank_groups x dram.banks_per_group = {}: at most 64 banks per pseudo-channel",
               p.banks());
  if (t.tCCD_S < t.tBL)
    user_error("dram.timing.tCCD_S = {}: must be at least the burst time tBL = {} tCK", t.tCCD_S,
               t.tBL);
  if (t.tCCD_L < t.tCCD_S) user_error("dram.timing.tCCD_L = {}: must be >= tCCD_S", t.tCCD_L);
  if (t.tRRD_L < t.tRRD_S) user_error("dram.timing.tRRD_L = {}: must be >= tRRD_S", t.tRRD_L);
  if (p.write_high > p.write_queue)
    user_error("dram.write_high_watermark = {}: must be <= dram.write_queue ({})", p.write_high,
               p.write_queue);
  if (p.write_low >= p.write_high)
    user_error("dram.write_low_watermark = {}: must be < dram.write_high_watermark ({})",
               p.write_low, p.write_high);
  if (p.refresh == RefreshMode::PerBank && t.tREFI / p.banks() == 0)
    user_error("dram.timing.tREFI = {}: too small for per-bank refresh of {} banks", t.tREFI,
               p.banks());
  // Refresh must leave the banks time for requests: a refresh closes the rows it reaches, so a row
  // cycle (ACT, then RD or WR, then PRE) must fit between two refreshes of a bank, else refresh
  // starves every request (tREFI = 1 ran forever). All-bank refresh blocks a pseudo-channel tRFC of
  // every tREFI; per-bank refresh blocks one bank tRFCpb of every tREFI, a bank every tREFI / banks.
  const DCycle row_cycle = std::max({t.tRC, t.tRAS, t.tRCD_rd + t.tRTP, t.tRCD_wr + t.tCWL + t.tBL + t.tWR});
  if (p.refresh == RefreshMode::AllBank && t.tRFC + row_cycle >= t.tREFI)
    user_error("dram.timing.tRFC = {} plus a row cycle of {} tCK (the largest of tRC, tRAS, tRCD_rd + tRTP, "
               "tRCD_wr + tCWL + tBL + tWR) does not fit in tREFI = {}: all-bank refresh would starve every request",
               t.tRFC, row_cycle, t.tREFI);
  if (p.refresh == RefreshMode::PerBank && t.tRFCpb + row_cycle >= t.tREFI)
    user_error("dram.timing.tRFCpb = {} plus a row cycle of {} tCK (the largest of tRC, tRAS, tRCD_rd + tRTP, "
               "tRCD_wr + tCWL + tBL + tWR) does not fit in tREFI = {}: per-bank refresh would starve every request",
               t.tRFCpb, row_cycle, t.tREFI);
  if (p.refresh == RefreshMode::PerBank && t.tRFCpb >= t.tREFI / p.banks())
    user_error("dram.timing.tRFCpb = {} is not shorter than the per-bank refresh interval tREFI / banks = {} / {} "
               "= {} tCK: refreshes would never leave the banks",
               t.tRFCpb, t.tREFI, p.banks(), t.tREFI / p.banks());
  AddressMapping::validate(p);  // throws UserError naming dram.mapping
  return p;
}

}  // namespace simfa::mem
