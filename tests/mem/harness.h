// A small memory hierarchy with mock SMs and a fake DRAM, for tests of one behaviour each.
#pragma once
#include <memory>
#include <vector>

#include "fake_dram.h"
#include "mem/hierarchy.h"
#include "mock_sm.h"
#include "sim/engine.h"
#include "sim/stats.h"

namespace simfa::mem::test {

// Parameters of a scaled-down GPU: 8 slices in 2 partitions, 256 KiB of L2.
inline HierarchyParams small_params() {
  HierarchyParams p;
  p.l2.size = 256 * 1024;
  p.l2.slices = 8;
  p.l2.assoc = 4;
  p.l1.size = 16 * 1024;
  return p;
}

struct Harness {
  Engine engine;
  FakeDram* dram = nullptr;
  std::unique_ptr<Hierarchy> mem;
  std::vector<std::unique_ptr<MockSm>> sms;
  Stats stats;

  Harness(const HierarchyParams& p, int num_sms, Cycle dram_latency = 200,
          std::uint32_t dram_queue = 1u << 30, bool skip = true, std::uint32_t per_cycle = 2)
      : engine(skip) {
    mem = std::make_unique<Hierarchy>(p, engine, num_sms, [&](DramClient* c) {
      auto d = std::make_unique<FakeDram>(engine, c, dram_latency, 8, dram_queue);
      dram = d.get();
      return d;
    });
    for (int i = 0; i < num_sms; ++i)
      sms.push_back(std::make_unique<MockSm>(engine, *mem, static_cast<std::uint16_t>(i), per_cycle));
    mem->register_stats(stats);
  }
  // Runs until every SM got all its responses; returns false on a deadlock or past `limit`.
  bool run(Cycle limit = 10'000'000) {
    for (auto& s : sms) s->start();
    return engine.run([&] {
      for (auto& s : sms)
        if (!s->done()) return false;
      return true;
    }, limit);
  }
  double stat(const std::string& name) const { return stats.value(name); }
};

// An address whose home slice is in partition `part` (searching from `from`).
inline Addr addr_in_partition(const Hierarchy& h, std::uint32_t part, Addr from = 0) {
  for (Addr a = from;; a += 128)
    if (h.crossbar().slice_partition(h.home_slice(a)) == part) return a;
}

}  // namespace simfa::mem::test
