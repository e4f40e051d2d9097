// In-memory trace sources and the whole-trace checks done before cycle 0.
#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "sim/error.h"
#include "trace/source.h"

namespace simfa::trace {

std::string InstrStream::where(std::uint64_t index) const { return fmt::format("instruction {}", index); }

std::size_t VectorStream::read(Instr* out, std::size_t max) {
  const std::size_t n = std::min(max, code_.size() - pos_);
  std::copy_n(code_.begin() + static_cast<std::ptrdiff_t>(pos_), n, out);
  pos_ += n;
  return n;
}

std::string VectorStream::where(std::uint64_t index) const {
  if (index < lines_.size()) return fmt::format("{}:{}", origin_, lines_[index]);
  return fmt::format("{}instruction {}", origin_.empty() ? "" : origin_ + ": ", index);
}

std::uint32_t MemoryTrace::wgs_per_cta(std::uint32_t cta) const {
  return static_cast<std::uint32_t>(ctas.at(cta).wgs.size());
}

CtaProgram MemoryTrace::open(std::uint32_t cta) {
  CtaProgram p;
  p.id = cta;
  for (const auto& w : ctas.at(cta).wgs) {
    std::string origin = w.file.empty() ? fmt::format("cta {} wg {}", cta, w.index) : w.file;
    p.wgs.push_back({w.role, std::make_unique<VectorStream>(w.code, origin, w.lines)});
  }
  return p;
}

namespace {

// Bytes one TMA load delivers to each destination CTA's stage.
std::uint64_t load_bytes(const Instr& in, const KernelInfo& k) {
  if (in.op == Op::TMA_BULK) return in.bytes();
  if (in.op == Op::TMA_TENSOR && k.has_tmap(in.map)) return k.tmap(in.map).box_bytes();
  return 0;
}

// ACQUIRE_STAGE without tx=: the bytes of this thread's TMA loads into that stage up to its next
// ACQUIRE_STAGE of the same stage, times the number of CTAs each load is multicast to. This equals
// what a symmetric cluster delivers to each CTA.
void infer_tx(WgData& w, const KernelInfo& k) {
  for (std::size_t i = 0; i < w.code.size(); ++i) {
    Instr& a = w.code[i];
    if (a.op != Op::ACQUIRE_STAGE || a.tx_bytes() != 0) continue;
    std::uint64_t tx = 0;
    for (std::size_t j = i + 1; j < w.code.size(); ++j) {
      const Instr& b = w.code[j];
      if (b.op == Op::ACQUIRE_STAGE && b.id == a.id) break;
      if ((b.op == Op::TMA_TENSOR || b.op == Op::TMA_BULK) && b.id == a.id)
        tx += load_bytes(b, k) * static_cast<std::uint64_t>(b.mc ? std::popcount(b.mc) : 1);
    }
    a.set_tx_bytes(static_cast<std::uint32_t>(std::min<std::uint64_t>(tx, 0xFFFFFFFFu)));
  }
}

}  // namespace

void MemoryTrace::finalize() {
  std::sort(ctas.begin(), ctas.end(), [](const CtaData& a, const CtaData& b) { return a.id < b.id; });
  auto origin_of = [&](const CtaData& c) {
    for (const auto& w : c.wgs)
      if (!w.file.empty()) return w.file;
    return std::string("trace");
  };
  const std::string first =
      !kernel_where.empty() ? kernel_where : ctas.empty() ? std::string("trace") : origin_of(ctas.front());
  if (ctas.empty()) throw UserError(fmt::format("{}: the trace has no CTA", first));
  if (info.ctas == 0) info.ctas = static_cast<std::uint32_t>(ctas.size());
  for (std::uint32_t i = 0; i < ctas.size(); ++i) {
    if (ctas[i].id != i)
      throw UserError(fmt::format("{}: CTA {} is missing (CTA ids must be 0..{})", origin_of(ctas[i]), i,
                                  info.ctas - 1));
  }
  if (ctas.size() != info.ctas)
    throw UserError(fmt::format("{}: KERNEL ctas={} but the trace has {} CTAs", first, info.ctas, ctas.size()));
  if (info.ctas % info.cluster != 0)
    throw UserError(fmt::format("{}: {} CTAs do not form whole clusters of {}", first, info.ctas, info.cluster));
  std::uint32_t max_wgs = 0;
  for (auto& c : ctas) {
    if (c.wgs.empty()) throw UserError(fmt::format("{}: CTA {} has no WG", origin_of(c), c.id));
    std::sort(c.wgs.begin(), c.wgs.end(), [](const WgData& a, const WgData& b) { return a.index < b.index; });
    for (std::uint32_t i = 0; i < c.wgs.size(); ++i)
      if (c.wgs[i].index != i)
        throw UserError(fmt::format("{}: CTA {} lacks WG {} (WG indices must be 0..{})", origin_of(c), c.id, i,
                                    c.wgs.size() - 1));
    max_wgs = std::max<std::uint32_t>(max_wgs, static_cast<std::uint32_t>(c.wgs.size()));
  }
  if (info.threads == 0) info.threads = 128 * max_wgs;
  for (auto& c : ctas) {
    for (auto& w : c.wgs) {
      infer_tx(w, info);
      for (std::size_t i = 0; i < w.code.size(); ++i) {
        if (auto e = validate(w.code[i], info)) {
          std::string where = i < w.lines.size() ? fmt::format("{}:{}", w.file, w.lines[i])
                                                 : fmt::format("cta {} wg {} instruction {}", c.id, w.index, i);
          throw UserError(fmt::format("{}: {}: {}", where, op_name(w.code[i].op), *e));
        }
      }
    }
  }
  validated = true;
}

}  // namespace simfa::trace
