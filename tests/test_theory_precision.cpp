// Finite precision: software rounding against hardware conversions and a second (frexp/nearbyint)
// algorithm, scalar aliasing against 2^p + 1, and the table's smallest row distance against brute force
// and against an offset-pruned exact search.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "core/frequencies.h"
#include "theory/finite_precision.h"
#include "theory/sinusoidal_geometry.h"

using namespace pe::theory;

namespace {

// Round by scaling: ulp from the exponent (clamped at emin for subnormals), nearbyint in the default
// round-to-nearest-even mode.
double round_by_scaling(double x, const FloatFormat& f) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int e = std::max(std::ilogb(x), f.emin);
  const double ulp = std::ldexp(1.0, e - f.precision + 1);
  const double y = std::nearbyint(x / ulp) * ulp;
  return std::abs(y) >= std::ldexp(1.0, f.emax + 1) ? std::copysign(INFINITY, x) : y;
}

std::vector<double> test_values(unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(-2, 2);
  std::uniform_int_distribution<int> ex(-160, 140);
  std::vector<double> v;
  for (int i = 0; i < 200000; ++i) v.push_back(std::ldexp(mant(rng), ex(rng)));
  for (int i = 0; i < 100000; ++i) v.push_back(mant(rng));
  // exact ties and near-ties at a few scales for each precision
  for (int p : {8, 11, 24})
    for (int k = 0; k < 2000; ++k) {
      const double base = std::ldexp(1.0 + k / 4096.0, k % 40 - 20);
      const double half = std::ldexp(1.0, std::ilogb(base) - p);
      for (double t : {base + half, base - half, base + 3 * half, std::nextafter(base + half, 0.0),
                       std::nextafter(base + half, 1e9)})
        v.push_back(t);
    }
  for (double t :
       {65504.0, 65519.99, 65520.0, 3.4e38, 3.5e38, 1e-8, 6e-8, 2.9802322387695312e-08, 1e-40, 1e-45, 1e-310})
    v.push_back(t), v.push_back(-t);
  return v;
}

}  // namespace

TEST_CASE("theory: software rounding matches hardware float, _Float16 and a second algorithm") {
  const auto v = test_values(2);
  long long bad32 = 0, bad16 = 0, badbf = 0, badsc16 = 0, checked16 = 0;
  for (double x : v) {
    bad32 += round_to_format(x, kFloat32) != double(static_cast<float>(x));
#ifdef __FLT16_MAX__  // the compiler has a native IEEE half type
    bad16 += round_to_format(x, kFloat16) != double(static_cast<_Float16>(x));
    ++checked16;
#endif
    badsc16 += round_to_format(x, kFloat16) != round_by_scaling(x, kFloat16);
    badbf += round_to_format(x, kBfloat16) != round_by_scaling(x, kBfloat16);
  }
  CHECK(bad32 == 0);
  CHECK(bad16 == 0);
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
  CHECK(checked16 == (long long)v.size());  // on x86-64 GCC >= 12 the hardware half comparison must run
#endif
  CHECK(badsc16 == 0);
  CHECK(badbf == 0);
  // ties to even: 257 -> 256, 259 -> 260 in bfloat16
  CHECK(round_to_format(257, kBfloat16) == 256);
  CHECK(round_to_format(259, kBfloat16) == 260);
  CHECK(std::isinf(round_to_format(65520, kFloat16)));
  CHECK(round_to_format(65519, kFloat16) == 65504);
}

TEST_CASE("theory: integer positions alias first at 2^p + 1") {
  CHECK(first_aliasing_integer(kBfloat16) == 257);
  CHECK(first_aliasing_integer(kFloat16) == 2049);
  CHECK(first_aliasing_integer(kFloat32) == (1LL << 24) + 1);
}

TEST_CASE("theory: smallest row distance — Gram route against brute force, collisions by hashing") {
  const FloatFormat f = kBfloat16;
  const Eigen::MatrixXd X = stored_sinusoidal_table(700, 32, 10000, &f);
  double best = INFINITY;
  int bm = -1, bn = -1;
  for (int m = 0; m < 700; ++m)
    for (int n = m + 1; n < 700; ++n) {
      const double d2 = (X.row(m) - X.row(n)).squaredNorm();
      if (d2 < best) best = d2, bm = m, bn = n;
    }
  const auto rd = min_row_distance(X);
  CHECK(rd.certified);
  CHECK(rd.min_distance == doctest::Approx(std::sqrt(best)).epsilon(1e-14));
  CHECK(rd.m == bm);
  CHECK(rd.n == bn);
  // planted duplicates: rows 650 and 900 copy rows 3 and 650
  Eigen::MatrixXd Y(1000, 32);
  Y.topRows(700) = X;
  Y.bottomRows(300) = stored_sinusoidal_table(1000, 32, 10000, &f).bottomRows(300);
  Y.row(650) = Y.row(3);
  Y.row(900) = Y.row(650);
  const auto rc = identical_rows(Y);
  CHECK(rc.repeated_rows == 2);
  CHECK(rc.m == 3);
  CHECK(rc.n == 650);
  CHECK(min_row_distance(Y).min_distance == 0.0);
}

TEST_CASE("theory: bfloat16 table d = 512 over 8192 positions — Gram route against an offset-pruned search") {
  const int N = 8192, d = 512;
  const double b = 10000;
  const Eigen::MatrixXd P = sinusoidal_matrix(N, d, b);
  const Eigen::MatrixXd X = stored_sinusoidal_table(N, d, b, &kBfloat16);
  // ||X_m - X_n|| >= ||P_m - P_n|| - ||E_m|| - ||E_n||, and ||P_m - P_n|| = sqrt(d - 2 kappa(n - m)):
  // only offsets whose exact distance is within 2 max||E|| of a known pair distance can hold the minimum.
  const double emax = (X - P).rowwise().norm().maxCoeff();
  double upper = (X.row(0) - X.row(1)).norm();
  std::vector<int> offsets;
  for (int delta = 1; delta < N; ++delta)
    if (std::sqrt(std::max(0.0, d - 2 * stationary_kernel(delta, d, b))) - 2 * emax - 1e-9 <= upper)
      offsets.push_back(delta);
  CHECK(offsets.size() < 50);
  double best = INFINITY;
  for (int delta : offsets)
    for (int m = 0; m + delta < N; ++m) best = std::min(best, (X.row(m) - X.row(m + delta)).squaredNorm());
  const auto rd = min_row_distance(X);
  CHECK(rd.min_distance == doctest::Approx(std::sqrt(best)).epsilon(1e-14));
  CHECK(identical_rows(X).repeated_rows == 0);
}
