// The one CPU-feature switch: which vector level this build and this CPU allow. Every code path chosen
// at run time reads it: the matrix kernel (core/gemm.h) and the eight-lane random draws
// (core/rng_lanes.h). The default x86-64-v3 build runs AVX2, and AVX-512 where the CPU has AVX-512F
// unless PEBENCH_NO_AVX512=1 is in the environment (read once, at the first question); other builds
// run scalar code. Every level computes the same bits (tests/test_gemm.cpp, tests/test_task.cpp).
#pragma once

namespace pe {

enum class VectorLevel { Scalar, Avx2, Avx512 };

// The level in use: decided at the first call, or the last set_vector_level.
VectorLevel vector_level();
// Whether this CPU and build can run the level (PEBENCH_NO_AVX512 aside).
bool vector_level_available(VectorLevel level);
// For tests and benchmarks: use `level` from now on (ignored when this CPU or build lacks it).
void set_vector_level(VectorLevel level);
const char* vector_level_name(VectorLevel level);

// The level is AVX-512 and the CPU also has AVX-512 DQ (64-bit lane multiplies, conversions between
// 64-bit integers and doubles).
bool avx512dq_enabled();

}  // namespace pe
