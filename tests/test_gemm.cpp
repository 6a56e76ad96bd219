// The float GEMM (core/gemm.h) against a plain double product: every transpose, accumulate or
// overwrite, edge tiles in both directions, depths on both sides of the packing threshold (32) and of
// a pass (128), strided operands; the padding past each row of C is never written. And the property
// the char LM's evaluation relies on: a row of C does not depend on how many rows are computed.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/cpu_features.h"
#include "core/gemm.h"
#include "core/rng.h"
#include "core/rng_lanes.h"

using namespace pe;

namespace {
// Random operands of op(A) [M, K], op(B) [K, N] and C [M, N], stored with padded row strides.
struct Operands {
  int lda, ldb, ldc;
  std::vector<float> A, B, C;
  Operands(Rng& rng, int M, int N, int K, bool ta, bool tb)
      : lda((ta ? M : K) + 3),
        ldb((tb ? K : N) + 2),
        ldc(N + 1),
        A(size_t(ta ? K : M) * lda + 1),
        B(size_t(tb ? N : K) * ldb + 1),
        C(size_t(M) * ldc) {
    for (auto* v : {&A, &B, &C})
      for (auto& x : *v) x = float(rng.normal());
  }
};
}  // namespace

TEST_CASE("float gemm equals a double product for every shape class, transpose and accumulate") {
  Rng rng(11);
  int cases = 0;
  for (int M : {1, 5, 6, 7, 73, 150})
    for (int N : {1, 15, 16, 17, 130})
      for (int K : {0, 1, 32, 33, 129, 300})
        for (bool ta : {false, true})
          for (bool tb : {false, true})
            for (bool acc : {false, true}) {
              const Operands o(rng, M, N, K, ta, tb);
              const int lda = o.lda, ldb = o.ldb, ldc = o.ldc;
              const std::vector<float>&A = o.A, &B = o.B;
              std::vector<float> C = o.C;
              const std::vector<float> C0 = C;
              gemm<float>(ta ? Op::T : Op::N, tb ? Op::T : Op::N, M, N, K, A.data(), lda, B.data(), ldb, C.data(), ldc,
                          acc);
              int bad = 0;
              for (int i = 0; i < M; ++i) {
                for (int j = 0; j < N; ++j) {
                  double s = acc ? C0[size_t(i) * ldc + j] : 0.0, mag = std::abs(s);
                  for (int k = 0; k < K; ++k) {
                    const double p = double(ta ? A[size_t(k) * lda + i] : A[size_t(i) * lda + k]) *
                                     double(tb ? B[size_t(j) * ldb + k] : B[size_t(k) * ldb + j]);
                    s += p, mag += std::abs(p);
                  }
                  if (std::abs(s - C[size_t(i) * ldc + j]) > 1e-5 * (1 + mag)) ++bad;
                }
                if (C[size_t(i) * ldc + N] != C0[size_t(i) * ldc + N]) ++bad;  // padding untouched
              }
              INFO("M ", M, " N ", N, " K ", K, " ta ", ta, " tb ", tb, " acc ", acc);
              CHECK(bad == 0);
              ++cases;
            }
  CHECK(cases == 1440);
}

TEST_CASE("a row of the float gemm's result does not depend on the number of rows") {
  Rng rng(12);
  const int N = 40;
  for (int K : {32, 200}) {  // op(B) read in place / packed
    std::vector<float> A(size_t(100) * K), B(size_t(K) * N);
    for (auto& v : A) v = float(rng.normal());
    for (auto& v : B) v = float(rng.normal());
    std::vector<float> full(size_t(100) * N), part(size_t(100) * N);
    gemm<float>(Op::N, Op::N, 100, N, K, A.data(), K, B.data(), N, full.data(), N, false);
    for (int M : {1, 7, 31, 72, 73}) {
      gemm<float>(Op::N, Op::N, M, N, K, A.data(), K, B.data(), N, part.data(), N, false);
      for (int i = 0; i < M * N; ++i) REQUIRE(part[i] == full[i]);
    }
  }
}

TEST_CASE("the AVX-512 kernel gives the AVX2 kernel's bits, for every shape class, transpose and accumulate") {
  if (!gemm_kernel_available(GemmKernel::Avx512) || !gemm_kernel_available(GemmKernel::Avx2)) {
    const std::string kernel = gemm_kernel_name(gemm_kernel());
    MESSAGE("this CPU or build has no AVX-512 kernel: nothing to compare (", kernel, ")");
    return;
  }
  const GemmKernel before = gemm_kernel();
  Rng rng(13);
  int cases = 0, differ = 0;
  for (int M : {1, 5, 6, 7, 12, 13, 73, 150})
    for (int N : {1, 15, 16, 17, 31, 32, 48, 130})  // one and two registers wide, full and masked
      for (int K : {1, 32, 33, 129, 300})
        for (bool ta : {false, true})
          for (bool tb : {false, true})
            for (bool acc : {false, true}) {
              const Operands o(rng, M, N, K, ta, tb);
              const int lda = o.lda, ldb = o.ldb, ldc = o.ldc;
              const std::vector<float>&A = o.A, &B = o.B;
              std::vector<float> C = o.C;
              std::vector<float> C2 = C, C5 = C;
              set_gemm_kernel(GemmKernel::Avx2);
              gemm<float>(ta ? Op::T : Op::N, tb ? Op::T : Op::N, M, N, K, A.data(), lda, B.data(), ldb, C2.data(), ldc,
                          acc);
              set_gemm_kernel(GemmKernel::Avx512);
              REQUIRE(gemm_kernel() == GemmKernel::Avx512);
              gemm<float>(ta ? Op::T : Op::N, tb ? Op::T : Op::N, M, N, K, A.data(), lda, B.data(), ldb, C5.data(), ldc,
                          acc);
              differ += C2 != C5;  // every element, and the padding past each row, bit for bit
              ++cases;
            }
  set_gemm_kernel(before);
  CHECK(cases == 2560);
  CHECK(differ == 0);
}

TEST_CASE("one CPU-feature switch: the matrix kernel and the eight-lane draws read the same vector level") {
  const VectorLevel before = vector_level();
  CHECK(gemm_kernel() == before);
  for (const VectorLevel level : {VectorLevel::Scalar, VectorLevel::Avx2, VectorLevel::Avx512}) {
    set_vector_level(level);
    INFO(vector_level_name(level));
    if (!vector_level_available(level)) {
      CHECK(vector_level() != level);  // a level this CPU or build lacks is never set
      continue;
    }
    CHECK(vector_level() == level);
    CHECK(gemm_kernel() == level);
    if (level != VectorLevel::Avx512) CHECK_FALSE(rng_lanes_enabled());  // the draws follow the same switch
  }
  set_vector_level(before);
  CHECK(vector_level() == before);
  // this build's level: AVX2 or AVX-512 for the x86-64-v3 build, scalar for the others
  MESSAGE("vector level on this CPU: ", std::string(vector_level_name(before)), ", eight-lane draws ",
          std::string(rng_lanes_enabled() ? "on" : "off"));
}
