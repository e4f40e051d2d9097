// The simfa trace ISA (paper Table 3 plus TMA_BULK and LDG): the in-memory instruction record,
// tensor-map descriptors and kernel-level information shared by readers, generators and the core.
// The text form is specified in docs/trace-format.md.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/types.h"

namespace simfa::trace {

inline constexpr int kFormatVersion = 1;

enum class Op : std::uint8_t {
  TMA_TENSOR,     // smem gmem map sid            async tensor-map load into stage sid
  TMA_BULK,       // smem gmem bytes sid          async non-tensor bulk load (no TensorMap setup)
  MB_WAIT,        // sid                          wait until the current fill of sid completed
  ACQUIRE_STAGE,  // sid                          wait until every consumer released sid
  RELEASE_STAGE,  // sid                          a consumer is done with sid
  TMA_STORE,      // smem gmem map gid            async tensor-map store in group gid
  TMA_COMMIT,     // gid                          seal store group gid
  TMA_WAIT,       // gid N                        wait until <= N committed store groups (id <= gid) remain
  WGMMA,          // d a b M N K dtype acc mode sp gid
  WGMMA_COMMIT,   // gid
  WGMMA_WAIT,     // gid N                        wait until <= N committed groups (id <= gid) in flight
  BAR_ARRIVE,     // bid                          named barrier arrive, never blocks
  BAR_WAIT,       // bid k                        block until k arrivals (besides its own) reached
  BUBBLE,         // cyc                          CUDA-core work: the thread is busy cyc cycles
  LDG,            // gmem bytes                   blocking ordinary global load (microbenchmarks)
  kCount
};

enum class DType : std::uint8_t { F16, BF16, E4M3, E5M2, TF32 };
// BUBBLE flags: a measured duration (from an instrumentation log), taken as it is: not slowed by
// the tensor pipe or by other bubbles.
inline constexpr std::uint8_t kBubbleFixed = 1;
// BUBBLE flag of sampled simulation (docs/sampling.md): the WarpGroup is fast-forwarded over work
// that was not simulated; it waits `count` cycles using no pipe and is not a bubble in the
// statistics. Generated only by a sampling TraceSource; the text trace format has no spelling.
inline constexpr std::uint8_t kBubbleSleep = 2;
// TMA_TENSOR / TMA_BULK / TMA_STORE flag of sampled simulation: functional warming. The lines of
// the copy are placed in the L2 as the skipped work would have left them (MemorySystem::warm),
// with no time, traffic, stage or group effect. Generated only by a sampling TraceSource.
inline constexpr std::uint8_t kTmaWarm = 1;
enum class MmaMode : std::uint8_t { SS, RS };

std::string_view op_name(Op op);
std::optional<Op> op_from_name(std::string_view name);  // also accepts the alias "bubbles"
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
int dtype_bytes(DType t);  // 2 for F16/BF16, 1 for FP8, 4 for TF32

// One instruction of one logical thread (WarpGroup). Fields are used per opcode as documented
// above; unused fields are zero, so two equal instructions compare equal. The 32-bit operand means
// something different per opcode, so it is private behind one named accessor per meaning, each
// checking the opcode (InternalError otherwise): a new instruction adds its own accessor.
struct Instr {
  Op op = Op::BUBBLE;
  std::uint8_t dtype = 0;   // WGMMA: DType
  std::uint8_t mode = 0;    // WGMMA: MmaMode; TMA_WAIT: 1 = wait for the smem read only
  std::uint8_t flags = 0;   // WGMMA: bit 0 acc (accumulate into d), bit 1 sp (sparse A); BUBBLE: kBubbleFixed
  std::uint16_t id = 0;     // sid, gid or bid
  std::uint16_t map = 0;    // TMA_TENSOR / TMA_STORE: tensor map id
  std::uint16_t m = 0, n = 0, k = 0;  // WGMMA shape
  std::uint16_t mc = 0;     // TMA_TENSOR / TMA_BULK / RELEASE_STAGE: cluster multicast mask (0 = own CTA)

 private:
  std::uint32_t operand_ = 0;  // see the accessors below

 public:
  std::uint32_t d = 0;      // WGMMA accumulator fragment id
  std::uint64_t smem = 0;   // TMA: shared-memory address; WGMMA: operand a
  std::uint64_t gmem = 0;   // TMA / LDG: global address; WGMMA: operand b

  bool operator==(const Instr&) const = default;

  // TMA_BULK, LDG: bytes copied or loaded.
  std::uint32_t bytes() const { return operand(op == Op::TMA_BULK || op == Op::LDG, "bytes"); }
  // ACQUIRE_STAGE: transaction bytes the next fill of the stage brings (0 = inferred by the reader).
  std::uint32_t tx_bytes() const { return operand(op == Op::ACQUIRE_STAGE, "tx_bytes"); }
  void set_tx_bytes(std::uint32_t b) {
    operand(op == Op::ACQUIRE_STAGE, "set_tx_bytes");
    operand_ = b;
  }
  // TMA_WAIT, WGMMA_WAIT: N, the committed groups (id <= gid) that may still be in flight.
  std::uint32_t max_pending() const {
    return operand(op == Op::TMA_WAIT || op == Op::WGMMA_WAIT, "max_pending");
  }
  // BAR_WAIT: k, the arrivals (besides its own) the barrier waits for.
  std::uint32_t arrivals() const { return operand(op == Op::BAR_WAIT, "arrivals"); }
  // BUBBLE: cycles of CUDA-core work.
  std::uint32_t cycles() const { return operand(op == Op::BUBBLE, "cycles"); }

