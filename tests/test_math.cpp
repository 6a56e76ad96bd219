// pe::math against long double references (accuracy), and its fixed bits: the vector float exp
// equals the scalar one bit for bit, special values behave, and a few values are pinned exactly so
// that a change to an algorithm (which would move every result) cannot pass unnoticed.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/math.h"
#include "core/rng.h"

namespace {

// |got - want| in units of the last place of want (as a double, or as a float).
double ulps(double got, long double want) {
  const double w = double(want);
  const double ulp = std::nextafter(std::abs(w), INFINITY) - std::abs(w);
  return double(std::abs((long double)got - want) / ulp);
}
double ulps_f(float got, long double want) {
  const float w = float(want);
  const float ulp = std::nextafter(std::abs(w), INFINITY) - std::abs(w);
  return double(std::abs((long double)got - want) / ulp);
}

uint64_t bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

}  // namespace

TEST_CASE("math: double functions within a few ulp of long double") {
  pe::Rng rng(pe::stream_key({91}));
  double worst_exp = 0, worst_log = 0, worst_sin = 0, worst_cos = 0, worst_pow = 0, worst_log1p = 0;
  for (int i = 0; i < 200000; ++i) {
    const double u = rng.uniform();
    const double x = -700 + 1400 * u;  // exp's whole range
    worst_exp = std::max(worst_exp, ulps(pe::math::exp(x), std::exp((long double)x)));
    const double y = std::ldexp(0.5 + 0.5 * rng.uniform(), int(rng.below(2000)) - 1000);  // log over 600 decades
    worst_log = std::max(worst_log, ulps(pe::math::log(y), std::log((long double)y)));
    const double a = (rng.uniform() - 0.5) * 2e5;  // angles as far as m theta reaches at m = 1e5
    worst_sin = std::max(worst_sin, ulps(pe::math::sin(a), std::sin((long double)a)));
    worst_cos = std::max(worst_cos, ulps(pe::math::cos(a), std::cos((long double)a)));
    const double b = 1 + 20000 * rng.uniform(), e = -2 * rng.uniform();  // base^(-2j/d)
    worst_pow = std::max(worst_pow, ulps(pe::math::pow(b, e), std::pow((long double)b, (long double)e)));
    const double p = (rng.uniform() - 0.5) * std::ldexp(1.0, -int(rng.below(40)));
    if (p != 0) worst_log1p = std::max(worst_log1p, ulps(pe::math::log1p(p), std::log1p((long double)p)));
  }
  CHECK(worst_exp < 2);
  CHECK(worst_log < 2);
  CHECK(worst_sin < 2);  // measured against the nearest double, so near zeros of sin a few ulp of r
  CHECK(worst_cos < 2);
  CHECK(worst_pow < 48);  // exp(y log x): |y log x| <= 20 amplifies log's rounding (about 1e-14 relative)
  CHECK(worst_log1p < 3);
  MESSAGE("worst ulp: exp ", worst_exp, " log ", worst_log, " sin ", worst_sin, " cos ", worst_cos, " pow ", worst_pow,
          " log1p ", worst_log1p);
}

TEST_CASE("math: float exp within one ulp, and the vector path gives the scalar bits") {
  pe::Rng rng(pe::stream_key({92}));
  std::vector<float> x(100003);
  for (auto& v : x) v = float(-90 + 100 * rng.uniform());
  x[5] = 0.0f, x[6] = -0.0f, x[7] = 88.5f, x[8] = -87.5f, x[9] = std::numeric_limits<float>::quiet_NaN();
  x[10] = -std::numeric_limits<float>::infinity(), x[11] = std::numeric_limits<float>::infinity();
  std::vector<float> y = x;
  pe::math::exp_inplace(y.data(), int(y.size()));
  double worst = 0;
  int differ = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float s = pe::math::exp(x[i]);
    differ += std::memcmp(&s, &y[i], 4) != 0;
    if (x[i] >= -87 && x[i] <= 88) worst = std::max(worst, ulps_f(s, std::exp((long double)x[i])));
  }
  CHECK(differ == 0);
  CHECK(worst < 1.0);
  CHECK(y[5] == 1.0f);
  CHECK(y[6] == 1.0f);
  CHECK(std::isinf(y[7]));
  CHECK(y[8] == 0.0f);
  CHECK(std::isnan(y[9]));
  CHECK(y[10] == 0.0f);
  CHECK(std::isinf(y[11]));
  MESSAGE("float exp worst ulp ", worst);
}

TEST_CASE("math: the double exp's vector path gives the scalar bits, at the edges too") {
  pe::Rng rng(pe::stream_key({93}));
  std::vector<double> x(100003);
  for (auto& v : x) v = -760 + 1480 * rng.uniform();             // past both ends of the plain range
  for (size_t i = 0; i < 2000; ++i) x[i] = -40 * rng.uniform();  // cross-entropy's range (l - max <= 0)
  const double edges[] = {0.0,
                          -0.0,
                          709.78,
                          709.79,
                          -745.2,
                          -745.3,
                          -708.4,
                          -708.3,
                          -707.0,
                          709.5,
                          std::numeric_limits<double>::quiet_NaN(),
                          -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::infinity(),
                          1e-300,
                          -1e-300};
  for (size_t i = 0; i < std::size(edges); ++i) x[2000 + 4 * i + i % 4] = edges[i];  // in every lane
  std::vector<double> y = x;
  pe::math::exp_inplace(y.data(), int(y.size()));
  int differ = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double s = pe::math::exp(x[i]);
    differ += std::memcmp(&s, &y[i], 8) != 0;
  }
  CHECK(differ == 0);
}

TEST_CASE("math: special values and exact cases") {
  namespace m = pe::math;
  CHECK(m::exp(0.0) == 1.0);
  CHECK(m::log(1.0) == 0.0);
  CHECK(std::isinf(m::log(0.0)));
  CHECK(std::isnan(m::log(-1.0)));
  CHECK(m::log1p(0.0) == 0.0);
  CHECK(m::sin(0.0) == 0.0);
  CHECK(m::cos(0.0) == 1.0);
  CHECK(std::isnan(m::sin(INFINITY)));
  CHECK(m::pow(2.0, 10.0) == 1024.0);
  CHECK(m::pow(2.0, -3.0) == 0.125);
  CHECK(m::pow(-2.0, 3.0) == -8.0);
  CHECK(m::pow(0.999, 0.0) == 1.0);
  CHECK(std::isnan(m::pow(-2.0, 0.5)));
  CHECK(m::hypot(3.0, 4.0) == 5.0);
  const auto lf = m::log_factorials(20);
  CHECK(lf[0] == 0.0);
  CHECK(lf[1] == 0.0);
  CHECK(lf[20] == doctest::Approx(std::lgamma(21.0)).epsilon(1e-15));
}

TEST_CASE("math: pinned bits (an algorithm change moves every result: recommit the golden outputs)") {
  namespace m = pe::math;
  // Values as this implementation computes them (here each is also the correctly rounded value).
  CHECK(bits(m::exp(1.0)) == bits(0x1.5bf0a8b145769p+1));
  CHECK(bits(m::log(10000.0)) == bits(0x1.26bb1bbb55516p+3));
  CHECK(bits(m::sin(1.0)) == bits(0x1.aed548f090ceep-1));
  CHECK(bits(m::cos(100.0)) == bits(0x1.b981dbf665fdfp-1));
}
