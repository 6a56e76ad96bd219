// Ci(x) against tabulated values and against two independent routes: quadrature of its defining
// integral (small and mid x) and the asymptotic auxiliary-function series (large x).
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "theory/cosine_integral.h"

namespace {

// gamma + ln x + int_0^x (cos t - 1)/t dt, composite Simpson in long double.
double ci_by_quadrature(double x, int intervals) {
  auto f = [](long double t) { return t == 0 ? 0.0L : (std::cos(t) - 1.0L) / t; };
  const long double h = (long double)x / intervals;
  long double s = f(0) + f(x);
  for (int i = 1; i < intervals; ++i) s += (i % 2 ? 4.0L : 2.0L) * f(i * h);
  return double(pe::theory::kEulerGamma + std::log((long double)x) + s * h / 3.0L);
}

// Ci(x) = f(x) sin x - g(x) cos x with f ~ (1/x) sum (-1)^k (2k)!/x^{2k}, g ~ (1/x^2) sum (-1)^k (2k+1)!/x^{2k}.
double ci_asymptotic(double x) {
  long double f = 0, g = 0, tf = 1, tg = 1;
  for (int k = 0; k < 6; ++k) {
    f += tf, g += tg;
    tf *= -(2.0L * k + 1) * (2.0L * k + 2) / ((long double)x * x);
    tg *= -(2.0L * k + 2) * (2.0L * k + 3) / ((long double)x * x);
  }
  return double(f / x * std::sin((long double)x) - g / ((long double)x * x) * std::cos((long double)x));
}

}  // namespace

TEST_CASE("theory: cosine integral matches known values") {
  using pe::theory::cosine_integral;
  CHECK(cosine_integral(1.0) == doctest::Approx(0.3374039229009681).epsilon(1e-15));
  CHECK(cosine_integral(0.5) == doctest::Approx(-0.17778407880661290).epsilon(1e-15));
  CHECK(cosine_integral(10.0) == doctest::Approx(-0.04545643300445537).epsilon(1e-14));
  CHECK(cosine_integral(100.0) == doctest::Approx(-0.005148825142610493).epsilon(1e-13));
  CHECK(cosine_integral(-1.0) == cosine_integral(1.0));
  CHECK(std::isinf(cosine_integral(0.0)));
}

TEST_CASE("theory: cosine integral agrees with quadrature and with the asymptotic series") {
  using pe::theory::cosine_integral;
  for (double x : {1e-3, 0.5, 1.0, 2.0, 3.99, 4.0, 4.01, 6.0, 10.0, 37.5, 100.0})
    CHECK(std::abs(cosine_integral(x) - ci_by_quadrature(x, 200000)) < 1e-12);
  for (double x : {200.0, 1e3, 1e4, 12345.678, 1e6}) CHECK(std::abs(cosine_integral(x) - ci_asymptotic(x)) < 1e-15);
  // the two branches meet continuously at the switch x = 4
  CHECK(std::abs(cosine_integral(4.0) - cosine_integral(std::nextafter(4.0, 5.0))) < 1e-14);
  // small x: gamma + ln x - x^2/4
  CHECK(cosine_integral(1e-4) == doctest::Approx(pe::theory::kEulerGamma + std::log(1e-4) - 0.25e-8).epsilon(1e-15));
}
