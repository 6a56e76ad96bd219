#include "core/gemm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define PEBENCH_GEMM_AVX2 1
#endif

#include "core/cpu_features.h"
#include "core/tensor.h"
#include "core/transpose.h"

namespace pe {

namespace {

// ---- float. op(B) is read in place when stored row-major (else it is first transposed into a
// per-thread buffer, which is cheap: every right operand here is a weight matrix or is small). op(A)
// is read in place by broadcasts, in either layout. The loop nest keeps a kc x NR sliver of op(B) in
// L1 while it runs down an MC-row block of op(A) (in L2), one MR x NR tile of C in 12 AVX registers.
constexpr int MR = 6, NR = 16;
constexpr int KC = 128;  // depth of one pass (a KC x NR sliver of op(B): 8 KB)
constexpr int MC = 72;   // rows of op(A) per block (MC x KC floats: 36 KB)

// One tile: R <= MR rows, n <= NR columns of C = (acc ? C : 0) + op(A) op(B) over depth K.
// Element (r, k) of op(A) is a[r * lda + k] (AT = false) or a[k * lda + r] (AT = true); row k of op(B)
// starts at b + k * ldb.
template <int R, bool AT>
void tile_kernel(int n, int K, const float* a, size_t lda, const float* b, size_t ldb, float* c, size_t ldc, bool acc) {
#ifdef PEBENCH_GEMM_AVX2
  __m256 c0[R], c1[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) c0[r] = _mm256_setzero_ps(), c1[r] = _mm256_setzero_ps();
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane);
  const __m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(n - 8), lane);
  const float* ar[R];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) ar[r] = AT ? a + r : a + r * lda;
  const size_t astep = AT ? lda : 1;
  // The k loop: two loads of op(B), R broadcasts of op(A), 2R FMAs.
#define PEBENCH_TILE_STEP(LOAD0, LOAD1)                        \
  for (int k = 0; k < K; ++k, b += ldb) {                      \
    const __m256 b0 = LOAD0, b1 = LOAD1;                       \
    _Pragma("GCC unroll 6") for (int r = 0; r < R; ++r) {      \
      const __m256 x = _mm256_broadcast_ss(ar[r] + k * astep); \
      c0[r] = _mm256_fmadd_ps(x, b0, c0[r]);                   \
      c1[r] = _mm256_fmadd_ps(x, b1, c1[r]);                   \
    }                                                          \
  }
  if (n == NR) {
    PEBENCH_TILE_STEP(_mm256_loadu_ps(b), _mm256_loadu_ps(b + 8))
  } else {
    PEBENCH_TILE_STEP(_mm256_maskload_ps(b, m0), _mm256_maskload_ps(b + 8, m1))
  }
#undef PEBENCH_TILE_STEP
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
    if (n == NR) {
      if (acc) c0[r] = _mm256_add_ps(_mm256_loadu_ps(cr), c0[r]), c1[r] = _mm256_add_ps(_mm256_loadu_ps(cr + 8), c1[r]);
      _mm256_storeu_ps(cr, c0[r]);
      _mm256_storeu_ps(cr + 8, c1[r]);
    } else {
      if (acc)
        c0[r] = _mm256_add_ps(_mm256_maskload_ps(cr, m0), c0[r]),
        c1[r] = _mm256_add_ps(_mm256_maskload_ps(cr + 8, m1), c1[r]);
      _mm256_maskstore_ps(cr, m0, c0[r]);
      _mm256_maskstore_ps(cr + 8, m1, c1[r]);
    }
  }
#else
  float t[R][NR] = {};
  for (int k = 0; k < K; ++k, b += ldb)
    for (int r = 0; r < R; ++r) {
      const float x = AT ? a[size_t(k) * lda + r] : a[r * lda + k];
      for (int j = 0; j < n; ++j) t[r][j] += x * b[j];
    }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < n; ++j) c[r * ldc + j] = (acc ? c[r * ldc + j] : 0.0f) + t[r][j];
#endif
}

