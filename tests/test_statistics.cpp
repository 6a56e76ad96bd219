// The statistics of results (harness/statistics.h) against Boost.Math's distributions and hand
// computations.
#include <doctest/doctest.h>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>

#include "harness/statistics.h"

using namespace pe::stats;

TEST_CASE("the Student t quantiles and distribution function agree with Boost.Math") {
  for (int df : {1, 2, 3, 4, 5, 6, 9, 10, 29, 30, 99, 1000}) {
    const boost::math::students_t dist(df);
    for (double p : {0.6, 0.9, 0.975, 0.995}) {
      const double q = boost::math::quantile(dist, p);
      CHECK(student_t_quantile(p, df) == doctest::Approx(q).epsilon(1e-12));
      CHECK(student_t_cdf(q, df) == doctest::Approx(p).epsilon(1e-12));
      CHECK(student_t_cdf(-q, df) == doctest::Approx(1 - p).epsilon(1e-11));
    }
  }
  // the textbook values: t(0.975, 2) = 4.303, t(0.975, 9) = 2.262
  CHECK(student_t_quantile(0.975, 2) == doctest::Approx(4.302652729749464).epsilon(1e-14));
  CHECK(student_t_quantile(0.975, 9) == doctest::Approx(2.262157162798205).epsilon(1e-14));
}

TEST_CASE("summaries over seeds: mean, sample sd, the t interval; one seed has no interval") {
  const Summary s = summarize({0.90, 0.95, 1.0});
  CHECK(s.n == 3);
  CHECK(s.mean == doctest::Approx(0.95));
  CHECK(s.sd == doctest::Approx(0.05));
  CHECK(s.half_width == doctest::Approx(4.302652729749464 * 0.05 / std::sqrt(3.0)));
  const Summary one = summarize({0.7});
  CHECK(one.mean == 0.7);
  CHECK(one.sd == 0);
  CHECK(one.half_width == 0);
}

TEST_CASE("the paired t test is the one-sample t on the differences") {
  const std::vector<double> a = {0.91, 0.88, 0.95, 0.90}, b = {0.89, 0.87, 0.90, 0.90};
  const PairedT t = paired_t(a, b);
  const Summary d = summarize({0.02, 0.01, 0.05, 0.0});
  CHECK(t.mean_diff == doctest::Approx(d.mean));
  CHECK(t.hi - t.lo == doctest::Approx(2 * d.half_width));
  const double stat = d.mean / (d.sd / 2);
  CHECK(t.p_value == doctest::Approx(2 * boost::math::cdf(boost::math::complement(boost::math::students_t(3), stat))).epsilon(1e-10));
}

TEST_CASE("exact McNemar: the two-sided binomial tail of the discordant split, as Boost computes it") {
  std::vector<char> a, b;
  auto add = [&](int n, char x, char y) {
    for (int i = 0; i < n; ++i) a.push_back(x), b.push_back(y);
  };
  add(50, 1, 1), add(12, 1, 0), add(4, 0, 1), add(30, 0, 0);
  const McNemar m = mcnemar_exact(a, b);
  CHECK(m.a_only == 12);
  CHECK(m.b_only == 4);
  CHECK(m.p_value == doctest::Approx(2 * boost::math::cdf(boost::math::binomial(16, 0.5), 4.0)).epsilon(1e-12));
  CHECK(mcnemar_exact(b, b).p_value == 1);
}

TEST_CASE("the paired bootstrap: centred on the observed difference, seeded, and narrower with more sequences") {
  std::vector<char> a, b;
  for (int i = 0; i < 2000; ++i) a.push_back(i % 10 < 9), b.push_back(i % 10 < 8);  // 0.9 vs 0.8
  const Bootstrap x = paired_bootstrap(a, b, 1000, 7), y = paired_bootstrap(a, b, 1000, 7);
  CHECK(x.diff == doctest::Approx(0.1));
  CHECK(x.lo == y.lo);
  CHECK(x.hi == y.hi);
  CHECK(x.lo < 0.1);
  CHECK(x.hi > 0.1);
  // the binomial standard error of the difference is sqrt(0.1 * 0.9 / 2000) ~ 0.0067: the interval
  // spans about 1.96 of them either side
  CHECK(x.hi - x.lo == doctest::Approx(2 * 1.96 * std::sqrt(0.09 / 2000)).epsilon(0.15));
}
