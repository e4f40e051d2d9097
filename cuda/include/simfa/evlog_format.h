/* simfa event log: the shared vocabulary of the device logger, the host helper, the host-side
 * emulator and the log reader. Plain C/C++ (g++, clang, nvcc); no CUDA types.
 *
 * Contract (see docs/instrumentation.md for the file layout):
 *  - One entry is 16 bytes, 16-byte aligned: timestamp (8), event id (2), ring-buffer stage (2),
 *    payload (2), padding (2). Paper §5.1.
 *  - Event ids 1..SIMFA_EV_LAST_BUILTIN are the built-in vocabulary (Table 4 plus epilogue and
 *    bookkeeping events); ids >= SIMFA_EV_USER_BASE are free for users; every other id is invalid
 *    and rejected by the reader.
 *  - Ids and layouts only ever grow: a change that alters an existing meaning bumps
 *    SIMFA_EVLOG_VERSION. */
#ifndef SIMFA_EVLOG_FORMAT_H
#define SIMFA_EVLOG_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
#define SIMFA_EVLOG_ALIGN16 alignas(16)
#define SIMFA_EVLOG_STATIC_ASSERT(c, m) static_assert(c, m)
#define SIMFA_EVLOG_ALIGNOF(t) alignof(t)
#else
#define SIMFA_EVLOG_ALIGN16 _Alignas(16)
#define SIMFA_EVLOG_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define SIMFA_EVLOG_ALIGNOF(t) _Alignof(t)
#endif

/* The file starts with these 8 bytes ("SIMFAEVL", no terminator). */
#define SIMFA_EVLOG_MAGIC "SIMFAEVL"
#define SIMFA_EVLOG_MAGIC_SIZE 8
#define SIMFA_EVLOG_VERSION 1u

/* One logged event. Written by lane 0 of a warp with a single 16-byte store. */
typedef struct simfa_evlog_entry {
  SIMFA_EVLOG_ALIGN16 uint64_t timestamp; /* clock ticks of the log's clock kind */
  uint16_t event;                         /* enum simfa_event_id or >= SIMFA_EV_USER_BASE */
  uint16_t stage;   /* ring-buffer stage (mbarrier slot) the event refers to */
  uint16_t payload; /* event-specific, e.g. tile index low 16 bits */
  uint16_t pad;     /* written as 0; readers ignore it */
} simfa_evlog_entry;
SIMFA_EVLOG_STATIC_ASSERT(sizeof(simfa_evlog_entry) == 16, "simfa_evlog_entry must be 16 bytes");
SIMFA_EVLOG_STATIC_ASSERT(SIMFA_EVLOG_ALIGNOF(simfa_evlog_entry) == 16,
                          "simfa_evlog_entry must be 16-byte aligned");

/* Event vocabulary. Call sites for an FA3-style kernel are described in docs/instrumentation.md.
 * "payload" and "stage" say what the kernel must put in those fields. */
enum simfa_event_id {
  SIMFA_EV_INVALID = 0,
  /* Producer WarpGroup (Table 4). stage = smem stage written; payload = tile index (low 16 bits):
   * Q: m-block index; K, V: n-block (KV tile) index. */
  SIMFA_EV_TMA_Q_ISSUE = 1, /* before cp.async.bulk.tensor for Q */
  SIMFA_EV_TMA_K_ISSUE = 2, /* before cp.async.bulk.tensor for K */
  SIMFA_EV_TMA_V_ISSUE = 3, /* before cp.async.bulk.tensor for V */
  /* Consumer WarpGroups (Table 4). stage = smem stage read; payload = KV tile index. */
  SIMFA_EV_WAIT_K_START = 4,  /* entry of mbarrier.try_wait for K */
  SIMFA_EV_GEMM_QK_ISSUE = 5, /* before the first wgmma.mma_async of S = Q K^T */
  SIMFA_EV_WAIT_V_START = 6,  /* entry of mbarrier.try_wait for V */
  SIMFA_EV_GEMM_PV_ISSUE = 7, /* before the first wgmma.mma_async of O += P V */
  SIMFA_EV_WAIT_WG_1 = 8,     /* wgmma.wait_group 1 (QK done) */
  SIMFA_EV_WAIT_WG_0 = 9,     /* wgmma.wait_group 0 (all done) */
  /* Epilogue and bookkeeping (any WarpGroup). */
  SIMFA_EV_EPILOGUE_START = 10, /* consumer: after the last PV wait, before normalising O */
  SIMFA_EV_EPILOGUE_END = 11,   /* consumer: after the O store was issued / completed */
  SIMFA_EV_TILE_START = 12,     /* start of one output tile; payload = linear tile index low 16 */
  SIMFA_EV_TMA_O_STORE = 13,    /* before cp.async.bulk.tensor store of O; payload = m-block */
  SIMFA_EV_SOFTMAX_START = 14,  /* consumer: after WAIT_WG_1 returned (optional, for --bubbles) */
  SIMFA_EV_SOFTMAX_END = 15,    /* consumer: softmax done, before the PV GEMM (optional) */
  SIMFA_EV_BAR_ARRIVE = 16,     /* named-barrier arrive (ping-pong); payload = barrier id */
  SIMFA_EV_BAR_WAIT_START = 17, /* named-barrier sync entry (ping-pong); payload = barrier id */
  SIMFA_EV_TILE_HEAD = 18,      /* after TILE_START (optional): payload = head index */
  SIMFA_EV_TILE_BATCH = 19,     /* after TILE_START (optional): payload = batch index */
  SIMFA_EV_LAST_BUILTIN = 19,
  SIMFA_EV_USER_BASE = 0x8000 /* 0x8000..0xFFFF: user-defined events */
};

