// Flush subnormal floats to zero (FTZ) and treat subnormal inputs as zero (DAZ) on this thread.
// Sharp softmaxes produce subnormals, which are ~100x slower on x86; call this on every thread
// that computes (the main thread and each OpenMP worker) so results do not depend on scheduling.
#pragma once
#if defined(__SSE__) || defined(__x86_64__)
#include <xmmintrin.h>
#endif

namespace pe {

inline void flush_subnormals_to_zero() {
#if defined(__SSE__) || defined(__x86_64__)
  _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) | DAZ (bit 6)
#endif
}

}  // namespace pe
