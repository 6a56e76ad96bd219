// Deterministic transcendental functions (see math.h). This file is compiled with
// -ffp-contract=off: every fused multiply-add is an explicit std::fma, every other product and sum
// is rounded on its own, so no compiler choice moves a bit.
#include "core/math.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define PEBENCH_MATH_AVX2 1
#endif

namespace pe::math {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ln 2 = kLn2Hi + kLn2Lo; kLn2Hi has 32 significant bits, so k * kLn2Hi is exact for |k| < 2^21.
constexpr double kLog2e = 0x1.71547652b82fep+0;
constexpr double kLn2Hi = 0x1.62e42ff000000p-1;
constexpr double kLn2Lo = -0x1.718432a1b0e26p-35;

// pi/2 = kPio2[0] + ... + kPio2[3]: the first three carry 24 significant bits each, so k * kPio2[i]
// is exact for |k| < 2^29; the fourth is the next 53 bits.
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
constexpr double kPio2[4] = {0x1.921fb60000000p+0, -0x1.777a5c0000000p-25, -0x1.ee59da0000000p-50,
                             0x1.98a2e03707345p-77};

// Horner evaluation of c[0] + c[1] z + ... + c[n-1] z^(n-1), one fma a step.
template <class T, int N>
T horner(const T (&c)[N], T z) {
  T p = c[N - 1];
  for (int i = N - 2; i >= 0; --i) p = std::fma(p, z, c[i]);
  return p;
}

// 1/k! for k = 0..13: exp(r) = sum r^k / k! on |r| <= ln2/2 leaves a remainder below 5e-18.
constexpr double kExpTaylor[14] = {
    1.0,        1.0,         1.0 / 2,      1.0 / 6,       1.0 / 24,       1.0 / 120,       1.0 / 720,
    1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0};

// log(1+f) = f - f^2/2 + s (f^2/2 + R(z)), s = f/(2+f), z = s^2, R(z) = sum_{k>=1} 2 z^k / (2k+1).
// R is given here divided by z: R(z) = z * kLogSeries(z).
constexpr double kLogSeries[11] = {2.0 / 3,  2.0 / 5,  2.0 / 7,  2.0 / 9,  2.0 / 11, 2.0 / 13,
                                   2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21, 2.0 / 23};

// sin r = r + r z S(z), cos r = 1 + z C(z), z = r^2, Taylor series on |r| <= pi/4 (remainders below
// 1e-19): S = -1/3! + z/5! - ..., C = -1/2! + z/4! - ...
constexpr double kSinSeries[8] = {-1.0 / 6,
                                  1.0 / 120,
                                  -1.0 / 5040,
                                  1.0 / 362880,
                                  -1.0 / 39916800,
                                  1.0 / 6227020800.0,
                                  -1.0 / 1307674368000.0,
                                  1.0 / 355687428096000.0};
constexpr double kCosSeries[9] = {-1.0 / 2,
                                  1.0 / 24,
                                  -1.0 / 720,
                                  1.0 / 40320,
                                  -1.0 / 3628800,
                                  1.0 / 479001600,
                                  -1.0 / 87178291200.0,
                                  1.0 / 20922789888000.0,
                                  -1.0 / 6402373705728000.0};

// x = k pi/2 + r with |r| <~ pi/4; returns r and k mod 4 in quadrant.
double reduce_half_pi(double x, int& quadrant) {
  if (std::abs(x) <= 0x1.921fb54442d18p-1) {
    quadrant = 0;
    return x;
  }
  const double k = std::nearbyint(x * kTwoOverPi);
  double r = std::fma(-k, kPio2[0], x);
  r = std::fma(-k, kPio2[1], r);
  r = std::fma(-k, kPio2[2], r);
  r = std::fma(-k, kPio2[3], r);
  double q = std::fmod(k, 4.0);  // exact
  if (q < 0) q += 4.0;
  quadrant = int(q);
  return r;
}

double sin_kernel(double r) {
  const double z = r * r;
  return std::fma(r * z, horner(kSinSeries, z), r);
}
double cos_kernel(double r) {
  const double z = r * r;
  return std::fma(z, horner(kCosSeries, z), 1.0);
}

// Float exp, shared by the scalar and the AVX2 paths (the same operations in the same order):
// x = k ln2 + r, |r| <= ln2/2, exp(r) by its Taylor series to r^7 (remainder below 6e-9), times 2^k.
constexpr float kLog2eF = float(kLog2e);
constexpr float kLn2HiF = 0x1.62e4p-1f;                  // 16 significant bits: k * kLn2HiF is exact
constexpr float kLn2LoF = float(0x1.7f7d1cf79abcap-20);  // ln 2 - kLn2HiF, rounded
constexpr float kExpMaxF = 88.0f, kExpMinF = -87.0f;
constexpr float kExpTaylorF[8] = {1.0f, 1.0f, 1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};

}  // namespace

