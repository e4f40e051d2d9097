// Generator streams: each InstrStream produces its instructions a few at a time from a counter,
// so a million-hop chase or a multi-gigabyte walk costs no memory.
#include "microbench/sources.h"

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::microbench {
namespace {

using trace::Instr;

class ChaseStream final : public trace::InstrStream {
 public:
  ChaseStream(const ChaseParams& p) : p_(p), perm_(p.lines, p.seed) {}
  std::size_t read(Instr* out, std::size_t max) override {
    std::size_t n = 0;
    while (n + 5 <= max && hop_ < p_.hops) {
      const Addr a = kArrayBase + perm_(hop_) * p_.line_bytes;
      if (p_.tma) {
        out[n++] = Instr::acquire(0, 16);
        out[n++] = Instr::tma_bulk(0, a, 16, 0);
        out[n++] = Instr::mb_wait(0);
        out[n++] = Instr::release(0);
        if (p_.hop_bubble) out[n++] = Instr::bubble(p_.hop_bubble);
      } else {
        out[n++] = Instr::ldg(a, 8);
      }
      ++hop_;
    }
    return n;
  }
  std::string where(std::uint64_t index) const override {
    return fmt::format("chase instruction {}", index);
  }

 private:
  ChaseParams p_;
  Permutation perm_;
  std::uint64_t hop_ = 0;
};

class CopyStream final : public trace::InstrStream {
 public:
  CopyStream(const CopyShape& s, std::uint64_t first, std::uint64_t step, std::uint64_t end,
             std::uint64_t nx, std::uint64_t ny, std::uint64_t tiles)
      : s_(s), t_(first), step_(step), end_(end), nx_(nx), ny_(ny), tiles_(tiles) {}
  std::size_t read(Instr* out, std::size_t max) override {
    std::size_t n = 0;
    const auto bytes = static_cast<std::uint32_t>(s_.bytes());
    while (n + 4 <= max && t_ < end_) {
      const std::uint64_t t = t_ % tiles_;  // later passes over a small array wrap around
      out[n++] = Instr::acquire(0, bytes);
      if (s_.kind == "bulk") {
        out[n++] = Instr::tma_bulk(0, kArrayBase + t * bytes, bytes, 0);
      } else {
        const std::uint64_t x = t % nx_, y = (t / nx_) % ny_, z = t / (nx_ * ny_);
        std::uint64_t off = x * s_.box[0];
        if (s_.kind != "tensor1d") off += y * s_.box[1] * s_.side;
        if (s_.kind == "tensor3d") off += z * s_.box[2] * s_.side * s_.side;
        out[n++] = Instr::tma_tensor(0, kArrayBase + off * s_.esz, 0, 0);
      }
      out[n++] = Instr::mb_wait(0);
      out[n++] = Instr::release(0);
      t_ += step_;
    }
    return n;
  }

 private:
  CopyShape s_;
  std::uint64_t t_, step_, end_, nx_, ny_, tiles_;
};

class KvStream final : public trace::InstrStream {
 public:
  KvStream(std::uint64_t copies, std::uint64_t tiles) : copies_(copies), tiles_(tiles) {}
  std::size_t read(Instr* out, std::size_t max) override {
    std::size_t n = 0;
    while (n + 4 <= max && k_ < copies_) {
      const Addr origin = kArrayBase + (k_ % tiles_) * 128 * 2048;
      out[n++] = Instr::acquire(0, KvStreamSource::kTileBytes);
      out[n++] = Instr::tma_tensor(0, origin, 0, 0);
      out[n++] = Instr::mb_wait(0);
      out[n++] = Instr::release(0);
      ++k_;
    }
    return n;
  }

 private:
  std::uint64_t copies_, tiles_, k_ = 0;
};

}  // namespace

KvStreamSource::KvStreamSource(std::uint32_t ctas, std::uint64_t copies, std::uint64_t rows_total)
    : copies_(copies), tiles_(std::max<std::uint64_t>(1, rows_total / 128)) {
  info_.name = "kv-stream";
  info_.ctas = ctas;
  info_.smem = kTileBytes;
  info_.threads = 128;
  info_.stages = 1;
  trace::TensorMap m;
  m.id = 0;
  m.rank = 2;
  m.esz = 2;
  m.dims[0] = 1024;  // 2 KiB rows
  m.dims[1] = tiles_ * 128;
  m.strides[0] = 2;
  m.strides[1] = 2048;
  m.box[0] = 128;
  m.box[1] = 128;
  m.base = kArrayBase;
  info_.define_tmap(m);
}

trace::CtaProgram KvStreamSource::open(std::uint32_t cta) {
  trace::CtaProgram prog;
  prog.id = cta;
  prog.wgs.push_back({"kv", std::make_unique<KvStream>(copies_, tiles_)});
  return prog;
}

ChaseSource::ChaseSource(const ChaseParams& p) : p_(p) {
  if (p.lines == 0) user_error("pointer chase: the working set holds no cache line");
  info_.name = p.tma ? "tma-latency" : "load-latency";
  info_.ctas = 1;
  info_.smem = 1024;
  info_.threads = 128;
  info_.stages = 1;
}

trace::CtaProgram ChaseSource::open(std::uint32_t cta) {
  trace::CtaProgram prog;
  prog.id = cta;
  prog.wgs.push_back({"chase", std::make_unique<ChaseStream>(p_)});
  return prog;
}

std::uint64_t CopyShape::tiles() const {
  if (kind == "bulk") return side / box[0];
  std::uint64_t n = side / box[0];
  if (kind != "tensor1d") n *= side / box[1];
  if (kind == "tensor3d") n *= side / box[2];
  return n;
}

std::uint64_t CopyShape::bytes() const {
  std::uint64_t n = esz;
  for (auto b : box) n *= b;
  return n;
}

std::string CopyShape::box_text() const {
  if (kind == "bulk" || kind == "tensor1d") return "";
  std::string s;
  for (auto b : box) s += (s.empty() ? "" : "x") + std::to_string(b);
  return s;
}

CopyShape CopyShape::parse(const std::string& kind, const std::string& box, double load_kib,
                           std::uint64_t array_bytes) {
  CopyShape s;
  s.kind = kind;
  const auto bytes = static_cast<std::uint64_t>(load_kib * 1024 + 0.5);
  if (kind == "bulk") {
    if (bytes == 0 || bytes % 16) user_error("bulk copy of {} KiB: bytes must be a multiple of 16", load_kib);
    s.esz = 1;
    s.box = {static_cast<std::uint32_t>(bytes)};
    s.side = array_bytes;
    return s;
  }
  if (kind == "tensor1d") {  // 8-byte elements, as in gpu/ubench/tma_bw.cu
    s.esz = 8;
    if (bytes % 8 || bytes / 8 == 0 || bytes / 8 > 256)
      user_error("tensor1d copy of {} KiB: the box must be 1..256 elements of 8 bytes", load_kib);
    s.box = {static_cast<std::uint32_t>(bytes / 8)};
    s.side = array_bytes / 8;
    return s;
  }
  const int rank = kind == "tensor2d" ? 2 : kind == "tensor3d" ? 3 : 0;
  if (rank == 0) user_error("copy kind '{}': expected bulk, tensor1d, tensor2d or tensor3d", kind);
  std::size_t pos = 0;
  while (pos <= box.size()) {
    const std::size_t x = box.find('x', pos);
    const std::string part = box.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    char* end = nullptr;
    const unsigned long v = std::strtoul(part.c_str(), &end, 10);
    if (part.empty() || *end || v == 0 || v > 256) user_error("box '{}': expected {} sizes 1..256 joined by 'x'", box, rank);
    s.box.push_back(static_cast<std::uint32_t>(v));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  if (static_cast<int>(s.box.size()) != rank) user_error("box '{}': a {} copy needs {} sizes", box, kind, rank);
  s.esz = 4;
  // 2D: square of side s with s*s*4 <= array bytes; 3D: cube (gpu/ubench/tma_bw.cu).
  const std::uint64_t elems = array_bytes / 4;
  std::uint64_t side = 1;
  if (rank == 2)
    while ((side * 2) * (side * 2) <= elems) side *= 2;
  else
    while ((side * 2) * (side * 2) * (side * 2) <= elems) side *= 2;
  s.side = side;
  for (auto b : s.box)
    if (b > side) user_error("box '{}' is larger than the {}-element tensor side", box, side);
  return s;
}

CopySource::CopySource(const CopyShape& s, std::uint32_t ctas, std::uint64_t copies)
    : s_(s), copies_(copies) {
  info_.name = "tma-bandwidth";
  info_.ctas = ctas;
  info_.smem = std::max<std::uint64_t>(1024, s.bytes());
  info_.threads = 128;
  info_.stages = 1;
  if (s.kind != "bulk") {
    trace::TensorMap m;
    m.id = 0;
    m.esz = s.esz;
    m.base = kArrayBase;
    if (s.kind == "tensor1d") {
      m.rank = 1;
      m.dims[0] = s.side;
      m.strides[0] = s.esz;
      m.box[0] = s.box[0];
      nx_ = s.side / s.box[0];
    } else {
      m.rank = static_cast<std::uint8_t>(s.box.size());
      for (int d = 0; d < m.rank; ++d) {
        m.dims[d] = s.side;
        m.box[d] = s.box[d];
      }
      m.strides[0] = s.esz;
      m.strides[1] = s.side * s.esz;
      if (m.rank == 3) m.strides[2] = s.side * s.side * s.esz;
      nx_ = s.side / s.box[0];
      ny_ = s.side / s.box[1];
    }
    if (auto err = trace::validate(m)) user_error("tensor map of the {} copy: {}", s.kind, *err);
    info_.define_tmap(m);
  }
}

trace::CtaProgram CopySource::open(std::uint32_t cta) {
  trace::CtaProgram prog;
  prog.id = cta;
  prog.wgs.push_back(
      {"copier", std::make_unique<CopyStream>(s_, cta, info_.ctas, copies_, nx_, ny_, s_.tiles())});
  return prog;
}

}  // namespace simfa::microbench
