// ISA tables, builders, validation rules and the canonical text of instructions.
#include "trace/isa.h"

#include <fmt/format.h>

#include "sim/error.h"

namespace simfa::trace {
namespace {

constexpr std::string_view kOpNames[] = {
    "TMA_TENSOR", "TMA_BULK", "MB_WAIT",      "ACQUIRE_STAGE", "RELEASE_STAGE",
    "TMA_STORE",  "TMA_COMMIT", "TMA_WAIT",   "WGMMA",         "WGMMA_COMMIT",
    "WGMMA_WAIT", "BAR_ARRIVE", "BAR_WAIT",   "BUBBLE",        "LDG"};
static_assert(std::size(kOpNames) == static_cast<std::size_t>(Op::kCount));

constexpr std::string_view kDTypeNames[] = {"f16", "bf16", "e4m3", "e5m2", "tf32"};

std::string hex(std::uint64_t v) { return fmt::format("{:#x}", v); }

std::string join_list(const std::uint64_t* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::string_view op_name(Op op) { return kOpNames[static_cast<int>(op)]; }

std::optional<Op> op_from_name(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kOpNames); ++i)
    if (kOpNames[i] == name) return static_cast<Op>(i);
  if (name == "bubbles") return Op::BUBBLE;  // Table 3 spells the bubble row "bubbles"
  return std::nullopt;
}

std::string_view dtype_name(DType t) { return kDTypeNames[static_cast<int>(t)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kDTypeNames); ++i)
    if (kDTypeNames[i] == name) return static_cast<DType>(i);
  return std::nullopt;
}

int dtype_bytes(DType t) {
  switch (t) {
    case DType::F16:
    case DType::BF16: return 2;
    case DType::E4M3:
    case DType::E5M2: return 1;
    case DType::TF32: return 4;
  }
  return 2;
}

void Instr::wrong_operand(const char* accessor) const {
  throw InternalError(fmt::format("trace::Instr::{}() of a {} instruction", accessor, op_name(op)));
}

Instr Instr::tma_tensor(std::uint64_t smem, std::uint64_t gmem, std::uint16_t map, std::uint16_t sid,
                        std::uint16_t mc) {
  Instr i;
  i.op = Op::TMA_TENSOR;
  i.smem = smem, i.gmem = gmem, i.map = map, i.id = sid, i.mc = mc;
  return i;
}
Instr Instr::tma_bulk(std::uint64_t smem, std::uint64_t gmem, std::uint32_t bytes, std::uint16_t sid,
                      std::uint16_t mc) {
  Instr i;
  i.op = Op::TMA_BULK;
  i.smem = smem, i.gmem = gmem, i.operand_ = bytes, i.id = sid, i.mc = mc;
  return i;
}
Instr Instr::mb_wait(std::uint16_t sid) {
  Instr i;
  i.op = Op::MB_WAIT;
  i.id = sid;
  return i;
}
Instr Instr::acquire(std::uint16_t sid, std::uint32_t tx) {
  Instr i;
  i.op = Op::ACQUIRE_STAGE;
  i.id = sid, i.operand_ = tx;
  return i;
}
Instr Instr::release(std::uint16_t sid, std::uint16_t mc) {
  Instr i;
  i.op = Op::RELEASE_STAGE;
  i.id = sid, i.mc = mc;
  return i;
}
Instr Instr::tma_store(std::uint64_t smem, std::uint64_t gmem, std::uint16_t map, std::uint16_t gid) {
  Instr i;
  i.op = Op::TMA_STORE;
  i.smem = smem, i.gmem = gmem, i.map = map, i.id = gid;
  return i;
}
Instr Instr::tma_commit(std::uint16_t gid) {
  Instr i;
  i.op = Op::TMA_COMMIT;
  i.id = gid;
  return i;
}
Instr Instr::tma_wait(std::uint16_t gid, std::uint32_t n, bool read_only) {
  Instr i;
  i.op = Op::TMA_WAIT;
  i.id = gid, i.operand_ = n, i.mode = read_only ? 1 : 0;
  return i;
}
Instr Instr::wgmma(std::uint32_t d, std::uint64_t a, std::uint64_t b, std::uint16_t m, std::uint16_t n,
                   std::uint16_t k, DType t, bool acc, MmaMode mode, bool sp, std::uint16_t gid) {
  Instr i;
  i.op = Op::WGMMA;
  i.d = d, i.smem = a, i.gmem = b, i.m = m, i.n = n, i.k = k;
  i.dtype = static_cast<std::uint8_t>(t);
  i.flags = static_cast<std::uint8_t>((acc ? 1 : 0) | (sp ? 2 : 0));
  i.mode = static_cast<std::uint8_t>(mode);
  i.id = gid;
  return i;
}
Instr Instr::wgmma_commit(std::uint16_t gid) {
  Instr i;
  i.op = Op::WGMMA_COMMIT;
  i.id = gid;
  return i;
}
Instr Instr::wgmma_wait(std::uint16_t gid, std::uint32_t n) {
  Instr i;
  i.op = Op::WGMMA_WAIT;
  i.id = gid, i.operand_ = n;
  return i;
}
Instr Instr::bar_arrive(std::uint16_t bid) {
  Instr i;
  i.op = Op::BAR_ARRIVE;
  i.id = bid;
  return i;
}
Instr Instr::bar_wait(std::uint16_t bid, std::uint32_t k) {
  Instr i;
  i.op = Op::BAR_WAIT;
  i.id = bid, i.operand_ = k;
  return i;
}
Instr Instr::bubble(std::uint32_t cycles, bool fixed) {
  Instr i;
  i.op = Op::BUBBLE;
  i.operand_ = cycles;
  i.flags = fixed ? kBubbleFixed : 0;
  return i;
}
Instr Instr::sleep(std::uint32_t cycles) {
  Instr i = bubble(cycles);
  i.flags = kBubbleSleep;
  return i;
}
Instr Instr::ldg(std::uint64_t gmem, std::uint32_t bytes) {
  Instr i;
  i.op = Op::LDG;
  i.gmem = gmem, i.operand_ = bytes;
  return i;
}

