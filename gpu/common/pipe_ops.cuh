// One step of a CUDA-core op as inline PTX (so the compiler keeps it), for the pipe and
// interference microbenchmarks: pipe_step<kOp>(x, c) updates x in place, so repeated steps form a
// dependent chain. Values stay finite: ex2 computes 2^-x, f2fp feeds the packed bits back.
#pragma once

namespace simfa_gpu {

enum PipeOp { kEx2, kFfma, kFmul, kFadd, kFmnmx, kF2fp, kShfl, kFfmaEx2, kNumOps };
const char* const kOpNames[kNumOps] = {"ex2", "ffma", "fmul", "fadd", "fmnmx", "f2fp", "shfl",
                                       "ffma_ex2"};

template <int kOp>
__device__ __forceinline__ void pipe_step(float& x, float c) {
  if constexpr (kOp == kEx2) {
    // x = 2^-x stays near 0.64 (ptxas folds the negation into MUFU.EX2's operand).
    asm volatile("{\n\t.reg .f32 t;\n\tneg.f32 t, %0;\n\tex2.approx.ftz.f32 %0, t;\n\t}" : "+f"(x));
  } else if constexpr (kOp == kFfma) {
    asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x) : "f"(c));
  } else if constexpr (kOp == kFmul) {
    asm volatile("mul.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(c));
  } else if constexpr (kOp == kFadd) {
    asm volatile("add.rn.f32 %0, %0, %1;" : "+f"(x) : "f"(c));
  } else if constexpr (kOp == kFmnmx) {
    asm volatile("max.f32 %0, %0, %1;" : "+f"(x) : "f"(c));
  } else if constexpr (kOp == kF2fp) {
    // The packed half2 bits are reinterpreted as the next input, so the chain is dependent.
    asm volatile("{\n\t.reg .b32 t;\n\tcvt.rn.f16x2.f32 t, %0, %1;\n\tmov.b32 %0, t;\n\t}"
                 : "+f"(x)
                 : "f"(c));
  } else if constexpr (kOp == kShfl) {
    asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+f"(x));
  } else {
    static_assert(kOp == kFfmaEx2, "op");
    asm volatile("fma.rn.f32 %0, %0, %1, %1;\n\tex2.approx.ftz.f32 %0, %0;" : "+f"(x) : "f"(c));
  }
}

}  // namespace simfa_gpu
