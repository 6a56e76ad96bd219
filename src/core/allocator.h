// Keep freed heap memory in the process. A training step frees and re-allocates the same large
// scratch blocks (Eigen's GEMM packing buffers, per-thread arenas); by default glibc returns them to
// the kernel and the next step pays page faults for them again (10-15% of a char-LM step in perf,
// and they serialise the threads on the kernel's memory lock). Call once at start-up.
#pragma once
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pe {

inline void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 64 << 20);   // blocks below 64 MiB come from the heap, not fresh mmaps
  mallopt(M_TRIM_THRESHOLD, 512 << 20);  // do not hand the top of the heap back below 512 MiB free
#endif
}

}  // namespace pe