namespace {

// a + b, or nullopt past kGlobalAddressLimit (no wrap: the operands are below 2^64 and the sum is
// checked in 128 bits).
std::optional<std::uint64_t> add_within(std::uint64_t a, unsigned __int128 b) {
  const unsigned __int128 s = static_cast<unsigned __int128>(a) + b;
  if (s > kGlobalAddressLimit) return std::nullopt;
  return static_cast<std::uint64_t>(s);
}

// Bytes from the first to one past the last byte of `count[i]` elements along each dimension.
unsigned __int128 extent(const TensorMap& m, const std::uint64_t* count) {
  unsigned __int128 e = static_cast<unsigned __int128>(m.esz) * count[0];
  for (int i = 1; i < m.rank; ++i)
    e += static_cast<unsigned __int128>(m.strides[i]) * (count[i] ? count[i] - 1 : 0);
  return e;
}

std::string address_error(std::string_view what, std::uint64_t addr, unsigned __int128 bytes) {
  const auto shown = bytes > ~std::uint64_t{0} ? ~std::uint64_t{0} : static_cast<std::uint64_t>(bytes);
  return fmt::format("{} at {:#x} ({}{} bytes) reaches beyond the 47-bit global address space (below {:#x})", what,
                     addr, bytes > ~std::uint64_t{0} ? "more than " : "", shown, kGlobalAddressLimit);
}

}  // namespace

unsigned __int128 TensorMap::tensor_extent() const {
  return extent(*this, dims.data());
}

unsigned __int128 TensorMap::box_extent() const {
  std::uint64_t b[kMaxRank] = {};
  for (int i = 0; i < rank; ++i) b[i] = box[i];
  return extent(*this, b);
}

std::uint64_t TensorMap::box_bytes() const {
  std::uint64_t b = esz;
  for (int i = 0; i < rank; ++i) b *= box[i];
  return b;
}

void KernelInfo::define_tmap(const TensorMap& m) {
  if (tmaps.size() <= m.id) {
    tmaps.resize(m.id + 1);
    tmap_defined.resize(m.id + 1, false);
  }
  tmaps[m.id] = m;
  tmap_defined[m.id] = true;
}

