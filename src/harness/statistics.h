// Statistics of results: over seeds (mean, standard deviation, a Student t interval, the paired t
// test) and over the test sequences two readers share (a paired bootstrap interval and the exact
// McNemar test). Computed from basic IEEE operations and core/math only, so every figure is the
// same bits on every CPU (docs/results-format.md, "Intervals").
#pragma once
#include <cstdint>
#include <vector>

namespace pe::stats {

// The two-sided 95% level every interval uses.
inline constexpr double kLevel = 0.95;

// The Student t distribution with df degrees of freedom (df >= 1): P(T <= t), and the t with
// P(T <= t) = p (0 < p < 1).
double student_t_cdf(double t, int df);
double student_t_quantile(double p, int df);

struct Summary {
  int n = 0;
  double mean = 0;
  double sd = 0;          // sample standard deviation (divisor n - 1); 0 when n < 2
  double half_width = 0;  // of the 95% interval mean ± t(0.975, n-1) sd / sqrt(n); 0 when n < 2
};
Summary summarize(const std::vector<double>& values);

// z(0.975), the standard normal quantile of the 95% two-sided level.
inline constexpr double kNormal975 = 1.959963984540054;
// An accuracy measured on one fixed set of `sequences` test sequences shared by every seed: the
// seeds' interval misses that set's own draw, so the half-width adds its binomial standard error
// in quadrature: sqrt(hw_seeds^2 + (z sqrt(p (1 - p) / sequences))^2), p the mean.
double test_set_se(double mean_accuracy, int sequences);
double accuracy_half_width(const Summary& seeds, int sequences);
// The methods in words, for tables' footers and results files.
inline constexpr const char* kAccuracyIntervalMethod =
    "95% interval: Student t over seeds (t(0.975, n-1) sd / sqrt(n), sd with divisor n-1), widened in quadrature by "
    "the binomial standard error of the fixed test set (1.96 sqrt(p(1-p)/N))";
inline constexpr const char* kSeedIntervalMethod =
    "95% interval: Student t over seeds (t(0.975, n-1) sd / sqrt(n), sd with divisor n-1)";

// Paired t over seeds: the mean of a_i - b_i, its 95% interval and two-sided p value (p = 1 and a
// zero-width interval when every difference is the same).
struct PairedT {
  int n = 0;
  double mean_diff = 0, lo = 0, hi = 0, p_value = 1;
};
PairedT paired_t(const std::vector<double>& a, const std::vector<double>& b);

// Two readers' right (1) or wrong (0) answers on the same test sequences.
// Paired bootstrap: resample the sequences with replacement `resamples` times (counter-based
// stream named by `seed`); the percentile 95% interval of the accuracy difference a - b.
struct Bootstrap {
  double diff = 0, lo = 0, hi = 0;
  int resamples = 0;
  uint64_t seed = 0;
};
Bootstrap paired_bootstrap(const std::vector<char>& a, const std::vector<char>& b, int resamples, uint64_t seed);
// Exact McNemar test: the sequences only a gets right, only b gets right, and the two-sided
// binomial p value of that split under "equally likely".
struct McNemar {
  long a_only = 0, b_only = 0;
  double p_value = 1;
};
McNemar mcnemar_exact(const std::vector<char>& a, const std::vector<char>& b);

}  // namespace pe::stats
