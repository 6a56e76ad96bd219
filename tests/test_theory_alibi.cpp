// ALiBi tail bound: the formula against a direct geometric sum, the tail mass against its closed form
// for the worst-case head, and the bound against random heads.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "theory/alibi_bound.h"

using namespace pe::theory;

TEST_CASE("theory: ALiBi bound equals the geometric tail it sums") {
  for (int D : {40, 60, 80}) {
    long double s = 0;
    for (int r = D; r < D + 5000; ++r) s += std::exp(20.0L - 0.5L * r);
    CHECK(alibi_tail_bound(20, 0.5, D) == doctest::Approx(double(s)).epsilon(1e-12));
  }
  CHECK(alibi_tail_bound(20, 0.5, 40) > 1.0);  // at D = horizon W/s the bound says nothing
}

TEST_CASE("theory: ALiBi tail mass — worst case closed form, random heads below the bound") {
  const double W = 20, s = 0.5;
  const int len = 2000;
  for (int D : {40, 60, 80}) {
    std::vector<double> c(len);
    for (int r = 0; r < len; ++r) c[r] = r < D ? 0.0 : W;
    const double q = std::exp(-s);
    const double T = std::exp(W) * (std::pow(q, D) - std::pow(q, len)) / (1 - q), H = (1 - std::pow(q, D)) / (1 - q);
    CHECK(alibi_tail_mass(c, s, D) == doctest::Approx(T / (H + T)).epsilon(1e-12));
  }
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, W);
  for (int h = 0; h < 50; ++h) {
    std::vector<double> c(len);
    for (double& x : c) x = u(rng);
    for (int D : {20, 40, 60, 80}) CHECK(alibi_tail_mass(c, s, D) <= alibi_tail_bound(W, s, D));
  }
  // with no content preference the tail is geometric: mass = q^D (1 - q^(len-D)) / (1 - q^len)
  std::vector<double> flat(len, 0.0);
  const double q = std::exp(-s);
  CHECK(alibi_tail_mass(flat, s, 10) ==
        doctest::Approx(std::pow(q, 10) * (1 - std::pow(q, len - 10)) / (1 - std::pow(q, len))));
  const auto j = alibi_bound_report();
  for (const auto& r : j["rows"]) CHECK(r["holds"] == true);
}

TEST_CASE("theory: ALiBi's mean tail mass over a window's rows is the bias-only mass of each row, averaged") {
  // the char LM's reference slopes 2^(-8h/4) and others, read at 512 with the training length 128 as D
  for (double s : {0.25, 1.0 / 16, 1.0 / 64, 1.0 / 256, 1e-3}) {
    CAPTURE(s);
    for (auto [n, D] : {std::pair{512, 128}, std::pair{256, 128}, std::pair{128, 128}, std::pair{40, 7}}) {
      double sum = 0;
      for (int i = 0; i < n; ++i) sum += alibi_tail_mass(std::vector<double>(size_t(i) + 1, 0.0), s, D);
      CHECK(alibi_mean_tail_mass(s, n, D) == doctest::Approx(sum / n).epsilon(1e-12));
    }
  }
  CHECK(alibi_mean_tail_mass(0.25, 128, 128) == 0.0);  // no row reaches age 128
  // the flattest head puts a sizeable share past 128: at 512, e^(-1/2) of the tail of each long row
  CHECK(alibi_mean_tail_mass(1.0 / 256, 512, 128) > 0.2);
  CHECK(alibi_mean_tail_mass(0.25, 512, 128) < 1e-12);
}
