// Matrix products over row-major buffers: C = (accumulate ? C : 0) + op(A) op(B).
// The character LM spends most of its time here. The float version is a packed GEMM with an AVX2/FMA
// register-tile kernel, and an AVX-512 one of the same arithmetic chosen at run time (a scalar kernel
// of the same shape when built without AVX2); the double
// version (gradient checks) goes through Eigen. Both are plain functions of their inputs: no state is
// shared between calls, so threads may call them at once, and each element's summation order is fixed
// by the shapes alone, so results do not depend on the thread count.
#pragma once
#include <cstddef>

#include "core/cpu_features.h"

namespace pe {

enum class Op { N, T };  // op(X) = X or X^T

// op(A): [M, K], op(B): [K, N], C: [M, N]. lda/ldb/ldc are the row strides of A, B, C as stored
// (A is stored [M, K] when opa = N, [K, M] when opa = T; likewise B).
// The float GEMM's register-tile kernel is the vector level of the one CPU-feature switch
// (core/cpu_features.h): the x86-64-v3 build carries the AVX2 kernel and an AVX-512 one, the latter run
// where the CPU has AVX-512 (PEBENCH_NO_AVX512=1 keeps AVX2). Both compute every element by the same
// operations in the same order, so results are the same bits on either. (The names below read and set
// that switch.)
using GemmKernel = VectorLevel;
inline GemmKernel gemm_kernel() { return vector_level(); }
inline bool gemm_kernel_available(GemmKernel k) { return vector_level_available(k); }
inline void set_gemm_kernel(GemmKernel k) { set_vector_level(k); }
inline const char* gemm_kernel_name(GemmKernel k) { return vector_level_name(k); }

template <class S>
void gemm(Op opa, Op opb, int M, int N, int K, const S* A, int lda, const S* B, int ldb, S* C, int ldc,
          bool accumulate);

}  // namespace pe
