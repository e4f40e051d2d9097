// L1Cache: one sectored TagArray per SM, indexed by the low bits of the line index.
#include "mem/l1_cache.h"

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::mem {

L1Cache::L1Cache(const L1Params& p, std::uint32_t line_bytes, int num_sms, std::uint64_t seed) {
  const std::uint64_t lines = p.size / line_bytes;
  const std::uint32_t sets = static_cast<std::uint32_t>(lines / p.assoc);
  if (sets == 0) user_error("mem.l1.size = {} bytes holds less than one set of {} ways", p.size, p.assoc);
  caches_.reserve(num_sms);
  for (int i = 0; i < num_sms; ++i)
    caches_.emplace_back(sets, p.assoc, 1,
                         make_replacement(p.replacement, sets * p.assoc, seed, fmt::format("l1.{}", i)));
}

bool L1Cache::hit(std::uint16_t sm, std::uint64_t line, std::uint8_t sectors) {
  TagArray& c = caches_[sm];
  const std::int32_t idx = c.find(line);
  if (idx != TagArray::kMiss && (c.valid(idx) & sectors) == sectors) {
    c.touch(idx);
    ++hits;
    return true;
  }
  ++misses;
  return false;
}

void L1Cache::fill(std::uint16_t sm, std::uint64_t line, std::uint8_t sectors) {
  TagArray& c = caches_[sm];
  const std::int32_t idx = c.find(line);
  if (idx != TagArray::kMiss) {
    c.add_sectors(idx, sectors, 0);
    return;
  }
  TagArray::Victim v;
  c.insert(line, sectors, 0, false, v);
}

void L1Cache::invalidate(std::uint16_t sm, std::uint64_t line) {
  TagArray& c = caches_[sm];
  const std::int32_t idx = c.find(line);
  if (idx != TagArray::kMiss) c.invalidate(idx);
}

}  // namespace simfa::mem
