// Thin OpenMP wrappers so the code builds and runs the same with OpenMP disabled.
#pragma once
#ifdef _OPENMP
#include <omp.h>
#endif

namespace pe {

inline int max_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
// n > 0: use n threads; n <= 0: every core.
inline void set_threads(int n) {
#ifdef _OPENMP
  omp_set_num_threads(n > 0 ? n : omp_get_num_procs());
#else
  (void)n;
#endif
}
// This thread's number in the innermost parallel region (0 outside one).
inline int thread_index() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}
inline bool in_parallel() {
#ifdef _OPENMP
  return omp_in_parallel();
#else
  return false;
#endif
}

}  // namespace pe
