// An untimed interpreter of the synchronization semantics (stages, fills, named barriers) used to
// check that synthesized traces complete: every TMA fill lands at once, GEMMs and stores are free,
// WarpGroups run round robin. A thread waits on MB_WAIT for fill max(waits, releases) of its own,
// the core's rule (docs/trace-format.md, MB_WAIT).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trace/isa.h"
#include "trace/source.h"

namespace simfa::workload::testing {

// Runs every CTA of `src` together; returns "" when all WarpGroups finish, else a description of
// the blocked ones or of a protocol violation.
inline std::string run_protocol(trace::TraceSource& src) {
  const trace::KernelInfo& k = src.kernel();
  struct Stage {
    std::uint64_t acquires = 0, releases = 0, fills = 0, recv = 0, armed = 0;
  };
  struct Bar {
    std::uint32_t count = 0, need = 0;
    std::uint64_t gen = 0;
  };
  struct Cta {
    std::vector<Stage> st;
    std::map<int, Bar> bars;
    std::vector<std::uint64_t> tx;  // armed tx per fill, per stage (flattened lists)
    std::vector<std::vector<std::uint64_t>> fill_tx;
  };
  struct Th {
    std::uint32_t cta;
    std::string role;
    std::vector<trace::Instr> code;
    std::size_t pc = 0;
    std::vector<std::uint64_t> waits, rel;
    bool in_bar = false;
    std::uint64_t bar_gen = 0;
  };
  std::vector<Cta> ctas(k.ctas);
  std::vector<Th> th;
  for (std::uint32_t c = 0; c < k.ctas; ++c) {
    ctas[c].st.resize(k.stages);
    ctas[c].fill_tx.resize(k.stages);
    auto p = src.open(c);
    for (auto& w : p.wgs) {
      Th t{c, w.role, {}, 0, std::vector<std::uint64_t>(k.stages), std::vector<std::uint64_t>(k.stages)};
      std::vector<trace::Instr> buf(64);
      for (std::size_t n; (n = w.stream->read(buf.data(), buf.size())) > 0;)
        t.code.insert(t.code.end(), buf.begin(), buf.begin() + n);
      th.push_back(std::move(t));
    }
  }
  auto complete_fills = [&](Cta& c, int sid) {
    Stage& s = c.st[sid];
    while (s.fills < s.acquires && s.recv >= c.fill_tx[sid][s.fills]) s.recv -= c.fill_tx[sid][s.fills++];
  };
  auto dests = [&](std::uint32_t cta, std::uint16_t mc) {
    std::vector<std::uint32_t> d;
    if (!mc) return std::vector<std::uint32_t>{cta};
    const std::uint32_t base = cta / k.cluster * k.cluster;
    for (std::uint32_t r = 0; r < k.cluster; ++r)
      if (mc >> r & 1) d.push_back(base + r);
    return d;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (auto& t : th) {
      for (;;) {
        if (t.pc >= t.code.size()) break;
        const trace::Instr& in = t.code[t.pc];
        if (auto e = trace::validate(in, k)) return fmt::format("cta {} {} pc {}: invalid: {}", t.cta, t.role, t.pc, *e);
        Cta& c = ctas[t.cta];
        bool ok = true;
        switch (in.op) {
          case trace::Op::ACQUIRE_STAGE: {
            Stage& s = c.st[in.id];
            if (s.releases < s.acquires * k.stage_arrivals) { ok = false; break; }
            c.fill_tx[in.id].push_back(in.tx_bytes());
            ++s.acquires;
            complete_fills(c, in.id);
            break;
          }
          case trace::Op::TMA_TENSOR:
            for (auto d : dests(t.cta, in.mc)) {
              ctas[d].st[in.id].recv += k.tmap(in.map).box_bytes();
              complete_fills(ctas[d], in.id);
            }
            break;
          case trace::Op::MB_WAIT: {
            const std::uint64_t phase = std::max(t.waits[in.id], t.rel[in.id]);
            if (c.st[in.id].fills <= phase) { ok = false; break; }
            t.waits[in.id] = phase + 1;
            break;
          }
          case trace::Op::RELEASE_STAGE:
            ++t.rel[in.id];
            for (auto d : dests(t.cta, in.mc)) ++ctas[d].st[in.id].releases;
            break;
          case trace::Op::BAR_ARRIVE: {
            Bar& b = c.bars[in.id];
            ++b.count;
            if (b.need && b.count > b.need) return fmt::format("cta {} barrier {} overflows", t.cta, in.id);
            if (b.need && b.count == b.need) b.count = 0, b.need = 0, ++b.gen;
            break;
          }
          case trace::Op::BAR_WAIT: {
            Bar& b = c.bars[in.id];
            if (!t.in_bar) {
              if (b.need && b.need != in.arrivals() + 1)
                return fmt::format("cta {} barrier {}: waiters disagree on the count", t.cta, in.id);
              t.in_bar = true;
              t.bar_gen = b.gen;
              b.need = in.arrivals() + 1;
              ++b.count;
              if (b.count > b.need) return fmt::format("cta {} barrier {} overflows", t.cta, in.id);
              if (b.count == b.need) b.count = 0, b.need = 0, ++b.gen;
            }
            if (b.gen == t.bar_gen) { ok = false; break; }
            t.in_bar = false;
            break;
          }
          default: break;
        }
        if (!ok) break;
        ++t.pc;
        progress = true;
      }
    }
  }
  std::string blocked;
  for (auto& t : th)
    if (t.pc < t.code.size())
      blocked += fmt::format("cta {} {} pc {}: {}; ", t.cta, t.role, t.pc, trace::format(t.code[t.pc]));
  return blocked;
}

}  // namespace simfa::workload::testing
