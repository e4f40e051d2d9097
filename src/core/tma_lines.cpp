// Box walk: every row (a run of box[0] contiguous elements) is visited in index order; rows are
// clipped to the tensor when its base is known; the line list is merged (sort + unique) only when
// rows were not already produced in strictly ascending, disjoint line order.
#include "core/tma_lines.h"

#include <algorithm>
#include <array>
#include <bit>

namespace simfa::core {

std::uint8_t sector_mask(Addr line, Addr lo, Addr hi, std::uint32_t line_bytes) {
  const Addr sector = line_bytes / 4;
  const Addr a = std::max(lo, line), b = std::min(hi, line + line_bytes);
  if (b <= a) return 0;
  const unsigned first = static_cast<unsigned>((a - line) / sector);
  const unsigned last = static_cast<unsigned>((b - 1 - line) / sector);
  return static_cast<std::uint8_t>(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
}

namespace {

void row_lines(Addr lo, Addr hi, std::uint32_t line_bytes, std::vector<LineReq>& out) {
  if ((line_bytes & (line_bytes - 1)) != 0 || line_bytes < 4) {  // (std::has_single_bit: a libgcc call here)
    for (Addr line = lo / line_bytes * line_bytes; line < hi; line += line_bytes)
      out.push_back({line, sector_mask(line, lo, hi, line_bytes)});
    return;
  }
  // Power-of-two lines (quarters too): sector_mask by shifts; lines between the first and the
  // last are whole.
  const int qs = std::countr_zero(line_bytes) - 2;  // log2 of a quarter
  const Addr lm = line_bytes - 1;
  const Addr first = lo & ~lm, last = (hi - 1) & ~lm;
  const auto quarters = [qs](Addr a, Addr b) {  // quarters touched by [a, b), offsets in one line
    const unsigned q0 = static_cast<unsigned>(a >> qs), q1 = static_cast<unsigned>((b - 1) >> qs);
    return static_cast<std::uint8_t>(((2u << q1) - 1) & ~((1u << q0) - 1));
  };
  if (first == last) {
    out.push_back({first, quarters(lo - first, hi - first)});
    return;
  }
  out.push_back({first, quarters(lo - first, line_bytes)});
  for (Addr line = first + line_bytes; line < last; line += line_bytes) out.push_back({line, 0xF});
  out.push_back({last, quarters(0, hi - last)});
}

}  // namespace

std::uint64_t copy_bytes(const trace::KernelInfo& k, const trace::Instr& in) {
  return in.op == trace::Op::TMA_BULK ? in.bytes() : k.tmap(in.map).box_bytes();
}

void copy_lines(const trace::KernelInfo& k, const trace::Instr& in, std::uint32_t line_bytes,
                std::vector<LineReq>& out) {
  if (in.op == trace::Op::TMA_BULK)
    bulk_lines(in.gmem, in.bytes(), line_bytes, out);
  else
    tensor_box_lines(k.tmap(in.map), in.gmem, true, line_bytes, out);
}

void bulk_lines(Addr addr, std::uint64_t bytes, std::uint32_t line_bytes, std::vector<LineReq>& out) {
  if (bytes) row_lines(addr, addr + bytes, line_bytes, out);
}

namespace {

// Which part of a box lies inside the tensor (all of it when the map has no base address or the
// origin lies below it): elements [0, inner) of each row, rows [0, rows[d]) along dimension d >= 1.
struct BoxClip {
  std::uint64_t inner = 0;
  std::array<std::uint64_t, trace::kMaxRank> rows{};
  bool empty = false;
};

BoxClip clip_box(const trace::TensorMap& m, Addr origin) {
  const int rank = m.rank;
  // Origin coordinates (only needed to clip against the tensor when the base is known).
  std::uint64_t coord[trace::kMaxRank] = {};
  const bool clip = m.base.has_value() && origin >= *m.base;
  if (clip) {
    std::uint64_t off = origin - *m.base;
    for (int d = rank - 1; d >= 1; --d) {
      coord[d] = off / m.strides[d];
      off %= m.strides[d];
    }
    coord[0] = off / m.esz;
  }
  BoxClip c;
  c.inner = m.box[0];
  if (clip) c.inner = coord[0] >= m.dims[0] ? 0 : std::min<std::uint64_t>(m.box[0], m.dims[0] - coord[0]);
  c.empty = c.inner == 0;
  for (int d = 1; d < rank; ++d) {
    c.rows[d] = m.box[d];
    if (clip) c.rows[d] = coord[d] >= m.dims[d] ? 0 : std::min<std::uint64_t>(m.box[d], m.dims[d] - coord[d]);
    c.empty = c.empty || c.rows[d] == 0;
  }
  return c;
}

// The lines of the rows inside the tensor (clipped rows fetch nothing, so only these are visited,
// in the same index order).
void walk_box(const trace::TensorMap& m, Addr origin, const BoxClip& c, bool dedup, std::uint32_t line_bytes,
              std::vector<LineReq>& out) {
  const int rank = m.rank;
  const std::size_t first = out.size();
  bool ordered = true;
  std::uint64_t idx[trace::kMaxRank] = {};
  Addr row = origin;  // origin + sum of idx[d] * strides[d]
  bool more = !c.empty;
  while (more) {
    const Addr lo = row, hi = row + c.inner * m.esz;
    if (dedup) {
      const std::size_t before = out.size();
      row_lines(lo, hi, line_bytes, out);
      if (before > first && out[before].line <= out[before - 1].line) ordered = false;
    } else {
      for (Addr e = lo; e < hi; e += m.esz) {
        const Addr line = e / line_bytes * line_bytes;
        out.push_back({line, sector_mask(line, e, e + m.esz, line_bytes)});
      }
    }
    int d = 1;
    for (; d < rank; ++d) {
      row += m.strides[d];
      if (++idx[d] < c.rows[d]) break;
      row -= static_cast<Addr>(idx[d]) * m.strides[d];
      idx[d] = 0;
    }
    more = d < rank;
  }
  if (dedup && !ordered) {
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
              [](const LineReq& a, const LineReq& b) { return a.line < b.line; });
    std::size_t w = first;
    for (std::size_t r = first; r < out.size(); ++r) {
      if (w > first && out[w - 1].line == out[r].line)
        out[w - 1].sectors |= out[r].sectors;
      else
        out[w++] = out[r];
    }
    out.resize(w);
  }
}

}  // namespace

void tensor_box_lines(const trace::TensorMap& m, Addr origin, bool dedup, std::uint32_t line_bytes,
                      std::vector<LineReq>& out) {
  walk_box(m, origin, clip_box(m, origin), dedup, line_bytes, out);
}

std::size_t BoxPatterns::KeyHash::operator()(const Key& k) const {
  std::uint64_t h = k.map * 0x9E3779B97F4A7C15ULL ^ k.offset ^ (k.inner << 20) ^ (std::uint64_t{k.dedup} << 63) ^
                    (std::uint64_t{k.line_bytes} << 40);
  for (std::uint64_t r : k.rows) h = (h ^ r) * 0xFF51AFD7ED558CCDULL;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

bool BoxPatterns::find(const trace::TensorMap& m, Addr origin, bool dedup, std::uint32_t line_bytes,
                       BoxPattern& out) {
  const BoxClip c = clip_box(m, origin);
  const Addr offset = origin % line_bytes;
  const Key key{m.id, dedup, line_bytes, offset, c.inner, c.empty ? decltype(c.rows){} : c.rows};
  auto it = index_.find(key);
  if (it == index_.end()) {
    if (full_) return false;
    Entry e{m, {}};
    // The pattern is the box at `offset` from address 0: its lines are those of the copy less
    // its origin rounded down to a line.
    walk_box(m, offset, c, dedup, line_bytes, e.lines);
    if (held_ + e.lines.size() > max_lines_) {
      full_ = true;
      return false;
    }
    held_ += e.lines.size();
    entries_.push_back(std::move(e));
    it = index_.emplace(key, entries_.size() - 1).first;
  }
  const Entry& e = entries_[it->second];
  if (!(e.map == m)) return false;  // another kernel's map of the same id
  out.lines = e.lines.data();
  out.size = static_cast<std::uint32_t>(e.lines.size());
  out.base = origin - offset;
  return true;
}

}  // namespace simfa::core