double exp(double x) {
  if (x != x) return x;
  if (x > 709.78) return kInf;
  if (x < -745.2) return 0.0;
  const double k = std::nearbyint(x * kLog2e);
  double r = std::fma(-k, kLn2Hi, x);
  r = std::fma(-k, kLn2Lo, r);
  const double p = horner(kExpTaylor, r);
  if (k < -1022 || k > 1023) return std::ldexp(p, int(k));
  // p 2^k with 2^k a normal double: one rounding at most, as ldexp's (and no libm call)
  const uint64_t bits = uint64_t(int64_t(k) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

float exp(float x) {
  if (x != x) return x;
  if (x > kExpMaxF) return std::numeric_limits<float>::infinity();
  if (x < kExpMinF) return 0.0f;
  const float k = std::nearbyint(x * kLog2eF);
  float r = std::fma(-k, kLn2HiF, x);
  r = std::fma(-k, kLn2LoF, r);
  const float p = horner(kExpTaylorF, r);
  const uint32_t bits = uint32_t(int32_t(k) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

void exp_inplace(float* x, int n) {
  int i = 0;
#ifdef PEBENCH_MATH_AVX2
  const __m256 log2e = _mm256_set1_ps(kLog2eF), nhi = _mm256_set1_ps(-kLn2HiF), nlo = _mm256_set1_ps(-kLn2LoF);
  const __m256 vmax = _mm256_set1_ps(kExpMaxF), vmin = _mm256_set1_ps(kExpMinF);
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 k = _mm256_round_ps(_mm256_mul_ps(v, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fmadd_ps(k, nhi, v);
    r = _mm256_fmadd_ps(k, nlo, r);
    __m256 p = _mm256_set1_ps(kExpTaylorF[7]);
    for (int c = 6; c >= 0; --c) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpTaylorF[c]));
    const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127)), 23);
    __m256 y = _mm256_mul_ps(p, _mm256_castsi256_ps(e));
    y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(v, vmin, _CMP_LT_OQ));
    y = _mm256_blendv_ps(y, inf, _mm256_cmp_ps(v, vmax, _CMP_GT_OQ));
    y = _mm256_blendv_ps(y, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    _mm256_storeu_ps(x + i, y);
  }
#endif
  for (; i < n; ++i) x[i] = exp(x[i]);
}

