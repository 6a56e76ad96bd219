// Interpolation bound: the constant sum_j theta_j^2 in closed form, the example's actual error in closed
// form, the corrected bound on random curves, and the published constant failing.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "core/frequencies.h"
#include "theory/interpolation_bound.h"

using namespace pe::theory;

TEST_CASE("theory: interpolation constants and the d = 128 example") {
  const double b = 10000;
  for (int d : {16, 128}) {
    const double r = std::pow(b, -4.0 / d);  // theta_j^2 = r^j
    CHECK(sum_theta_sq(d, b) == doctest::Approx((1 - std::pow(r, d / 2)) / (1 - r)).epsilon(1e-13));
    CHECK(sum_theta_sq(d, b) > published_theta_sq_constant(d, b));
  }
  // all h_j = 1 on [0, 1] at 1/2: error = sum_j cos(theta/2) - (1 + cos theta)/2 = sum_j c (1 - c), c = cos(theta/2)
  double closed = 0;
  for (int j = 0; j < 64; ++j) {
    const double c = std::cos(pe::plane_frequency(j, 128, b) / 2);
    closed += c * (1 - c);
  }
  const auto j = interpolation_bound_report();
  const auto& e = j["example"];
  CHECK(e["actual_error"].get<double>() == doctest::Approx(closed).epsilon(1e-12));
  CHECK(e["published_bound"].get<double>() == doctest::Approx(128 / (32 * std::log(b))));
  CHECK(e["published_holds"] == false);
  CHECK(e["corrected_holds"] == true);
}

TEST_CASE("theory: the corrected bound holds on random curves and points") {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(0, 1);
  const double b = 10000;
  for (int t = 0; t < 200; ++t) {
    const int d = t % 2 ? 16 : 128;
    std::vector<std::complex<double>> h(d / 2);
    double bound_const = 0;
    for (int j = 0; j < d / 2; ++j) {
      h[j] = {g(rng), g(rng)};
      bound_const += std::abs(h[j]) * std::pow(pe::plane_frequency(j, d, b), 2);
    }
    const double D1 = std::floor(u(rng) * 1000), x = D1 + u(rng);
    CHECK(interpolation_error(h, D1, D1 + 1, x, b) <= 0.5 * (x - D1) * (D1 + 1 - x) * bound_const + 1e-12);
  }
}

TEST_CASE("interpolation bound: the report states how many times the published constant is too small") {
  const auto r = pe::theory::interpolation_bound_report();
  const auto& c = r["constants"];
  REQUIRE(c.size() == 2);
  // The published text gives 2.56 at d = 16 and 1.15 at d = 128.
  CHECK(c[0]["d"] == 16);
  CHECK(c[0]["ratio"].get<double>() == doctest::Approx(2.56).epsilon(0.005));
  CHECK(c[1]["d"] == 128);
  CHECK(c[1]["ratio"].get<double>() == doctest::Approx(1.15).epsilon(0.005));
  CHECK(c[0]["ratio"].get<double>() ==
        doctest::Approx(c[0]["sum_theta_sq"].get<double>() / c[0]["published_d_over_4lnb"].get<double>()));
  CHECK(r["example"]["corrected_over_published"].get<double>() == doctest::Approx(c[1]["ratio"].get<double>()));
}
