// The resolved parameters of the DRAM model (from the `dram.*` keys), with derived quantities.
#pragma once
#include <cstdint>
#include <string>

#include "mem/dram/timing.h"
#include "sim/types.h"

namespace simfa {
class Config;
}

namespace simfa::mem {

enum class RefreshMode : std::uint8_t { PerBank, AllBank, Off };
enum class ChannelHash : std::uint8_t { Xor, None };

struct DramParams {
  // Organisation.
  std::uint32_t channels = 80;
  std::uint32_t pseudo_channels = 2;  // per channel; each has its own banks and data bus
  std::uint32_t bank_groups = 4;      // per pseudo-channel
  std::uint32_t banks_per_group = 4;
  std::uint32_t rows = 32768;             // per bank
  std::uint32_t row_bytes = 1024;         // row (page) size of one pseudo-channel bank
  std::uint32_t pc_width_bits = 32;       // data bus width of one pseudo-channel
  std::uint32_t burst_length = 8;         // data transfers per column command
  std::uint32_t transfers_per_clock = 4;  // data transfers per command clock (HBM3 4, HBM2e 2)
  double data_rate_mts = 5200;            // per-pin data rate, MT/s
  std::uint32_t line_bytes = 128;         // request size (mem.line_bytes)
  // Policy.
  std::string mapping = "RoBaCoBgPcCh";  // address fields, most significant first
  ChannelHash channel_hash = ChannelHash::Xor;
  std::string scheduler = "frfcfs";
  std::uint32_t read_queue = 32;   // per pseudo-channel
  std::uint32_t write_queue = 32;  // per pseudo-channel
  std::uint32_t write_high = 24;   // start draining writes at this many queued writes
  std::uint32_t write_low = 8;     // stop draining (when reads wait) at this many
  std::uint32_t row_hit_cap = 32;  // column commands after which a pending row hit no longer
                                   // holds off a precharge for an older conflicting request
  RefreshMode refresh = RefreshMode::AllBank;
  Cycle ctrl_latency = 180;  // core cycles added to every response (controller + PHY)
  // Clocks.
  double core_hz = 1830e6;
  DramTiming t;

  std::uint32_t banks() const { return bank_groups * banks_per_group; }
  std::uint32_t burst_bytes() const { return pc_width_bits / 8 * burst_length; }
  std::uint32_t bursts_per_line() const { return line_bytes / burst_bytes(); }
  // DRAM command clock in Hz: data rate / transfers per clock.
  double dram_hz() const { return data_rate_mts * 1e6 / transfers_per_clock; }
  // Peak data bandwidth of all pseudo-channels in bytes per second.
  double peak_bytes_per_second() const {
    return static_cast<double>(channels) * pseudo_channels * pc_width_bits / 8.0 * data_rate_mts *
           1e6;
  }
};

// Reads and validates the `dram.*` keys, plus gpu.clock (the core clock, registered by the core
// library) and mem.line_bytes. Throws UserError naming
// the key for an inconsistent organisation or mapping.
DramParams dram_params_from(const Config& cfg);
// Converts nanoseconds to cycles of period tck_ns: ceil(ns / tCK), tolerant of rounding noise.
DCycle ns_to_tck(double ns, double tck_ns);

}  // namespace simfa::mem
