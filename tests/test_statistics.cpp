// The statistics of results (harness/statistics.h) against Boost.Math's distributions and hand
// computations.
#include <doctest/doctest.h>

#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

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
  CHECK(
      t.p_value ==
      doctest::Approx(2 * boost::math::cdf(boost::math::complement(boost::math::students_t(3), stat))).epsilon(1e-10));
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

// The interval of a proportion (docs/results-format.md, "Intervals"), recomputed by hand from its
// definition with <cmath> (within 1e-12: the library computes with core/math).
namespace {
double ref_logit(double p) { return std::log(p / (1 - p)); }
double ref_expit(double x) { return 1 / (1 + std::exp(-x)); }
void check_inside(const ProportionInterval& iv) {
  CHECK(iv.lo >= 0);
  CHECK(iv.hi <= 1);
  CHECK(iv.lo <= iv.mean);
  CHECK(iv.mean <= iv.hi);
}
}  // namespace

TEST_CASE("the proportion interval follows its definition: corrected logits, t over seeds, the binomial part") {
  const std::vector<double> p = {0.62, 0.70, 0.55};
  const int N = 1000;
  const ProportionInterval iv = proportion_interval(p, N);
  std::vector<double> l;
  for (double x : p) l.push_back(ref_logit((x * N + 0.5) / (N + 1)));
  const double lm = (l[0] + l[1] + l[2]) / 3;
  double ss = 0;
  for (double x : l) ss += (x - lm) * (x - lm);
  const double seed_hw = 4.302652729749464 * std::sqrt(ss / 2) / std::sqrt(3.0);
  const double mean = (0.62 + 0.70 + 0.55) / 3, right = mean * N;
  const double test_hw = 1.959963984540054 * std::sqrt(1 / (right + 0.5) + 1 / (N - right + 0.5));
  const double c = ref_logit((right + 0.5) / (N + 1)), h = std::sqrt(seed_hw * seed_hw + test_hw * test_hw);
  CHECK(iv.n == 3);
  CHECK(iv.mean == doctest::Approx(mean).epsilon(1e-14));
  CHECK(iv.seed_half_width == doctest::Approx(seed_hw).epsilon(1e-12));
  CHECK(iv.test_half_width == doctest::Approx(test_hw).epsilon(1e-12));
  CHECK(iv.lo == doctest::Approx(ref_expit(c - h)).epsilon(1e-12));
  CHECK(iv.hi == doctest::Approx(ref_expit(c + h)).epsilon(1e-12));
  check_inside(iv);
  // asymmetric about the mean once the logit scale bends: further from the mean on the side of 1/2
  const ProportionInterval low = proportion_interval({0.02, 0.05, 0.03}, 200);
  CHECK(low.hi - low.mean > low.mean - low.lo);
  check_inside(low);
}

TEST_CASE("proportion intervals at the edges: all seeds at 0 or 1, one seed, identical seeds, wild seeds") {
  for (int N : {1, 7, 100, 1100, 10000}) {
    CAPTURE(N);
    // every seed got nothing right: the interval starts at 0 and reaches above 0 (the test set is finite)
    const ProportionInterval zero = proportion_interval({0.0, 0.0, 0.0}, N);
    CHECK(zero.mean == 0);
    CHECK(zero.lo == 0);
    CHECK(zero.hi > 0);
    CHECK(zero.hi < 1);
    check_inside(zero);
    // everything right: mirror image
    const ProportionInterval one = proportion_interval({1.0, 1.0, 1.0}, N);
    CHECK(one.hi == 1);
    CHECK(one.lo < 1);
    CHECK(one.lo == doctest::Approx(1 - zero.hi).epsilon(1e-12));
    check_inside(one);
    // one seed: no seed part, the test set's part alone
    const ProportionInterval single = proportion_interval({0.4}, N);
    CHECK(single.seed_half_width == 0);
    CHECK(single.half_width == single.test_half_width);
    check_inside(single);
    // identical seeds: no spread, the same interval as one seed
    const ProportionInterval same = proportion_interval({0.4, 0.4, 0.4, 0.4}, N);
    CHECK(same.seed_half_width == 0);
    CHECK(same.lo == single.lo);
    CHECK(same.hi == single.hi);
    // wildly different seeds (one learned the task, two did not): within [0, 1], and with a test set of
    // more than a handful of items nearly all of it
    const ProportionInterval wild = proportion_interval({0.0, 1.0, 0.0}, N);
    check_inside(wild);
    if (N >= 7) {
      CHECK(wild.lo < 0.01);
      CHECK(wild.hi > 0.95);
    }
  }
  // more test items, a narrower interval (identical seeds: the binomial part alone)
  CHECK(proportion_interval({0.3, 0.3}, 10000).hi - proportion_interval({0.3, 0.3}, 10000).lo <
        proportion_interval({0.3, 0.3}, 100).hi - proportion_interval({0.3, 0.3}, 100).lo);
  // the symmetric interval that printed 0.335 ± 1.086 had ends at -0.751 and 1.421; on the logit scale
  // the same kind of seeds give ends inside [0, 1]
  const ProportionInterval passkey_like = proportion_interval({0.0, 0.0, 0.99}, 1100);
  check_inside(passkey_like);
  CHECK(passkey_like.mean == doctest::Approx(0.33));
}

TEST_CASE("proportion intervals hold the mean for any mean, however close to 0 or 1") {
  for (long N : {1L, 2L, 3L, 10L, 99L, 1100L, 100000L})
    for (double p : {1e-12, 1e-6, 1e-3, 0.01, 0.25, 0.5, 0.75, 0.99, 1 - 1e-6, 1 - 1e-12}) {
      CAPTURE(N);
      CAPTURE(p);
      check_inside(proportion_interval({p}, N));
      check_inside(proportion_interval({p, p, p}, N));
      check_inside(proportion_interval({p, 1 - p, p / 2}, N));
    }
}

TEST_CASE("proportion intervals refuse what is not a proportion") {
  CHECK_THROWS_AS(proportion_interval({}, 10), std::invalid_argument);
  CHECK_THROWS_AS(proportion_interval({0.5}, 0), std::invalid_argument);
  CHECK_THROWS_AS(proportion_interval({1.2}, 10), std::invalid_argument);
  CHECK_THROWS_AS(proportion_interval({-0.1}, 10), std::invalid_argument);
  CHECK_THROWS_AS(proportion_interval({std::nan("")}, 10), std::invalid_argument);
}
