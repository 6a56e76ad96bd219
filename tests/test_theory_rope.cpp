// RoPE: relativity and isometry, the rotation's relation to the sinusoidal shift, the decay envelope
// through Abel summation, and the score distribution under independent vs coupled key planes.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <random>

#include "core/frequencies.h"
#include "theory/rope_geometry.h"
#include "theory/sinusoidal_geometry.h"

using namespace pe::theory;

TEST_CASE("theory: RoPE is relative and isometric") {
  const double b = 10000;
  const int d = 8;
  // the rotation matrix written out per schemes.md, plane j by angle m theta_j
  const double m = 37;
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(d, d);
  for (int j = 0; j < d / 2; ++j) {
    const double a = m * pe::plane_frequency(j, d, b);
    R(2 * j, 2 * j) = std::cos(a), R(2 * j, 2 * j + 1) = -std::sin(a);
    R(2 * j + 1, 2 * j) = std::sin(a), R(2 * j + 1, 2 * j + 1) = std::cos(a);
  }
  Eigen::VectorXd x(d);
  x << 0.3, -1.2, 2.0, 0.5, -0.7, 0.1, 1.1, -0.4;
  CHECK((rope_rotate(x, m, b) - R * x).norm() < 1e-14);
  // RoPE's R(m) is the sinusoidal shift operator of offset -m (the sine-first layout turns the other way)
  CHECK((R - shift_rotation(-m, d, b)).norm() < 1e-14);
  for (int dd : {16, 128}) {
    const auto c = rope_relative_check(dd, b, 300, 65536, 9);
    CHECK(c.max_relative_error < 1e-9);
    CHECK(c.max_norm_error < 1e-12);
  }
}

TEST_CASE("theory: decay envelope bounds every RoPE score through Abel summation") {
  const int d = 128;
  const double b = 10000;
  CHECK(rope_decay_envelope(0, d, b) == doctest::Approx(64.0 * 65 / 2));
  std::mt19937_64 rng(1);
  std::normal_distribution<double> g;
  for (int delta : {1, 10, 300, 4000}) {
    std::vector<std::complex<double>> h(d / 2 + 1, 0.0);  // h_{d/2} = 0
    for (int j = 0; j < d / 2; ++j) h[j] = {g(rng), g(rng)};
    std::complex<double> direct = 0, abel = 0, S = 0;
    double maxdiff = 0;
    for (int j = 0; j < d / 2; ++j) {
      const auto e = std::polar(1.0, delta * pe::plane_frequency(j, d, b));
      direct += h[j] * e;
      S += e;  // S_{j+1}
      abel += (h[j] - h[j + 1]) * S;
      maxdiff = std::max(maxdiff, std::abs(h[j] - h[j + 1]));
    }
    CHECK(std::abs(direct - abel) < 1e-10);
    CHECK(std::abs(direct) <= maxdiff * rope_decay_envelope(delta, d, b) + 1e-12);
  }
  const auto j = rope_decay_report();
  REQUIRE(j["rows"].size() == 12);
  CHECK(j["rows"][0]["mean_envelope"].get<double>() == doctest::Approx(rope_decay_envelope(1, d, b)));
  // octave [2, 3]: mean of two values
  CHECK(j["rows"][1]["mean_envelope"].get<double>() ==
        doctest::Approx((rope_decay_envelope(2, d, b) + rope_decay_envelope(3, d, b)) / 2));
  for (size_t k = 1; k < 12; ++k)  // it decays octave by octave
    CHECK(j["rows"][k]["mean_envelope"].get<double>() < j["rows"][k - 1]["mean_envelope"].get<double>());
}

TEST_CASE("theory: score distribution is offset-free for independent planes, not for coupled ones") {
  const double b = 10000;
  const int n = 20000;
  const double crit = 1.95 * std::sqrt(2.0 / n);
  auto variance = [](const std::vector<double>& s) {
    double m1 = 0, m2 = 0;
    for (double x : s) m1 += x, m2 += x * x;
    m1 /= s.size();
    return m2 / s.size() - m1 * m1;
  };
  const auto ind0 = rope_offset_scores(4, b, 0, false, n, 1);
  const auto cpl0 = rope_offset_scores(4, b, 0, true, n, 2);
  const double dth = pe::plane_frequency(0, 4, b) - pe::plane_frequency(1, 4, b);
  for (int delta : {1, 3, 50}) {
    const auto ind = rope_offset_scores(4, b, delta, false, n, 10 + delta);
    const auto cpl = rope_offset_scores(4, b, delta, true, n, 20 + delta);
    CHECK(ks_distance(ind0, ind) < crit);
    CHECK(variance(ind) == doctest::Approx(1.0).epsilon(0.04));
    CHECK(variance(cpl) == doctest::Approx(1.0 + std::cos(delta * dth)).epsilon(0.05));
  }
  // at Delta = 3 the coupled planes nearly cancel: the distribution collapses
  CHECK(ks_distance(cpl0, rope_offset_scores(4, b, 3, true, n, 5)) > 0.3);
  // KS sanity: identical samples 0, disjoint samples 1
  CHECK(ks_distance({1, 2, 3}, {1, 2, 3}) == 0.0);
  CHECK(ks_distance({1, 2}, {3, 4}) == 1.0);
}
