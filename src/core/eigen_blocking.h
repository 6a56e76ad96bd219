// Eigen splits the depth of a large matrix product into blocks sized from the cache sizes it reads
// off the CPU, and the block size decides the order of the sums: the same product could give other
// bits on a CPU with other caches. pe-bench and the test suite fix the sizes to Eigen's own defaults
// before any product, so the blocking is the same everywhere.
#pragma once
#include <Eigen/Core>

namespace pe {

inline void fix_eigen_blocking() { Eigen::setCpuCacheSizes(32 * 1024, 256 * 1024, 2 * 1024 * 1024); }

}  // namespace pe
