#include "harness/statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/math.h"
#include "core/rng.h"

namespace pe::stats {

namespace {

constexpr double kPi = 3.14159265358979323846;

// atan(x) for x >= 0 from basic operations: x > 1 reflects to pi/2 - atan(1/x); two halvings
// atan(x) = 2 atan(x / (1 + sqrt(1 + x^2))) bring x below 0.21; then the Taylor series.
double atan_nonneg(double x) {
  if (x > 1) return kPi / 2 - atan_nonneg(1 / x);
  for (int i = 0; i < 2; ++i) x = x / (1 + std::sqrt(1 + x * x));
  const double x2 = x * x;
  double term = x, sum = 0;
  for (int k = 0; k < 40; ++k) {  // |term| < 0.21^(2k+1) / (2k+1): far below 1 ulp after 40
    sum += term / (2 * k + 1);
    term *= -x2;
  }
  return 4 * sum;
}

// A(t | df) = P(|T| < t) for t >= 0 (Abramowitz and Stegun 26.7.3 and 26.7.4).
double central_mass(double t, int df) {
  if (t <= 0) return 0;
  const double r = std::sqrt(double(df) + t * t);
  const double s = t / r, c = std::sqrt(double(df)) / r, c2 = c * c;
  if (df % 2 == 0) {
    double term = 1, sum = 1;
    for (int k = 2; k <= df - 2; k += 2) sum += (term *= c2 * double(k - 1) / double(k));
    return s * sum;
  }
  const double theta = atan_nonneg(t / std::sqrt(double(df)));
  if (df == 1) return 2 * theta / kPi;
  double term = 1, sum = 1;
  for (int k = 3; k <= df - 2; k += 2) sum += (term *= c2 * double(k - 1) / double(k));
  return 2 / kPi * (theta + s * c * sum);
}

}  // namespace

double student_t_cdf(double t, int df) {
  if (df < 1) throw std::invalid_argument("student_t_cdf: df must be at least 1");
  const double a = central_mass(std::fabs(t), df);
  return t >= 0 ? 0.5 + a / 2 : 0.5 - a / 2;
}

double student_t_quantile(double p, int df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must lie in (0, 1)");
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  const double target = 2 * p - 1;  // central mass
  double lo = 0, hi = 1;
  while (central_mass(hi, df) < target) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {  // bisection to the last bit
    const double mid = lo + (hi - lo) / 2;
    if (mid == lo || mid == hi) break;
    (central_mass(mid, df) < target ? lo : hi) = mid;
  }
  return hi;
}

Summary summarize(const std::vector<double>& v) {
  Summary s;
  s.n = int(v.size());
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / s.n;
  if (s.n < 2) return s;
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = std::sqrt(ss / (s.n - 1));
  s.half_width = student_t_quantile(0.5 + kLevel / 2, s.n - 1) * s.sd / std::sqrt(double(s.n));
  return s;
}

double test_set_se(double p, int sequences) { return std::sqrt(std::max(0.0, p * (1 - p)) / sequences); }

double accuracy_half_width(const Summary& seeds, int sequences) {
  const double t = kNormal975 * test_set_se(seeds.mean, sequences);
  return std::sqrt(seeds.half_width * seeds.half_width + t * t);
}

double logit(double p) { return math::log(p / (1 - p)); }
double expit(double x) { return x >= 0 ? 1 / (1 + math::exp(-x)) : math::exp(x) / (1 + math::exp(x)); }

ProportionInterval proportion_interval(const std::vector<double>& per_seed, long test_items) {
  if (per_seed.empty()) throw std::invalid_argument("proportion_interval: no seed");
  if (test_items < 1) throw std::invalid_argument("proportion_interval: test_items must be at least 1");
  const double N = double(test_items);
  std::vector<double> logits;
  double sum = 0;
  for (double p : per_seed) {
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument("proportion_interval: a proportion outside [0, 1]");
    sum += p;
    logits.push_back(logit((p * N + 0.5) / (N + 1)));  // the continuity correction keeps 0 and 1 finite
  }
  ProportionInterval out;
  out.n = int(per_seed.size());
  out.mean = sum / out.n;
  const double right = out.mean * N;
  out.centre_logit = logit((right + 0.5) / (N + 1));
  out.seed_half_width = summarize(logits).half_width;  // 0 for one seed
  out.test_half_width = kNormal975 * std::sqrt(1 / (right + 0.5) + 1 / (N - right + 0.5));
  out.half_width = std::sqrt(out.seed_half_width * out.seed_half_width + out.test_half_width * out.test_half_width);
  out.lo = std::min(out.mean, expit(out.centre_logit - out.half_width));
  out.hi = std::max(out.mean, expit(out.centre_logit + out.half_width));
  return out;
}

std::string proportion_cell(double mean, double lo, double hi, int decimals) {
  return fmt::format("{:.{}f} [{:.{}f}, {:.{}f}]", mean, decimals, lo, decimals, hi, decimals);
}

PairedT paired_t(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("paired_t: the two lists differ in length");
  std::vector<double> d(a.size());
  for (size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  const Summary s = summarize(d);
  PairedT out;
  out.n = s.n;
  out.mean_diff = s.mean;
  out.lo = s.mean - s.half_width;
  out.hi = s.mean + s.half_width;
  if (s.n >= 2 && s.sd > 0) {
    const double t = s.mean / (s.sd / std::sqrt(double(s.n)));
    out.p_value = 2 * (1 - student_t_cdf(std::fabs(t), s.n - 1));
  }
  return out;
}

Bootstrap paired_bootstrap(const std::vector<char>& a, const std::vector<char>& b, int resamples, uint64_t seed) {
  if (a.size() != b.size() || a.empty()) throw std::invalid_argument("paired_bootstrap: two equal non-empty lists");
  const int n = int(a.size());
  std::vector<int> d(n);
  long total = 0;
  for (int i = 0; i < n; ++i) total += (d[i] = int(a[i]) - int(b[i]));
  Bootstrap out;
  out.diff = double(total) / n;
  out.resamples = resamples;
  out.seed = seed;
  std::vector<double> diffs(resamples);
  for (int r = 0; r < resamples; ++r) {
    Rng rng(stream_key({kTagCheck, seed, 0xB007, uint64_t(r)}));
    long s = 0;
    for (int i = 0; i < n; ++i) s += d[rng.below(n)];
    diffs[r] = double(s) / n;
  }
  std::sort(diffs.begin(), diffs.end());
  // percentile interval: the order statistics at 2.5% and 97.5%
  const double tail = (1 - kLevel) / 2;
  out.lo = diffs[std::min(resamples - 1, int(std::floor(tail * resamples)))];
  out.hi = diffs[std::min(resamples - 1, int(std::ceil((1 - tail) * resamples)) - 1)];
  return out;
}

McNemar mcnemar_exact(const std::vector<char>& a, const std::vector<char>& b) {
  if (a.size() != b.size()) throw std::invalid_argument("mcnemar_exact: the two lists differ in length");
  McNemar out;
  for (size_t i = 0; i < a.size(); ++i) {
    out.a_only += a[i] && !b[i];
    out.b_only += b[i] && !a[i];
  }
  const long n = out.a_only + out.b_only, k = std::min(out.a_only, out.b_only);
  if (n == 0) return out;
  // P(X <= k), X ~ Binomial(n, 1/2), from log terms: log C(n, j) - n log 2
  const double log2n = double(n) * math::log(2.0);
  double log_c = 0, tail = 0;
  for (long j = 0; j <= k; ++j) {
    if (j > 0) log_c += math::log(double(n - j + 1) / double(j));
    tail += math::exp(log_c - log2n);
  }
  out.p_value = std::min(1.0, 2 * tail);
  return out;
}

}  // namespace pe::stats
