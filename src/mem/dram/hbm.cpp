// HbmDram: maps each line to its channel, numbers requests in acceptance order (their age for the
// schedulers) and aggregates the channels' statistics.
#include "mem/dram/hbm.h"

#include <fmt/format.h>

#include <cmath>

#include "sim/config.h"
#include "sim/engine.h"
#include "sim/stats.h"

namespace simfa::mem {

HbmDram::HbmDram(const DramParams& p, Engine& engine, DramClient* client)
    : p_(p),
      clk_(static_cast<std::uint64_t>(std::llround(p.core_hz)),
           static_cast<std::uint64_t>(std::llround(p.dram_hz()))),
      map_(p_),
      sched_(make_dram_scheduler(p.scheduler)),
      engine_(engine) {
  for (std::uint32_t i = 0; i < p_.channels; ++i) {
    channels_.push_back(std::make_unique<Channel>(p_, clk_, *sched_, i, engine, client));
    engine.add(channels_.back().get());
    channels_.back()->start();
  }
}

bool HbmDram::try_enqueue(const DramReq& r, Cycle now) {
  const DramCoord c = coord(r.line);
  if (!channels_[c.channel]->try_enqueue(r, c, seq_, now)) return false;
  ++seq_;
  return true;
}

std::uint64_t HbmDram::in_flight() const {
  std::uint64_t n = 0;
  for (const auto& ch : channels_) n += ch->in_flight();
  return n;
}

double HbmDram::peak_bytes_per_core_cycle() const {
  return p_.peak_bytes_per_second() / p_.core_hz;
}

Cycle HbmDram::unloaded_read_latency() const {
  const DramTiming& t = p_.t;
  const DCycle dram = 1 + t.tRCD_rd + t.tCL + (p_.bursts_per_line() - 1) * t.tCCD_L + t.tBL;
  return p_.ctrl_latency + clk_.to_core(dram);
}

void HbmDram::set_command_log(std::vector<CmdRecord>* log) {
  for (auto& ch : channels_) ch->set_command_log(log);
}

ChannelCounters HbmDram::totals() const {
  ChannelCounters t;
  for (const auto& ch : channels_) {
    const ChannelCounters& c = ch->counters();
    t.reads += c.reads;
    t.writes += c.writes;
    t.read_bytes += c.read_bytes;
    t.write_bytes += c.write_bytes;
    t.row_hits += c.row_hits;
    t.row_misses += c.row_misses;
    t.row_conflicts += c.row_conflicts;
    t.acts += c.acts;
    t.pres += c.pres;
    t.refreshes += c.refreshes;
    t.refusals += c.refusals;
    t.data_busy += c.data_busy;
    t.read_latency += c.read_latency;
  }
  return t;
}

void HbmDram::register_stats(Stats& s) {
  const std::string pre = "gpu.dram";
  for (std::uint32_t i = 0; i < p_.channels; ++i) {
    ChannelCounters& c = channels_[i]->counters();
    const std::string n = fmt::format("{}.ch[{}].", pre, i);
    s.counter(n + "reads", &c.reads, "requests", "line reads completed");
    s.counter(n + "writes", &c.writes, "requests", "line writes completed");
    s.counter(n + "read_bytes", &c.read_bytes, "bytes", "bytes read (bursts x burst size)");
    s.counter(n + "write_bytes", &c.write_bytes, "bytes", "bytes written (bursts x burst size)");
    s.counter(n + "row_hits", &c.row_hits, "requests", "requests whose first command was RD/WR");
    s.counter(n + "row_misses", &c.row_misses, "requests", "requests whose first command was ACT");
    s.counter(n + "row_conflicts", &c.row_conflicts, "requests",
              "requests whose first command was PRE of another row");
    s.counter(n + "refusals", &c.refusals, "requests", "requests refused: queue full");
    s.counter(n + "data_busy", &c.data_busy, "dram cycles",
              "data-bus busy time, summed over pseudo-channels");
    const double pcs = p_.pseudo_channels;
    s.formula(
        n + "utilization",
        [this, &c, pcs] {
          const double el = static_cast<double>(clk_.last_edge(engine_.now()) + 1) * pcs;
          return el > 0 ? static_cast<double>(c.data_busy) / el : 0.0;
        },
        "fraction", "data-bus busy time / elapsed time");
  }
  auto total = [this](std::uint64_t ChannelCounters::*f) {
    return [this, f] {
      double v = 0;
      for (const auto& ch : channels_) v += static_cast<double>(ch->counters().*f);
      return v;
    };
  };
  s.formula(pre + ".reads", total(&ChannelCounters::reads), "requests", "line reads completed");
  s.formula(pre + ".writes", total(&ChannelCounters::writes), "requests", "line writes completed");
  s.formula(pre + ".read_bytes", total(&ChannelCounters::read_bytes), "bytes", "bytes read");
  s.formula(pre + ".write_bytes", total(&ChannelCounters::write_bytes), "bytes", "bytes written");
  s.formula(pre + ".row_hits", total(&ChannelCounters::row_hits), "requests", "row-buffer hits");
  s.formula(pre + ".row_misses", total(&ChannelCounters::row_misses), "requests",
            "row-buffer misses (bank closed)");
  s.formula(pre + ".row_conflicts", total(&ChannelCounters::row_conflicts), "requests",
            "row-buffer conflicts (another row open)");
  s.formula(pre + ".activates", total(&ChannelCounters::acts), "commands", "ACT commands");
  s.formula(pre + ".precharges", total(&ChannelCounters::pres), "commands", "PRE commands");
  s.formula(pre + ".refreshes", total(&ChannelCounters::refreshes), "commands", "REF commands");
  s.formula(pre + ".queue_stalls", total(&ChannelCounters::refusals), "requests",
            "requests refused because their pseudo-channel queue was full");
  s.formula(
      pre + ".row_hit_rate",
      [this] {
        const ChannelCounters t = totals();
        const double n = static_cast<double>(t.row_hits + t.row_misses + t.row_conflicts);
        return n > 0 ? static_cast<double>(t.row_hits) / n : 0.0;
      },
      "fraction", "row-buffer hit rate: hits / (hits + misses + conflicts)");
  s.formula(
      pre + ".avg_read_latency",
      [this] {
        const ChannelCounters t = totals();
        return t.reads ? static_cast<double>(t.read_latency) / static_cast<double>(t.reads) : 0.0;
      },
      "cycles", "mean core cycles from acceptance to read response");
  s.formula(
      pre + ".bandwidth_fraction",
      [this] {
        const ChannelCounters t = totals();
        const double el = static_cast<double>(engine_.now()) * peak_bytes_per_core_cycle();
        return el > 0 ? static_cast<double>(t.read_bytes + t.write_bytes) / el : 0.0;
      },
      "fraction", "bytes moved / (elapsed core cycles x peak bytes per core cycle)");
  // Nsight Compute names.
  s.formula("dram__bytes_read.sum", total(&ChannelCounters::read_bytes), "bytes",
            "DRAM bytes read (Nsight Compute name)");
  s.formula("dram__bytes_write.sum", total(&ChannelCounters::write_bytes), "bytes",
            "DRAM bytes written (Nsight Compute name)");
  s.formula(
      "dram__sectors_read.sum", [this] { return static_cast<double>(totals().read_bytes) / 32.0; },
      "sectors", "DRAM 32-byte sectors read (Nsight Compute name)");
  s.formula(
      "dram__sectors_write.sum",
      [this] { return static_cast<double>(totals().write_bytes) / 32.0; }, "sectors",
      "DRAM 32-byte sectors written (Nsight Compute name)");
}

std::unique_ptr<Dram> make_dram(const Config& cfg, Engine& engine, DramClient* client) {
  return std::make_unique<HbmDram>(dram_params_from(cfg), engine, client);
}

void HbmDram::discount_warm_writes() {
  for (auto& ch : channels_) {
    ChannelCounters& n = ch->counters();
    n.writes -= n.warm_writes;
    n.write_bytes -= n.warm_write_bytes;
    n.warm_writes = n.warm_write_bytes = 0;
  }
}

}  // namespace simfa::mem
