// The crossbar between the SMs and the L2 slices: the topology (each SM pair belongs to one L2
// partition, its "near" one; slices are split evenly between partitions; every slice has a
// mirror slice in each other partition) and the SMs' ports. An SM's injection port sends
// request packets at `sm_bytes_per_cycle` and holds at most `sm_queue` packets waiting; its
// ejection port delivers responses at the same rate. Link delays are fixed (latencies.h): the
// network is modelled as pipelines whose buffering is counted in the slices' credits.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mem/hierarchy_params.h"
#include "mem/ring_queue.h"
#include "sim/types.h"

namespace simfa::mem {

class Crossbar {
 public:
  Crossbar(const XbarParams& x, const L2Params& l2, int num_sms);

  std::uint32_t sm_partition(std::uint16_t sm) const { return sm_part_[sm]; }
  std::uint32_t slice_partition(std::uint32_t slice) const { return slice_part_[slice]; }
  // The slice of partition `part` that holds shadow copies of lines homed in `slice`.
  std::uint32_t mirror(std::uint32_t slice, std::uint32_t part) const {
    return mirror_[slice * partitions() + part];
  }
  // Index of `slice` within its partition (mirrors share it).
  std::uint32_t slice_offset(std::uint32_t slice) const { return slice - part_start_[slice_part_[slice]]; }
  std::uint32_t partitions() const { return static_cast<std::uint32_t>(part_start_.size()) - 1; }

  // Injection: whether SM `sm` can queue one more packet at `now`; if not, `retry_at` is the cycle
  // at which its oldest waiting packet will have left.
  // (The three port calls run once per line request each way: inline, so that the hierarchy's
  // send and delivery need no call for them.)
  bool can_inject(std::uint16_t sm, Cycle now, Cycle& retry_at) {
    Port& p = ports_[sm];
    while (!p.waiting.empty() && p.waiting.front() <= now) p.waiting.pop();
    if (p.waiting.size() < x_.sm_queue) return true;
    retry_at = p.waiting.front();
    return false;
  }
  // Queues a packet of `bytes` ready at `ready`; returns the cycle it leaves the SM.
  Cycle inject(std::uint16_t sm, std::uint32_t bytes, Cycle ready) {
    Port& p = ports_[sm];
    const double start = std::max(static_cast<double>(ready), p.inj_free);
    p.inj_free = start + bytes / x_.sm_bytes_per_cycle;
    const auto depart = ceil_cycle(start);
    if (depart > ready) p.waiting.push(depart);
    return depart;
  }
  // Ejection: a response of `bytes` reaching SM `sm` at `now` is delivered at the returned cycle.
  Cycle eject(std::uint16_t sm, std::uint32_t bytes, Cycle now) {
    Port& p = ports_[sm];
    const double start = std::max(static_cast<double>(now), p.ej_free);
    p.ej_free = start + bytes / x_.sm_bytes_per_cycle;
    return ceil_cycle(start);
  }

 private:
  XbarParams x_;
  std::vector<std::uint32_t> sm_part_, slice_part_, part_start_;
  std::vector<std::uint32_t> mirror_;  // [slice * partitions + part]
  struct Port {
    double inj_free = 0, ej_free = 0;
    RingQueue<Cycle> waiting{8};  // departure cycles of packets still in the injection queue
  };
  std::vector<Port> ports_;
};

}  // namespace simfa::mem
