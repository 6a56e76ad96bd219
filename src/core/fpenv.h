// Flush subnormal floats to zero (FTZ) and treat subnormal inputs as zero (DAZ), for the lifetime
// of a scope on this thread. Sharp softmaxes produce subnormals, which are ~100x slower on x86.
// Training and evaluation open one of these on every thread that computes (the caller and each
// OpenMP chunk), so results do not depend on scheduling; the previous state is restored after, so
// code that needs IEEE subnormals (the finite-precision analyses) is unaffected.
#pragma once
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace pe {

class ScopedFlushToZero {
 public:
#if defined(__SSE__) || defined(__x86_64__)
  ScopedFlushToZero() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | 0x8040); }  // FTZ bit 15 | DAZ bit 6
  ~ScopedFlushToZero() { _mm_setcsr(saved_); }

 private:
  unsigned saved_;
#else
  ScopedFlushToZero() {}
#endif
 public:
  ScopedFlushToZero(const ScopedFlushToZero&) = delete;
  ScopedFlushToZero& operator=(const ScopedFlushToZero&) = delete;
};

}  // namespace pe