/* Clock the timestamps come from. */
enum simfa_clock_kind {
  SIMFA_CLOCK_GLOBALTIMER_NS = 1, /* %globaltimer: nanoseconds, GPU-wide, coarse (~1 us updates
                                     on some parts) */
  SIMFA_CLOCK_CLOCK64 = 2         /* clock64(): SM cycles, per-SM counter, not synchronised */
};

/* TensorMap ids used by FA3 logs; the same ids as the trace maps of the FA3 synthesizer
 * (src/workload/emitter.h, ids::kMapQ..kMapO), so a translated trace can keep them. */
enum simfa_tensormap_id { SIMFA_TMAP_Q = 0, SIMFA_TMAP_K = 1, SIMFA_TMAP_V = 2, SIMFA_TMAP_O = 3 };

#define SIMFA_EVLOG_MAX_RANK 5

/* A TensorMap as the kernel encoded it (cuTensorMapEncodeTiled arguments). Dimension 0 is the
 * innermost (contiguous) one. strides_bytes[0] is the element size; strides_bytes[i] for i >= 1 is
 * the byte distance between consecutive indices of dimension i. Unused dimensions (>= rank) are 0.
 * box[i] is the tile extent in elements. */
typedef struct simfa_tensormap_desc {
  uint32_t id;   /* simfa_tensormap_id for FA3 kernels; any unique id otherwise */
  uint32_t rank; /* 1..SIMFA_EVLOG_MAX_RANK */
  uint64_t base; /* global address of element (0,...,0) */
  uint64_t dims[SIMFA_EVLOG_MAX_RANK];
  uint64_t strides_bytes[SIMFA_EVLOG_MAX_RANK];
  uint32_t box[SIMFA_EVLOG_MAX_RANK];
  uint32_t elem_bytes;
} simfa_tensormap_desc;

#ifdef __cplusplus
namespace simfa {
using TensorMapDesc = ::simfa_tensormap_desc;
}
#endif

/* Name of a built-in event ("TMA_K_ISSUE"), "USER" for user ids, NULL for invalid ids. Host only.
 */
static inline const char* simfa_evlog_event_name(uint32_t id) {
  static const char* const names[SIMFA_EV_LAST_BUILTIN + 1] = {0,
                                                               "TMA_Q_ISSUE",
                                                               "TMA_K_ISSUE",
                                                               "TMA_V_ISSUE",
                                                               "WAIT_K_START",
                                                               "GEMM_QK_ISSUE",
                                                               "WAIT_V_START",
                                                               "GEMM_PV_ISSUE",
                                                               "WAIT_WG_1",
                                                               "WAIT_WG_0",
                                                               "EPILOGUE_START",
                                                               "EPILOGUE_END",
                                                               "TILE_START",
                                                               "TMA_O_STORE",
                                                               "SOFTMAX_START",
                                                               "SOFTMAX_END",
                                                               "BAR_ARRIVE",
                                                               "BAR_WAIT_START",
                                                               "TILE_HEAD",
                                                               "TILE_BATCH"};
  if (id >= SIMFA_EV_USER_BASE && id <= 0xFFFFu) return "USER";
  if (id > SIMFA_EV_LAST_BUILTIN) return 0;
  return names[id];
}

/* Non-zero when the reader accepts this id. */
static inline int simfa_evlog_event_valid(uint32_t id) { return simfa_evlog_event_name(id) != 0; }

#endif /* SIMFA_EVLOG_FORMAT_H */
