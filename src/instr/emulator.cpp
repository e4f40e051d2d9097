// Logger emulator: flat per-warp buffers indexed block * warps_per_block + warp, mirroring the
// device logger's record() step for step (capacity check, overflow flag, append, count bump).
#include "instr/emulator.h"

#include "instr/error.h"
#include "instr/log_writer.h"

namespace simfa::instr {

LoggerEmulator::LoggerEmulator(Dim3 grid, Dim3 block, uint32_t entries_per_warp,
                               uint32_t clock_kind) {
  if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z)
    throw UserError("logger emulator: grid and block dimensions must be >= 1");
  if (clock_kind != SIMFA_CLOCK_GLOBALTIMER_NS && clock_kind != SIMFA_CLOCK_CLOCK64)
    throw UserError("logger emulator: unknown clock kind " + std::to_string(clock_kind));
  header_.grid[0] = grid.x, header_.grid[1] = grid.y, header_.grid[2] = grid.z;
  header_.block[0] = block.x, header_.block[1] = block.y, header_.block[2] = block.z;
  header_.warps_per_block = evlog::warps_for_threads(uint64_t{block.x} * block.y * block.z);
  header_.entries_per_warp = entries_per_warp;
  header_.clock_kind = clock_kind;
  header_.clock_rate_hz = clock_kind == SIMFA_CLOCK_GLOBALTIMER_NS ? 1000000000ull : 0;
  const uint64_t warps = evlog::num_warps(header_);
  counts_.assign(warps, 0);
  overflow_.assign(warps, 0);
  entries_.resize(warps * entries_per_warp);
}

void LoggerEmulator::add_tensormap(const simfa_tensormap_desc& t) {
  if (t.rank < 1 || t.rank > SIMFA_EVLOG_MAX_RANK)
    throw UserError("logger emulator: tensormap rank " + std::to_string(t.rank) + " outside 1..5");
  for (const auto& o : tensormaps_)
    if (o.id == t.id)
      throw UserError("logger emulator: duplicate tensormap id " + std::to_string(t.id));
  tensormaps_.push_back(t);
}

uint64_t LoggerEmulator::index(uint64_t block, uint32_t warp) const {
  if (block >= num_blocks() || warp >= header_.warps_per_block)
    throw UserError("logger emulator: block " + std::to_string(block) + " warp " +
                    std::to_string(warp) + " outside the launch");
  return block * header_.warps_per_block + warp;
}

bool LoggerEmulator::record(uint64_t block, uint32_t warp, uint64_t timestamp, uint16_t event,
                            uint16_t stage, uint16_t payload) {
  const uint64_t buf = index(block, warp);
  const uint32_t n = counts_[buf];
  if (n >= header_.entries_per_warp) {  // device: overflow[buf] = 1; return;
    overflow_[buf] = 1;
    return false;
  }
  entries_[buf * header_.entries_per_warp + n] = Entry{timestamp, event, stage, payload, 0};
  counts_[buf] = n + 1;
  return true;
}

bool LoggerEmulator::record_warpgroup(uint64_t block, uint32_t wg, uint64_t timestamp,
                                      uint16_t event, uint16_t stage, uint16_t payload) {
  bool ok = true;
  for (uint32_t w = 4 * wg; w < 4 * wg + 4; ++w)
    ok = record(block, w, timestamp, event, stage, payload) && ok;
  return ok;
}

std::vector<unsigned char> LoggerEmulator::encode() const {
  return encode_log(header_, tensormaps_, {counts_.data(), overflow_.data(), entries_.data()});
}

void LoggerEmulator::write(const std::string& path) const {
  write_log(path, header_, tensormaps_, {counts_.data(), overflow_.data(), entries_.data()});
}

}  // namespace simfa::instr
