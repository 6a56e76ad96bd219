// An 8 x 8 float transpose through AVX registers (transpose8 in place, transpose8x8 memory to memory): dst[c * ldd + r]
// = src[r * lds + c] for r, c < 8. It copies values, so whatever uses it computes the same bits as with a scalar
// transpose. Used by attention (a head's keys and values turned on their side; eight table rows at a time for the cue
// head's dot products) and the matrix product (packing a transposed right operand).
#pragma once
#include <cstddef>

#ifdef __AVX__
#include <immintrin.h>

namespace pe {

// In registers: r[c] lane i becomes what r[i] lane c was.
inline void transpose8(__m256 r[8]) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2)
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]), t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  // t[0] = a0 b0 a1 b1 | a4 b4 a5 b5, t[1] = a2 b2 a3 b3 | a6 b6 a7 b7 (a, b: rows 0, 1); likewise t[2..7]
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));          // column 0 | 4 of rows i..i+3
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));      // column 1 | 5
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));  // column 2 | 6
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));  // column 3 | 7
  }
  for (int c = 0; c < 4; ++c) {
    t[c] = _mm256_permute2f128_ps(r[c], r[c + 4], 0x20);
    t[c + 4] = _mm256_permute2f128_ps(r[c], r[c + 4], 0x31);
  }
  for (int c = 0; c < 8; ++c) r[c] = t[c];
}

inline void transpose8x8(const float* src, size_t lds, float* dst, size_t ldd) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * lds);
  transpose8(r);
  for (int c = 0; c < 8; ++c) _mm256_storeu_ps(dst + c * ldd, r[c]);
}

}  // namespace pe
#endif