// f(std::integral_constant<int, m>{}) for a tile height m in [1, Max]: each height is its own kernel
// (its accumulators in registers).
template <int Max, class F>
void by_height(int m, F&& f) {
  if constexpr (Max == 1)
    f(std::integral_constant<int, 1>{});
  else if (m == Max)
    f(std::integral_constant<int, Max>{});
  else
    by_height<Max - 1>(m, f);
}

template <bool AT>
void tile(int m, int n, int K, const float* a, size_t lda, const float* b, size_t ldb, float* c, size_t ldc, bool acc) {
  by_height<MR>(m, [&](auto R) { tile_kernel<R(), AT>(n, K, a, lda, b, ldb, c, ldc, acc); });
}

#ifdef PEBENCH_GEMM_AVX2
// The same tile in 512-bit registers, for CPUs with AVX-512 (chosen at run time, vector_level()): a row
// of the tile is W = 1 or 2 registers of NR = 16 columns (n <= W NR), the tile up to MR512 rows. With
// two, op(B)'s columns come from two NR-column slivers (row k at b0 + k ldb and b1 + k ldb), and per k
// two loads of op(B) and R broadcasts feed 2R FMAs (one register needs R + 1 loads for R FMAs: the
// load ports, not the FMA pipes, bound it). Every element of C is still 0, then one FMA per k in
// increasing k, then (acc) C plus that sum: the very operations of the AVX2 kernel, lanes across
// columns only, so they give the same bits.
constexpr int MR512 = 12;
template <int R, int W, bool AT>
__attribute__((target("avx512f"))) void tile_kernel512(int n, int K, const float* a, size_t lda, const float* b0,
                                                       const float* b1, size_t ldb, float* c, size_t ldc, bool acc) {
  static_assert(W == 1 || W == 2);
  __m512 c0[R], c1[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) c0[r] = _mm512_setzero_ps(), c1[r] = _mm512_setzero_ps();
  const int last = n - (W - 1) * NR;  // columns in the last register
  const __mmask16 m = last >= NR ? __mmask16(0xFFFF) : __mmask16((1u << last) - 1u);
  const float* ar[R];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) ar[r] = AT ? a + r : a + r * lda;
  const size_t astep = AT ? lda : 1;
  // The k loop; LOAD reads the last register's row of op(B) (whole, or masked past n).
#define PEBENCH_TILE_STEP512(LOAD)                                      \
  for (int k = 0; k < K; ++k, b0 += ldb, b1 += ldb) {                   \
    if constexpr (W == 1) {                                             \
      const __m512 x0 = LOAD(b0);                                       \
      _Pragma("GCC unroll 12") for (int r = 0; r < R; ++r) c0[r] =      \
          _mm512_fmadd_ps(_mm512_set1_ps(ar[r][k * astep]), x0, c0[r]); \
    } else {                                                            \
      const __m512 x0 = _mm512_loadu_ps(b0), x1 = LOAD(b1);             \
      _Pragma("GCC unroll 12") for (int r = 0; r < R; ++r) {            \
        const __m512 x = _mm512_set1_ps(ar[r][k * astep]);              \
        c0[r] = _mm512_fmadd_ps(x, x0, c0[r]);                          \
        c1[r] = _mm512_fmadd_ps(x, x1, c1[r]);                          \
      }                                                                 \
    }                                                                   \
  }
#define PEBENCH_WHOLE(p) _mm512_loadu_ps(p)
#define PEBENCH_MASKED(p) _mm512_maskz_loadu_ps(m, p)
  if (last == NR) {
    PEBENCH_TILE_STEP512(PEBENCH_WHOLE)
  } else {
    PEBENCH_TILE_STEP512(PEBENCH_MASKED)
  }
#undef PEBENCH_MASKED
#undef PEBENCH_WHOLE
#undef PEBENCH_TILE_STEP512
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
    if constexpr (W == 2) {
      if (acc) c0[r] = _mm512_add_ps(_mm512_loadu_ps(cr), c0[r]);
      _mm512_storeu_ps(cr, c0[r]);
      cr += NR;
    }
    __m512& last_reg = W == 2 ? c1[r] : c0[r];
    if (acc) last_reg = _mm512_add_ps(_mm512_maskz_loadu_ps(m, cr), last_reg);
    _mm512_mask_storeu_ps(cr, m, last_reg);
  }
}

