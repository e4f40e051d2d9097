// Host cache hint: start fetching the cache line holding `p` (read, keep in every cache level).
//
// Not __builtin_prefetch alone: GCC treats a function whose only effect is __builtin_prefetch as
// pure, and a call to a pure function that returns nothing is deleted (interprocedural pure-const
// analysis runs before inlining). So a prefetch written as a helper, a member function or a loop
// of prefetches (TagArray::prefetch once was) silently compiles to nothing. The volatile asm is an
// effect the compiler keeps.
#pragma once

namespace simfa {

inline void prefetch(const void* p) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace simfa