std::optional<std::string> validate(const TensorMap& m) {
  if (m.rank < 1 || m.rank > kMaxRank) return fmt::format("rank {} is not in 1..{}", m.rank, kMaxRank);
  if (m.esz != 1 && m.esz != 2 && m.esz != 4 && m.esz != 8)
    return fmt::format("element size {} is not 1, 2, 4 or 8 bytes", m.esz);
  for (int i = 0; i < m.rank; ++i) {
    if (m.dims[i] == 0) return fmt::format("dimension {} is zero", i);
    if (m.box[i] == 0) return fmt::format("box dimension {} is zero", i);
    if (m.box[i] > 256) return fmt::format("box dimension {} = {} exceeds 256 elements", i, m.box[i]);
    if (m.box[i] > m.dims[i])
      return fmt::format("box dimension {} = {} is larger than the tensor's {}", i, m.box[i], m.dims[i]);
  }
  for (int i = 1; i < m.rank; ++i) {
    if (m.strides[i] == 0) return fmt::format("stride {} is zero", i);
    if (m.strides[i] % 16 != 0) return fmt::format("stride {} = {} is not a multiple of 16 bytes", i, m.strides[i]);
    // The TMA engine recovers a box's coordinates from its address (to clip it to the tensor), which
    // needs the dimensions innermost first and not overlapping.
    // 128-bit: a 64-bit product wraps for a huge dimension (2^62 elements of 4 bytes is 0).
    const unsigned __int128 below =
        static_cast<unsigned __int128>(i == 1 ? m.esz : m.strides[i - 1]) * m.dims[i - 1];
    if (m.strides[i] < below) {
      const std::string extent_text = below > ~std::uint64_t{0} ? "at least 2^64"
                                                                 : std::to_string(static_cast<std::uint64_t>(below));
      return fmt::format("stride {} = {} is smaller than dimension {}'s extent of {} bytes: list the dimensions "
                         "innermost first, without overlap",
                         i, m.strides[i], i - 1, extent_text);
    }
  }
  if ((static_cast<std::uint64_t>(m.box[0]) * m.esz) % 16 != 0)
    return fmt::format("inner box extent {} bytes is not a multiple of 16", m.box[0] * m.esz);
  if (m.base && !add_within(*m.base, m.tensor_extent())) return address_error("the tensor", *m.base, m.tensor_extent());
  return std::nullopt;
}

std::optional<std::string> validate(const Instr& in, const KernelInfo& k) {
  auto stage = [&]() -> std::optional<std::string> {
    if (in.id >= k.stages) return fmt::format("stage id {} out of range (KERNEL stages={})", in.id, k.stages);
    return std::nullopt;
  };
  auto group = [&]() -> std::optional<std::string> {
    if (in.id >= k.groups) return fmt::format("group id {} out of range (KERNEL groups={})", in.id, k.groups);
    return std::nullopt;
  };
  auto mcast = [&]() -> std::optional<std::string> {
    if (in.mc >> k.cluster)
      return fmt::format("multicast mask {:#x} names CTAs beyond the cluster of {}", in.mc, k.cluster);
    return std::nullopt;
  };
  auto box = [&]() -> std::optional<std::string> {  // the box a tensor copy moves
    if (!add_within(in.gmem, k.tmap(in.map).box_extent()))
      return address_error(fmt::format("the box of TensorMap {}", in.map), in.gmem, k.tmap(in.map).box_extent());
    return std::nullopt;
  };
  switch (in.op) {
    case Op::TMA_TENSOR:
      if (!k.has_tmap(in.map)) return fmt::format("TensorMap {} was never declared (DEF_TMAP)", in.map);
      if (auto e = box()) return e;
      if (auto e = mcast()) return e;
      return stage();
    case Op::TMA_BULK:
      if (in.bytes() == 0 || in.bytes() % 16 != 0) return fmt::format("bulk size {} is not a positive multiple of 16 bytes", in.bytes());
      if (in.gmem % 16 != 0 || in.smem % 16 != 0) return std::string("bulk copy addresses must be 16-byte aligned");
      if (!add_within(in.gmem, in.bytes())) return address_error("the copy", in.gmem, in.bytes());
      if (auto e = mcast()) return e;
      return stage();
    case Op::MB_WAIT:
    case Op::ACQUIRE_STAGE: return stage();
    case Op::RELEASE_STAGE:
      if (auto e = mcast()) return e;
      return stage();
    case Op::TMA_STORE:
      if (!k.has_tmap(in.map)) return fmt::format("TensorMap {} was never declared (DEF_TMAP)", in.map);
      if (auto e = box()) return e;
      return group();
    case Op::TMA_COMMIT:
    case Op::TMA_WAIT:
    case Op::WGMMA_COMMIT:
    case Op::WGMMA_WAIT: return group();
    case Op::WGMMA: {
      if (in.dtype > static_cast<int>(DType::TF32)) return std::string("unknown dtype");
      const auto t = static_cast<DType>(in.dtype);
      const bool sp = in.flags & 2;
      // Dense K is 32 bytes of A: 16 for 16-bit types, 32 for FP8, 8 for TF32; sparse doubles it.
      const int dense_k = 32 / dtype_bytes(t);
      const int want_k = sp ? 2 * dense_k : dense_k;
      if (in.m != 64) return fmt::format("WGMMA M = {} is not supported (Hopper: M = 64)", in.m);
      if (in.k != want_k)
        return fmt::format("WGMMA K = {} is not supported for {}{} (Hopper: K = {})", in.k, dtype_name(t),
                           sp ? " sparse" : "", want_k);
      if (in.n == 0 || in.n % 8 != 0 || in.n > 256)
        return fmt::format("WGMMA N = {} is not supported (Hopper: a multiple of 8 up to 256)", in.n);
      if (in.mode == static_cast<int>(MmaMode::SS) || in.mode == static_cast<int>(MmaMode::RS)) return group();
      return std::string("WGMMA mode must be SS or RS");
    }
    case Op::BAR_ARRIVE:
    case Op::BAR_WAIT:
      if (in.id >= kNamedBarriers) return fmt::format("barrier id {} out of range (0..{})", in.id, kNamedBarriers - 1);
      if (in.op == Op::BAR_WAIT && in.arrivals() == 0) return std::string("BAR_WAIT k must be at least 1");
      return std::nullopt;
    case Op::BUBBLE:
      if (in.cycles() == 0) return std::string("bubble length must be at least 1 cycle");
      return std::nullopt;
    case Op::LDG:
      if (in.bytes() == 0 || in.bytes() > 128) return fmt::format("LDG size {} is not in 1..128 bytes", in.bytes());
      if (!add_within(in.gmem, in.bytes())) return address_error("the load", in.gmem, in.bytes());
      return std::nullopt;
    case Op::kCount: break;
  }
  return std::string("unknown opcode");
}