template <bool AT>
void tile512(int m, int n, int K, const float* a, size_t lda, const float* b0, const float* b1, size_t ldb, float* c,
             size_t ldc, bool acc) {
  by_height<MR512>(m, [&](auto R) {
    if (n > NR)
      tile_kernel512<R(), 2, AT>(n, K, a, lda, b0, b1, ldb, c, ldc, acc);
    else
      tile_kernel512<R(), 1, AT>(n, K, a, lda, b0, b1, ldb, c, ldc, acc);
  });
}
#endif

// Depth [k0, k0+kc) of op(B) into NR-column slivers, each kc x NR and contiguous, zero-padded past N.
void pack_b(const float* B, size_t ldb, bool bt, int N, int k0, int kc, float* dst) {
  for (int j = 0; j < N; j += NR, dst += size_t(kc) * NR) {
    const int n = std::min(NR, N - j);
    if (n < NR) std::fill(dst, dst + size_t(kc) * NR, 0.0f);
    if (bt) {  // column c of the sliver is row j + c of B
      int c0 = 0;
#ifdef PEBENCH_GEMM_AVX2
      // 8 x 8 tiles through registers (the scalar loop below wrote a column at a time: as long as
      // the small products that pack a transposed operand, e.g. a block's queries against relative
      // position rows)
      const int k8 = kc - kc % 8;
      for (; c0 + 8 <= n; c0 += 8) {
        for (int k = 0; k < k8; k += 8)
          transpose8x8(B + size_t(j + c0) * ldb + k0 + k, ldb, dst + size_t(k) * NR + c0, NR);
        for (int k = k8; k < kc; ++k)
          for (int c = c0; c < c0 + 8; ++c) dst[size_t(k) * NR + c] = B[size_t(j + c) * ldb + k0 + k];
      }
#endif
      for (int c = c0; c < n; ++c) {
        const float* src = B + size_t(j + c) * ldb + k0;
        for (int k = 0; k < kc; ++k) dst[size_t(k) * NR + c] = src[k];
      }
    } else if (n == NR) {
      for (int k = 0; k < kc; ++k) {
        const float* src = B + size_t(k0 + k) * ldb + j;
        float* d = dst + size_t(k) * NR;
        for (int c = 0; c < NR; ++c) d[c] = src[c];  // a fixed count: two vector moves
      }
    } else {
      for (int k = 0; k < kc; ++k)
        for (int c = 0; c < n; ++c) dst[size_t(k) * NR + c] = B[size_t(k0 + k) * ldb + j + c];
    }
  }
}

