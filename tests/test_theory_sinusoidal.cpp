// The sinusoidal code as a kernel: shift = rotation, kernel, logarithmic ruler, column cosines,
// each against an independent route (direct codes, closed-form trigonometric sums, quadrature).
#include <doctest/doctest.h>

#include <cmath>

#include "core/frequencies.h"
#include "theory/sinusoidal_geometry.h"

using namespace pe::theory;

namespace {

// sum_{m=0}^{N-1} cos(m x) and sin(m x) in closed form (Lagrange).
double sum_cos(double x, int N) {
  return x == 0 ? N : std::sin(N * x / 2) * std::cos((N - 1) * x / 2) / std::sin(x / 2);
}
double sum_sin(double x, int N) {
  return x == 0 ? 0 : std::sin(N * x / 2) * std::sin((N - 1) * x / 2) / std::sin(x / 2);
}

// <column a, column b> of the [N x d] sinusoidal matrix, by product-to-sum identities.
double column_dot(int a, int b, int N, int d, double base) {
  const double x = pe::plane_frequency(a / 2, d, base), y = pe::plane_frequency(b / 2, d, base);
  const bool sa = a % 2 == 0, sb = b % 2 == 0;  // even column = sine
  if (sa && sb) return 0.5 * (sum_cos(x - y, N) - sum_cos(x + y, N));
  if (!sa && !sb) return 0.5 * (sum_cos(x - y, N) + sum_cos(x + y, N));
  if (sa) return 0.5 * (sum_sin(x + y, N) + sum_sin(x - y, N));  // sin(mx) cos(my)
  return 0.5 * (sum_sin(x + y, N) + sum_sin(y - x, N));          // cos(mx) sin(my)
}

}  // namespace

TEST_CASE("theory: sinusoidal shift is a rotation with the group law and constant norm") {
  const int d = 16;
  const double b = 10000;
  for (int k : {1, 5, 333}) {
    const auto R = shift_rotation(k, d, b);
    CHECK((R.transpose() * R - Eigen::MatrixXd::Identity(d, d)).norm() < 1e-13);
    CHECK(R.determinant() == doctest::Approx(1.0));
    for (int m : {0, 7, 2000})
      CHECK((sinusoidal_position(m + k, d, b) - R * sinusoidal_position(m, d, b)).norm() < 1e-12);
  }
  CHECK((shift_rotation(3, d, b) * shift_rotation(-10, d, b) - shift_rotation(-7, d, b)).norm() < 1e-13);
  // a wrong layout (cosine first in p, sine-first R) would fail the shift identity: guard the convention
  CHECK(sinusoidal_position(1, d, b)(0) == doctest::Approx(std::sin(1.0)));
  const auto j = rotation_report();
  for (const auto& r : j["rows"]) {
    CHECK(r["max_shift_error"].get<double>() < 1e-11);
    CHECK(r["max_group_law_error"].get<double>() < 1e-11);
    CHECK(r["max_norm_sq_error"].get<double>() < 1e-12);
    CHECK(r["injective"] == true);
    // min distance over the range, recomputed from the kernel: ||p(m)-p(n)||^2 = d - 2 kappa(n-m)
    const int dd = r["d"], N = r["positions"];
    double best = INFINITY;
    for (int delta = 1; delta < N; ++delta) best = std::min(best, dd - 2 * stationary_kernel(delta, dd, b));
    CHECK(r["min_distance"].get<double>() == doctest::Approx(std::sqrt(best)).epsilon(1e-9));
    CHECK(r["min_distance_offset"] == 1);
  }
}

TEST_CASE("theory: stationary kernel is the inner product of codes") {
  for (int d : {16, 64})
    for (int m : {0, 3, 1000})
      for (int delta : {-5, 0, 1, 77, 4000})
        CHECK(sinusoidal_position(m, d, 10000).dot(sinusoidal_position(m + delta, d, 10000)) ==
              doctest::Approx(stationary_kernel(delta, d, 10000)).epsilon(1e-12));
}

TEST_CASE("theory: logarithmic ruler limit equals the integral it comes from") {
  const double b = 10000;
  const auto j = log_ruler_report();
  for (const auto& r : j["rows"]) {
    const double delta = r["delta"];
    // I_b(Delta) = int_0^1 cos(Delta b^-x) dx, composite Simpson with 10^6 intervals
    const int n = 1000000;
    long double s = std::cos(delta) + std::cos(delta / b);
    for (int i = 1; i < n; ++i) s += (i % 2 ? 4.0L : 2.0L) * std::cos(delta * std::pow(b, -double(i) / n));
    const double quad = double(s / (3.0L * n));
    CHECK(std::abs(r["limit"].get<double>() - quad) < 1e-9);
    CHECK(r["line"].get<double>() == doctest::Approx(1 - (0.5772156649015329 + std::log(delta)) / std::log(b)));
    // (2/d) kappa_d is a left Riemann sum of that integral with d/2 nodes: after the first Euler-Maclaurin
    // correction (f(0) - f(1))/d it lies within 3e-5 of the limit at d = 8192, and d = 8192 beats d = 512
    const double r512 = r["by_d"][1]["ratio"], r8192 = r["by_d"][2]["ratio"], lim = r["limit"];
    CHECK(std::abs(r8192 - (std::cos(delta) - std::cos(delta / b)) / 8192 - lim) < 3e-5);
    CHECK(std::abs(r8192 - lim) < 3e-4);
    CHECK(std::abs(r8192 - lim) < std::abs(r512 - lim));
  }
  // between 1 and b the limit hugs the straight line
  CHECK(std::abs(log_ruler_limit(64, b) - log_ruler_line(64, b)) < 0.01);
}

TEST_CASE("theory: largest column cosine agrees with closed-form trigonometric sums") {
  const int d = 16;
  const double b = 10000;
  for (int N : {64, 4096}) {
    double best = 0;
    for (int a = 0; a < d; ++a)
      for (int c = a + 1; c < d; ++c) {
        const double cs = column_dot(a, c, N, d, b) / std::sqrt(column_dot(a, a, N, d, b) * column_dot(c, c, N, d, b));
        best = std::max(best, std::abs(cs));
      }
    CHECK(largest_column_cosine(N, d, b).value == doctest::Approx(best).epsilon(1e-10));
  }
  const auto j = column_cosine_report();
  CHECK(j["rows"][0]["max_cosine"].get<double>() > 0.9999);  // over 64 positions the slow columns are parallel
  CHECK(j["rows"][1]["max_cosine"].get<double>() < 0.9);
}
