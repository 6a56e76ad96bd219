// The softmax of eight rows at once (floats, AVX2), for the looked-up scores of eight sequences
// (models/attention_kernels.h): lane u of every register is row u, so each row's max, exp, sum and scaling
// run with no horizontal step per row. Every lane does the operations softmax_row and
// softmax_row_backward (models/attention_kernels.h) do for one row, in their order, so the results are the
// same bits as one row at a time (tested against them):
//   forward  p = exp(s - max s) * (1 / sum), the sum in Eigen's order for an aligned row (eigen_sum8)
//   backward c = the sum of p dp over eight running sums then one by one; ds = p (dp - c)
// Rows are stored lane-interleaved: x[t * 8 + u] is entry t of row u.
#pragma once
#include <Eigen/Core>

#include "core/math.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace pe {

// Whether this build has the lane path: AVX2, and Eigen summing floats in 8-float packets (an AVX-512
// build of Eigen uses 16, whose order eigen_sum8 does not follow).
#if defined(__AVX2__)
inline constexpr bool kSoftmaxLanes = Eigen::internal::packet_traits<float>::size == 8;
#else
inline constexpr bool kSoftmaxLanes = false;
#endif

#if defined(__AVX2__)
namespace lanes {

inline __m256 at(const float* x, int t) { return _mm256_loadu_ps(x + size_t(t) * 8); }

// Lane by lane, what Eigen's sum of an aligned row e[0..n) computes (its redux over dynamic sizes,
// Eigen/src/Core/Redux.h): with n >= 8, two running packets over pairs of 8-entry packets, added, then
// an odd last packet; the packet's entries a0..a7 as ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7));
// then the entries past the last whole packet one by one. With n < 8, e0 + e1 + ... in order.
inline __m256 eigen_sum8(const float* e, int n) {
  if (n < 8) {
    __m256 s = at(e, 0);
    for (int t = 1; t < n; ++t) s = _mm256_add_ps(s, at(e, t));
    return s;
  }
  const int whole = n / 8 * 8, pairs = n / 16 * 16;
  __m256 r0[8], r1[8];
  for (int k = 0; k < 8; ++k) r0[k] = at(e, k);
  if (whole > 8) {
    for (int k = 0; k < 8; ++k) r1[k] = at(e, 8 + k);
    for (int i = 16; i < pairs; i += 16)
      for (int k = 0; k < 8; ++k)
        r0[k] = _mm256_add_ps(r0[k], at(e, i + k)), r1[k] = _mm256_add_ps(r1[k], at(e, i + 8 + k));
    for (int k = 0; k < 8; ++k) r0[k] = _mm256_add_ps(r0[k], r1[k]);
    if (whole > pairs)
      for (int k = 0; k < 8; ++k) r0[k] = _mm256_add_ps(r0[k], at(e, pairs + k));
  }
  __m256 h[4];
  for (int k = 0; k < 4; ++k) h[k] = _mm256_add_ps(r0[k], r0[k + 4]);
  __m256 s = _mm256_add_ps(_mm256_add_ps(h[0], h[2]), _mm256_add_ps(h[1], h[3]));
  for (int t = whole; t < n; ++t) s = _mm256_add_ps(s, at(e, t));
  return s;
}

// x [n][8]: the scores of eight rows of n entries (n >= 1) -> their probabilities, in place.
inline void softmax8(float* x, int n) {
  __m256 m = at(x, 0);
  for (int t = 1; t < n; ++t) m = _mm256_max_ps(m, at(x, t));  // the max is exact in any order
  for (int t = 0; t < n; ++t) _mm256_storeu_ps(x + size_t(t) * 8, _mm256_sub_ps(at(x, t), m));
  math::exp_inplace(x, 8 * n);  // lane by lane: its vector path does exp(float)'s operations
  const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), eigen_sum8(x, n));
  for (int t = 0; t < n; ++t) _mm256_storeu_ps(x + size_t(t) * 8, _mm256_mul_ps(at(x, t), inv));
}

// p, d [n][8]: eight rows' probabilities and d loss / d p -> d holds d loss / d score.
inline void softmax8_backward(const float* p, float* d, int n) {
  __m256 acc[8];
  for (int k = 0; k < 8; ++k) acc[k] = _mm256_setzero_ps();
  int j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[k] = _mm256_add_ps(acc[k], _mm256_mul_ps(at(p, j + k), at(d, j + k)));
  __m256 c = _mm256_setzero_ps();
  for (int k = 0; k < 8; ++k) c = _mm256_add_ps(c, acc[k]);
  for (; j < n; ++j) c = _mm256_add_ps(c, _mm256_mul_ps(at(p, j), at(d, j)));
  for (int t = 0; t < n; ++t) _mm256_storeu_ps(d + size_t(t) * 8, _mm256_mul_ps(at(p, t), _mm256_sub_ps(at(d, t), c)));
}

}  // namespace lanes
#endif

}  // namespace pe