// op(B) is packed when it is stored transposed, when many row tiles reuse it, or when it is deeper than
// kDirectDepth rows with a row stride that is a multiple of 256 bytes: a sliver read in place walks
// down B with its row stride, and with such strides (the model's are multiples of 512 bytes) deep
// slivers fall into a few L1 sets and evict each other. Shallow products with a row-major op(B)
// (attention scores and their gradients, depth = head width) read it in place, and so do deep ones
// over a head's own rows side by side (P V, dS K: a 128-byte stride spreads over half the sets).
// op(A) is always read in place: packing it too made a training step about 8% slower (measured,
// A/B-interleaved steps). Packing copies values, so results are the same either way.
constexpr int kDirectDepth = 32;
template <bool AT, bool W512>
void sgemm(int M, int N, int K, const float* A, size_t lda, const float* B, size_t ldb, bool bt, float* C, size_t ldc,
           bool accumulate) {
  thread_local std::vector<float> bpack;
  const bool pack = bt || M > MC || (K > kDirectDepth && ldb % 64 == 0);
  if (pack) bpack.resize(size_t(std::min(K, KC)) * ((N + NR - 1) / NR) * NR);
  for (int pc = 0; pc < K; pc += KC) {
    const int kc = std::min(KC, K - pc);
    const bool acc = accumulate || pc > 0;  // each element sums its passes in order
    if (pack) pack_b(B, ldb, bt, N, pc, kc, bpack.data());
    for (int ic = 0; ic < M; ic += MC) {
      const int mc = std::min(MC, M - ic);
      // The AVX-512 tiles span two slivers (32 columns) where two remain.
      constexpr int nstep = W512 ? 2 * NR : NR;
      for (int j = 0; j < N; j += nstep) {
        const int n = std::min(nstep, N - j);
        const float* b = pack ? bpack.data() + size_t(j / NR) * kc * NR : B + size_t(pc) * ldb + j;
        const size_t ldbp = pack ? NR : ldb;
        const float* b1 = pack ? b + size_t(kc) * NR : b + NR;  // the second sliver
        // The block's rows in ceil(mc / MR) tiles of as even a height as possible (32 rows: 6 6 5 5 5 5,
        // not 6 6 6 6 6 2): a tile of r rows keeps 2r FMA chains in flight, and below 5 rows there are
        // too few to hide the FMA latency. Each element's sum is the same whichever tile holds its row.
        // (The AVX-512 kernel's taller tiles, up to MR512 rows, likewise.)
#ifdef PEBENCH_GEMM_AVX2
        constexpr int mr = W512 ? MR512 : MR;
#else
        constexpr int mr = MR;
#endif
        const int tiles = (mc + mr - 1) / mr;
        for (int t = 0, i = ic; t < tiles; ++t) {
          const int r = (mc + t) / tiles;  // heights differ by at most one
          const float* a = AT ? A + size_t(pc) * lda + i : A + i * lda + pc;
#ifdef PEBENCH_GEMM_AVX2
          if (W512)
            tile512<AT>(r, n, kc, a, lda, b, b1, ldbp, C + i * ldc + j, ldc, acc);
          else
#endif
            tile<AT>(r, n, kc, a, lda, b, ldbp, C + i * ldc + j, ldc, acc);
          i += r;
        }
      }
    }
  }
}

}  // namespace

template <>
void gemm<float>(Op opa, Op opb, int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C,
                 int ldc, bool accumulate) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int i = 0; i < M; ++i) std::fill(C + size_t(i) * ldc, C + size_t(i) * ldc + N, 0.0f);
    return;
  }
  const bool bt = opb == Op::T;
  if (vector_level() == VectorLevel::Avx512)
    return opa == Op::T ? sgemm<true, true>(M, N, K, A, lda, B, ldb, bt, C, ldc, accumulate)
                        : sgemm<false, true>(M, N, K, A, lda, B, ldb, bt, C, ldc, accumulate);
  return opa == Op::T ? sgemm<true, false>(M, N, K, A, lda, B, ldb, bt, C, ldc, accumulate)
                      : sgemm<false, false>(M, N, K, A, lda, B, ldb, bt, C, ldc, accumulate);
}

namespace {

// ---- double (gradient checks): Eigen products over strided maps.
template <class S>
using Strided = Eigen::Map<const Mat<S>, 0, Eigen::OuterStride<>>;

}  // namespace

template <>
void gemm<double>(Op opa, Op opb, int M, int N, int K, const double* A, int lda, const double* B, int ldb, double* C,
                  int ldc, bool accumulate) {
  Eigen::Map<Mat<double>, 0, Eigen::OuterStride<>> c(C, M, N, Eigen::OuterStride<>(ldc));
  if (!accumulate) c.setZero();
  if (M <= 0 || N <= 0 || K <= 0) return;
  const Strided<double> a(A, opa == Op::N ? M : K, opa == Op::N ? K : M, Eigen::OuterStride<>(lda));
  const Strided<double> b(B, opb == Op::N ? K : N, opb == Op::N ? N : K, Eigen::OuterStride<>(ldb));
  if (opa == Op::N && opb == Op::N) c.noalias() += a * b;
  if (opa == Op::N && opb == Op::T) c.noalias() += a * b.transpose();
  if (opa == Op::T && opb == Op::N) c.noalias() += a.transpose() * b;
  if (opa == Op::T && opb == Op::T) c.noalias() += a.transpose() * b.transpose();
}

}  // namespace pe