void exp_inplace(double* x, int n) {
  int i = 0;
#ifdef PEBENCH_MATH_AVX2
  // exp(double)'s operations lane by lane (the same FMAs in the same order); a group of four with a
  // lane outside the plain range (NaN, overflow, 2^k not a normal double) goes the scalar way.
  const __m256d log2e = _mm256_set1_pd(kLog2e), nhi = _mm256_set1_pd(-kLn2Hi), nlo = _mm256_set1_pd(-kLn2Lo);
  const __m256d kmin = _mm256_set1_pd(-1022.0), kmax = _mm256_set1_pd(1023.0);
  const __m256d xmin = _mm256_set1_pd(-745.2), xmax = _mm256_set1_pd(709.78);
  for (; i + 4 <= n; i += 4) {
    const __m256d v = _mm256_loadu_pd(x + i);
    const __m256d k = _mm256_round_pd(_mm256_mul_pd(v, log2e), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256d plain =
        _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(v, xmin, _CMP_GE_OQ), _mm256_cmp_pd(v, xmax, _CMP_LE_OQ)),
                      _mm256_and_pd(_mm256_cmp_pd(k, kmin, _CMP_GE_OQ), _mm256_cmp_pd(k, kmax, _CMP_LE_OQ)));
    if (_mm256_movemask_pd(plain) != 0xF) {
      for (int j = i; j < i + 4; ++j) x[j] = exp(x[j]);
      continue;
    }
    __m256d r = _mm256_fmadd_pd(k, nhi, v);
    r = _mm256_fmadd_pd(k, nlo, r);
    __m256d p = _mm256_set1_pd(kExpTaylor[13]);
    for (int c = 12; c >= 0; --c) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kExpTaylor[c]));
    const __m128i k32 = _mm256_cvtpd_epi32(k);  // exact: |k| <= 1023
    const __m256i e = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(k32), _mm256_set1_epi64x(1023)), 52);
    _mm256_storeu_pd(x + i, _mm256_mul_pd(p, _mm256_castsi256_pd(e)));
  }
#endif
  for (; i < n; ++i) x[i] = exp(x[i]);
}

double log(double x) {
  if (x != x) return x;
  if (x < 0) return kNaN;
  if (x == 0) return -kInf;
  if (x == kInf) return x;
  int e;
  double m = std::frexp(x, &e);    // x = m 2^e, m in [0.5, 1), exact
  if (m < 0x1.6a09e667f3bcdp-1) {  // sqrt(1/2): keep m in [sqrt(1/2), sqrt(2))
    m *= 2;
    --e;
  }
  const double f = m - 1.0;  // exact (Sterbenz)
  const double s = f / (2.0 + f), z = s * s, hfsq = 0.5 * f * f;
  const double R = z * horner(kLogSeries, z);
  const double dk = e;
  return dk * kLn2Hi - ((hfsq - (s * (hfsq + R) + dk * kLn2Lo)) - f);
}

float log(float x) { return float(log(double(x))); }

double log1p(double x) {
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  if (u == kInf) return u;
  return log(u) * (x / (u - 1.0));  // the rounding of 1 + x cancels in the quotient
}

double sin(double x) {
  if (!std::isfinite(x)) return kNaN;
  int q;
  const double r = reduce_half_pi(x, q);
  switch (q) {
    case 0:
      return sin_kernel(r);
    case 1:
      return cos_kernel(r);
    case 2:
      return -sin_kernel(r);
    default:
      return -cos_kernel(r);
  }
}

double cos(double x) {
  if (!std::isfinite(x)) return kNaN;
  int q;
  const double r = reduce_half_pi(x, q);
  switch (q) {
    case 0:
      return cos_kernel(r);
    case 1:
      return -sin_kernel(r);
    case 2:
      return -cos_kernel(r);
    default:
      return sin_kernel(r);
  }
}

std::complex<double> cis(double theta) { return {cos(theta), sin(theta)}; }

double pow(double x, double y) {
  if (y == 0 || x == 1) return 1.0;
  if (x != x || y != y) return kNaN;
  const bool integral = y == std::floor(y);
  if (integral && std::abs(y) <= 64) {  // exact where the product is: square and multiply
    double base = y < 0 ? 1.0 / x : x, r = 1.0;
    for (int64_t n = int64_t(std::abs(y)); n > 0; n >>= 1, base *= base)
      if (n & 1) r *= base;
    return r;
  }
  if (x == 0) return y > 0 ? 0.0 : kInf;
  if (x < 0) {
    if (!integral) return kNaN;
    const double r = exp(y * log(-x));
    return std::fmod(y, 2.0) != 0 ? -r : r;
  }
  return exp(y * log(x));
}

double hypot(double a, double b) { return std::sqrt(std::fma(a, a, b * b)); }

std::vector<double> log_factorials(int n) {
  std::vector<double> lf(size_t(n) + 1, 0.0);
  for (int k = 2; k <= n; ++k) lf[k] = lf[k - 1] + log(double(k));
  return lf;
}

}  // namespace pe::math
