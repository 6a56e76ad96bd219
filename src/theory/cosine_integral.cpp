#include "theory/cosine_integral.h"

#include <cmath>
#include <complex>
#include <limits>
#include "core/math.h"

namespace pe::theory {

namespace {

// gamma + ln x + sum_{k>=1} (-x^2)^k / (2k (2k)!); terms shrink fast for x <= 4 (largest ~0.2).
double ci_series(double x) {
  double term = 1.0;  // (-x^2)^k / (2k)!
  double sum = 0.0;
  const double x2 = x * x;
  for (int k = 1; k < 200; ++k) {
    term *= -x2 / ((2.0 * k - 1.0) * (2.0 * k));
    const double add = term / (2.0 * k);
    sum += add;
    if (std::abs(add) < 1e-18 * (std::abs(sum) + 1e-300)) break;
  }
  return kEulerGamma + math::log(x) + sum;
}

double magnitude(std::complex<double> z) { return math::hypot(z.real(), z.imag()); }

// E1(z) = e^{-z} / (z+1 - 1^2/(z+3 - 2^2/(z+5 - ...))), modified Lentz; good for |z| >= ~2, Re z >= 0.
std::complex<double> e1_continued_fraction(std::complex<double> z) {
  using C = std::complex<double>;
  const double tiny = 1e-300;
  C f = z + 1.0;
  C c = f, dd = 0.0;
  for (int n = 1; n < 10000; ++n) {
    const double a = -double(n) * n;
    const C b = z + (2.0 * n + 1.0);
    dd = b + a * dd;
    if (magnitude(dd) < tiny) dd = tiny;
    dd = 1.0 / dd;
    c = b + a / c;
    if (magnitude(c) < tiny) c = tiny;
    const C delta = c * dd;
    f *= delta;
    if (magnitude(delta - 1.0) < 1e-17) break;
  }
  return math::exp(-z.real()) * math::cis(-z.imag()) / f;  // e^{-z}
}

}  // namespace

double cosine_integral(double x) {
  x = std::abs(x);
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  if (x <= 4.0) return ci_series(x);
  return -e1_continued_fraction(std::complex<double>(0.0, x)).real();
}

}  // namespace pe::theory
