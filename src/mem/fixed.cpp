// FixedMemory: a single in-order server. A line starts service at max(now, next_free) and is
// answered `latency` cycles after the cycle in which service started; a request that would wait more than `queue` service times is
// refused and its SM is told to retry when the backlog has drained below that.
#include "mem/fixed.h"

#include <cmath>

#include "mem/memory_model.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/stats.h"

namespace simfa::mem {

FixedMemory::FixedMemory(const FixedMemoryParams& p, Engine& engine, int num_sms)
    : p_(p), engine_(engine), clients_(num_sms, nullptr), refused_(num_sms, false) {
  service_ = p_.line_bytes / p_.bytes_per_cycle;
}

void FixedMemory::connect(std::uint16_t sm, MemClient* client) { clients_.at(sm) = client; }

bool FixedMemory::try_send(const MemReq& r, Cycle now) {
  const double start = std::max(static_cast<double>(now), next_free_);
  if (start - static_cast<double>(now) > p_.queue * service_) {
    ++refusals_;
    if (!refused_[r.sm]) {
      refused_[r.sm] = true;
      const double ready = next_free_ - p_.queue * service_;
      engine_.send(this, kRetry, Payload::of(r.sm),
                   std::max<Cycle>(now + 1, static_cast<Cycle>(std::ceil(ready))));
    }
    return false;
  }
  next_free_ = start + service_;
  // The response leaves `latency` cycles after the cycle in which its service started.
  const Cycle done = std::max<Cycle>(now + 1, static_cast<Cycle>(std::floor(start)) + p_.latency);
  engine_.send(this, kResponse, Payload::of(r), done);
  ++in_flight_;
  const auto bytes = 32u * static_cast<unsigned>(__builtin_popcount(r.sectors));
  if (is_write(r.kind)) {
    ++writes_;
    write_bytes_ += bytes;
  } else {
    ++reads_;
    read_bytes_ += bytes;
  }
  return true;
}

void FixedMemory::on_event(std::uint32_t tag, const Payload& p, Cycle now) {
  if (tag == kResponse) {
    const MemReq r = p.as<MemReq>();
    --in_flight_;
    clients_[r.sm]->on_response(r, now);
  } else {
    const auto sm = p.as<std::uint16_t>();
    refused_[sm] = false;
    clients_[sm]->on_retry(now);
  }
}

void FixedMemory::register_stats(Stats& s) {
  s.counter("gpu.mem.reads", &reads_, "lines", "line reads served");
  s.counter("gpu.mem.writes", &writes_, "lines", "line writes served");
  s.counter("gpu.mem.read_bytes", &read_bytes_, "bytes", "bytes read (touched sectors)");
  s.counter("gpu.mem.write_bytes", &write_bytes_, "bytes", "bytes written (touched sectors)");
  s.counter("gpu.mem.refusals", &refusals_, "requests", "requests refused by back-pressure");
}

extern const MemoryModelVariant fixed_memory_model;
constinit const MemoryModelVariant fixed_memory_model{
    "fixed", "latency + bandwidth, no caches (for testing the core)",
    [](const Config& cfg, Engine& engine, int num_sms) -> std::unique_ptr<MemorySystem> {
      FixedMemoryParams p;
      p.latency = cfg.u("mem.fixed.latency");
      p.bytes_per_cycle = cfg.f("mem.fixed.bytes_per_cycle");
      p.queue = static_cast<std::uint32_t>(cfg.u("mem.fixed.queue"));
      p.line_bytes = static_cast<std::uint32_t>(cfg.u("mem.line_bytes"));
      return std::make_unique<FixedMemory>(p, engine, num_sms);
    }};

}  // namespace simfa::mem