  static Instr tma_tensor(std::uint64_t smem, std::uint64_t gmem, std::uint16_t map, std::uint16_t sid,
                          std::uint16_t mc = 0);
  static Instr tma_bulk(std::uint64_t smem, std::uint64_t gmem, std::uint32_t bytes, std::uint16_t sid,
                        std::uint16_t mc = 0);
  static Instr mb_wait(std::uint16_t sid);
  static Instr acquire(std::uint16_t sid, std::uint32_t tx_bytes = 0);
  static Instr release(std::uint16_t sid, std::uint16_t mc = 0);
  static Instr tma_store(std::uint64_t smem, std::uint64_t gmem, std::uint16_t map, std::uint16_t gid);
  static Instr tma_commit(std::uint16_t gid);
  static Instr tma_wait(std::uint16_t gid, std::uint32_t n, bool read_only = false);
  static Instr wgmma(std::uint32_t d, std::uint64_t a, std::uint64_t b, std::uint16_t m, std::uint16_t n,
                     std::uint16_t k, DType t, bool acc, MmaMode mode, bool sp, std::uint16_t gid);
  static Instr wgmma_commit(std::uint16_t gid);
  static Instr wgmma_wait(std::uint16_t gid, std::uint32_t n);
  static Instr bar_arrive(std::uint16_t bid);
  static Instr bar_wait(std::uint16_t bid, std::uint32_t k);
  static Instr bubble(std::uint32_t cycles, bool fixed = false);
  static Instr sleep(std::uint32_t cycles);  // BUBBLE with kBubbleSleep
  static Instr ldg(std::uint64_t gmem, std::uint32_t bytes);

 private:
  std::uint32_t operand(bool right_op, const char* accessor) const {
    if (!right_op) [[unlikely]]
      wrong_operand(accessor);
    return operand_;
  }
  [[noreturn]] void wrong_operand(const char* accessor) const;  // InternalError naming op and accessor
};
static_assert(sizeof(Instr) == 40);

inline constexpr int kMaxRank = 5;
inline constexpr int kNamedBarriers = 16;  // per CTA, as on Hopper

// DEF_TMAP map rank dims strides box esz [base=ADDR]
// dims[i] and box[i] are element counts, innermost dimension first; strides[i] is the byte stride
// of dimension i for i >= 1 (strides[0] is the element size, as cuTensorMapEncodeTiled implies).
// With a base address, rows of a box outside the tensor are not fetched (TMA zero-fills them).
struct TensorMap {
  std::uint16_t id = 0;
  std::uint8_t rank = 1;
  std::array<std::uint64_t, kMaxRank> dims{};
  std::array<std::uint64_t, kMaxRank> strides{};
  std::array<std::uint32_t, kMaxRank> box{};
  std::uint32_t esz = 2;
  std::optional<std::uint64_t> base;

  std::uint64_t box_bytes() const;
  // Bytes from the first to one past the last byte of the whole tensor, and of one box (with the
  // strides; 128-bit, so that no declared geometry can wrap).
  unsigned __int128 tensor_extent() const;
  unsigned __int128 box_extent() const;
  bool operator==(const TensorMap&) const = default;
};

// The KERNEL line: launch shape and per-CTA resources.
struct KernelInfo {
  std::string name = "kernel";
  std::uint32_t ctas = 0;            // grid size
  std::uint32_t cluster = 1;         // CTAs per cluster (consecutive ids, placed on an SM group)
  std::uint64_t smem = 0;            // shared memory bytes per CTA
  std::uint32_t regs = 0;            // registers per CTA
  std::uint32_t threads = 0;         // threads per CTA (0 = 128 per WarpGroup)
  std::uint32_t stages = 8;          // valid stage ids are [0, stages)
  std::uint32_t stage_arrivals = 1;  // RELEASE_STAGEs that free a stage for the next fill
  std::uint32_t groups = 16;         // valid WGMMA / TMA-store group ids are [0, groups)
  std::vector<TensorMap> tmaps;      // indexed by id (gaps allowed: see has_tmap)
  std::vector<bool> tmap_defined;

  bool has_tmap(std::uint16_t id) const { return id < tmap_defined.size() && tmap_defined[id]; }
  const TensorMap& tmap(std::uint16_t id) const { return tmaps[id]; }
  void define_tmap(const TensorMap& m);
};

// Checks one instruction against the kernel's declarations (ids in range, maps declared, WGMMA
// shapes Hopper supports). Returns an error text without location, or nullopt when valid.
std::optional<std::string> validate(const Instr& in, const KernelInfo& k);
// Checks a tensor map (rank, box within tensor, box limits). nullopt when valid.
std::optional<std::string> validate(const TensorMap& m);

// Canonical text of one instruction (the writer's format; also used in deadlock reports).
std::string format(const Instr& in);
std::string format(const TensorMap& m);
std::string format_kernel_line(const KernelInfo& k);

}  // namespace simfa::trace