std::string format(const Instr& in) {
  const std::string_view name = op_name(in.op);
  auto mc = [&]() { return in.mc ? fmt::format(" mc={:#x}", in.mc) : std::string(); };
  switch (in.op) {
    case Op::TMA_TENSOR: return fmt::format("{} {} {} {} {}{}", name, hex(in.smem), hex(in.gmem), in.map, in.id, mc());
    case Op::TMA_BULK: return fmt::format("{} {} {} {} {}{}", name, hex(in.smem), hex(in.gmem), in.bytes(), in.id, mc());
    case Op::MB_WAIT: return fmt::format("{} {}", name, in.id);
    case Op::ACQUIRE_STAGE:
      return in.tx_bytes() ? fmt::format("{} {} tx={}", name, in.id, in.tx_bytes()) : fmt::format("{} {}", name, in.id);
    case Op::RELEASE_STAGE: return fmt::format("{} {}{}", name, in.id, mc());
    case Op::TMA_STORE: return fmt::format("{} {} {} {} {}", name, hex(in.smem), hex(in.gmem), in.map, in.id);
    case Op::TMA_COMMIT:
    case Op::WGMMA_COMMIT:
    case Op::BAR_ARRIVE: return fmt::format("{} {}", name, in.id);
    case Op::TMA_WAIT: return fmt::format("{} {} {}{}", name, in.id, in.max_pending(), in.mode ? " read=1" : "");
    case Op::WGMMA_WAIT: return fmt::format("{} {} {}", name, in.id, in.max_pending());
    case Op::BAR_WAIT: return fmt::format("{} {} {}", name, in.id, in.arrivals());
    case Op::WGMMA:
      return fmt::format("{} {} {} {} {} {} {} {} {} {} {} {}", name, in.d, hex(in.smem), hex(in.gmem), in.m, in.n,
                         in.k, dtype_name(static_cast<DType>(in.dtype)), in.flags & 1,
                         in.mode == static_cast<int>(MmaMode::RS) ? "RS" : "SS", (in.flags >> 1) & 1, in.id);
    case Op::BUBBLE:
      return fmt::format("{} {}{}{}", name, in.cycles(), (in.flags & kBubbleFixed) ? " fixed=1" : "",
                         (in.flags & kBubbleSleep) ? " (sampled: fast-forward)" : "");
    case Op::LDG: return fmt::format("{} {} {}", name, hex(in.gmem), in.bytes());
    case Op::kCount: break;
  }
  return "?";
}

std::string format(const TensorMap& m) {
  std::uint64_t box[kMaxRank];
  for (int i = 0; i < m.rank; ++i) box[i] = m.box[i];
  std::string strides = m.rank > 1 ? join_list(m.strides.data() + 1, m.rank - 1) : "-";
  std::string s = fmt::format("DEF_TMAP {} {} {} {} {} {}", m.id, m.rank, join_list(m.dims.data(), m.rank),
                              strides, join_list(box, m.rank), m.esz);
  if (m.base) s += fmt::format(" base={:#x}", *m.base);
  return s;
}

std::string format_kernel_line(const KernelInfo& k) {
  return fmt::format("KERNEL name={} ctas={} cluster={} smem={} regs={} threads={} stages={} "
                     "stage_arrivals={} groups={}",
                     k.name, k.ctas, k.cluster, k.smem, k.regs, k.threads, k.stages, k.stage_arrivals, k.groups);
}

}  // namespace simfa::trace
