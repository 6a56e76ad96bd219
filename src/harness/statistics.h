// Statistics of results: over seeds (mean, standard deviation, a Student t interval, the paired t
// test) and over the test sequences two readers share (a paired bootstrap interval and the exact
// McNemar test). Computed from basic IEEE operations and core/math only, so every figure is the
// same bits on every CPU (docs/results-format.md, "Intervals").
#pragma once
#include <cstdint>
#include <string>
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
// (The symmetric half-width above is kept in results files as "half_width" for readers not yet moved
// to lo/hi; it can pass 0 and 1 and is no interval of a proportion: tables and figures use the one
// below.)

// The 95% interval of a proportion (an accuracy, a retrieval rate) measured by each of k seeds on the
// same N test items: on the logit scale, so it stays inside [0, 1] (docs/results-format.md,
// "Intervals"). Each seed's proportion p_i (x_i = p_i N right) is moved off 0 and 1 by the continuity
// correction q_i = (x_i + 1/2) / (N + 1) and taken to l_i = logit(q_i); the centre is the logit of the
// mean corrected the same way, c = logit((p N + 1/2) / (N + 1)), p the mean of the p_i; the half-width
// adds in quadrature the seeds' Student t part, t(0.975, k-1) sd(l) / sqrt(k) (none for one seed), and
// the test set's binomial part, 1.96 sqrt(1 / (p N + 1/2) + 1 / ((1 - p) N + 1/2)) (the empirical
// logit's standard error at the mean); lo = expit(c - h), hi = expit(c + h). The correction moves the
// centre a little towards 1/2, so an end that would leave the mean out is moved to the mean: when every
// seed got nothing right lo is 0, when every seed got everything right hi is 1 (as an exact binomial
// interval does). This happens only for a mean within about a tenth of 1/N of 0 or 1.
struct ProportionInterval {
  int n = 0;                   // seeds
  double mean = 0;             // the mean of the seeds' proportions
  double lo = 0, hi = 0;       // the 95% interval, 0 <= lo <= mean <= hi <= 1
  double centre_logit = 0;     // c
  double seed_half_width = 0;  // on the logit scale: t(0.975, k-1) sd(l) / sqrt(k)
  double test_half_width = 0;  // on the logit scale: 1.96 times the empirical logit's standard error
  double half_width = 0;       // on the logit scale: the two in quadrature
};
// `per_seed`: each seed's proportion in [0, 1]; `test_items` (N >= 1): the test items each was measured
// on. Throws std::invalid_argument on an empty list, N < 1 or a proportion outside [0, 1].
ProportionInterval proportion_interval(const std::vector<double>& per_seed, long test_items);
double logit(double p);
double expit(double x);

// A proportion's cell in tables: "0.335 [0.001, 0.997]" (the mean, then its interval's ends).
std::string proportion_cell(double mean, double lo, double hi, int decimals = 3);

// The methods in words, for tables' footers and results files.
inline constexpr const char* kProportionIntervalMethod =
    "95% interval [lo, hi] on the logit scale: each seed's proportion continuity-corrected to (x + 1/2)/(N + 1) "
    "(N test items), Student t over the seeds' logits (t(0.975, k-1) sd / sqrt(k)) added in quadrature to the test "
    "set's binomial part (1.96 sqrt(1/(pN + 1/2) + 1/((1-p)N + 1/2)), p the mean), centred at the corrected mean's "
    "logit and mapped back; an end that would leave the mean out is the mean (0 when every seed is 0, 1 when every "
    "seed is 1)";
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
