#include "theory/rope_geometry.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>

#include "core/frequencies.h"
#include "core/math.h"
#include "core/rng.h"
#include "schemes/rope.h"

namespace pe::theory {

Eigen::VectorXd rope_rotate(const Eigen::VectorXd& x, double pos, double base) {
  const int d = int(x.size());
  Eigen::VectorXd y(d);
  for (int j = 0; j < d / 2; ++j) {
    const double a = pos * pe::plane_frequency(j, d, base), c = math::cos(a), s = math::sin(a);
    y(2 * j) = x(2 * j) * c - x(2 * j + 1) * s;
    y(2 * j + 1) = x(2 * j) * s + x(2 * j + 1) * c;
  }
  return y;
}

RopeRelativeCheck rope_relative_check(int d, double base, int trials, int max_pos, unsigned seed) {
  std::mt19937_64 rng(seed);
  pe::Rng g(pe::stream_key({uint64_t(seed)}));  // normals by pe's own Box-Muller (no libm)
  std::uniform_int_distribution<int> pos(0, max_pos - 1);
  // the harness's own RoPE (schemes/rope.h), one head of width d
  SchemeConfig sc;
  sc.name = "rope";
  sc.d_model = sc.d_head = d;
  sc.settings["base"] = base;
  RopeScheme<double> rope(sc);
  rope.prepare(max_pos);
  RopeRelativeCheck out;
  for (int t = 0; t < trials; ++t) {
    Eigen::VectorXd q(d), k(d);
    for (int i = 0; i < d; ++i) q(i) = g.normal(), k(i) = g.normal();
    const int m = pos(rng), n = pos(rng);
    Eigen::VectorXd qm = q, kn = k, kr = k;
    rope.qk_forward(Qk::Query, &m, 1, qm.data());
    rope.qk_forward(Qk::Key, &n, 1, kn.data());
    // R(n - m) k: turn forward by n - m, or back (the transpose) by m - n
    const int off = std::abs(n - m);
    if (n >= m)
      rope.qk_forward(Qk::Key, &off, 1, kr.data());
    else
      rope.qk_backward(Qk::Key, &off, 1, kr.data());
    const double lhs = qm.dot(kn), rhs = q.dot(kr);
    out.max_relative_error = std::max(out.max_relative_error, std::abs(lhs - rhs));
    out.max_norm_error = std::max(out.max_norm_error, std::abs(qm.norm() - q.norm()));
  }
  return out;
}

double rope_decay_envelope(double delta, int d, double base) {
  std::complex<double> S = 0.0;
  double sum = 0.0;
  for (int j = 0; j < d / 2; ++j) {
    S += math::cis(delta * pe::plane_frequency(j, d, base));  // S_{j+1}
    sum += math::hypot(S.real(), S.imag());
  }
  return sum;
}

std::vector<double> rope_offset_scores(int d, double base, double delta, bool coupled, int samples, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> phase(0.0, 2.0 * M_PI);
  Eigen::VectorXd q(d), k(d);
  for (int j = 0; j < d / 2; ++j) q(2 * j) = 1.0, q(2 * j + 1) = 0.0;
  std::vector<double> out(samples);
  for (int t = 0; t < samples; ++t) {
    double shared = phase(rng);
    for (int j = 0; j < d / 2; ++j) {
      const double ph = coupled ? shared : phase(rng);
      k(2 * j) = math::cos(ph), k(2 * j + 1) = math::sin(ph);
    }
    out[t] = q.dot(rope_rotate(k, delta, base));
  }
  return out;
}

double ks_distance(std::vector<double> a, std::vector<double> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0, j = 0;
  double best = 0.0;
  while (i < a.size() && j < b.size()) {
    const double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;
    while (j < b.size() && b[j] <= x) ++j;
    best = std::max(best, std::abs(double(i) / a.size() - double(j) / b.size()));
  }
  return best;
}

nlohmann::json rope_relative_report() {
  const double base = pe::kDefaultBase;
  nlohmann::json rows = nlohmann::json::array();
  for (int d : {16, 128}) {
    const int trials = 2000, max_pos = 65536;
    const RopeRelativeCheck c = rope_relative_check(d, base, trials, max_pos, 21 + d);
    rows.push_back({{"d", d},
                    {"base", base},
                    {"trials", trials},
                    {"position_range", max_pos},
                    {"max_relative_error", c.max_relative_error},
                    {"max_norm_error", c.max_norm_error}});
  }
  return {{"rows", rows}};
}

nlohmann::json rope_decay_report() {
  const int d = 128;
  const double base = pe::kDefaultBase;
  nlohmann::json rows = nlohmann::json::array();
  for (int k = 0; k < 12; ++k) {
    const int lo = 1 << k, hi = 2 << k;  // [lo, hi)
    double sum = 0.0;
    for (int delta = lo; delta < hi; ++delta) sum += rope_decay_envelope(delta, d, base);
    const double mean = sum / (hi - lo);
    rows.push_back({{"octave", {lo, hi - 1}}, {"mean_envelope", mean}, {"mean_relative", mean / (d / 2)}});
  }
  return {{"d", d},
          {"base", base},
          {"envelope_at_0", rope_decay_envelope(0.0, d, base)},
          {"quantity", "sum_{j=1}^{d/2} |S_j|, S_j = sum_{l<j} e^{i Delta theta_l}; relative = / (d/2)"},
          {"rows", rows}};
}

nlohmann::json rope_offset_distribution_report() {
  const double base = pe::kDefaultBase;
  const int samples = 40000;
  nlohmann::json cases = nlohmann::json::array();
  struct Case {
    int d;
    bool coupled;
  };
  for (const Case cs : {Case{16, false}, Case{4, false}, Case{4, true}}) {
    const double th0 = pe::plane_frequency(0, cs.d, base), th1 = pe::plane_frequency(1, cs.d, base);
    std::vector<double> ref;
    nlohmann::json rows = nlohmann::json::array();
    double max_ks = 0.0;
    for (int delta : {0, 1, 3, 10, 100, 1000}) {
      auto s = rope_offset_scores(cs.d, base, delta, cs.coupled, samples, 1000 + delta + 7 * cs.d + cs.coupled);
      double m1 = 0.0, m2 = 0.0;
      for (double x : s) m1 += x, m2 += x * x;
      m1 /= samples;
      const double var = m2 / samples - m1 * m1;
      const double ks = ref.empty() ? 0.0 : ks_distance(ref, s);
      max_ks = std::max(max_ks, ks);
      auto sorted = s;
      std::sort(sorted.begin(), sorted.end());
      auto quant = [&](double p) { return sorted[size_t(p * (samples - 1))]; };
      // exact variance: independent planes d/4; coupled two planes 1 + cos(Delta (theta_0 - theta_1))
      const double exact_var = cs.coupled ? 1.0 + math::cos(delta * (th0 - th1)) : cs.d / 4.0;
      rows.push_back({{"delta", delta},
                      {"mean", m1},
                      {"variance", var},
                      {"exact_variance", exact_var},
                      {"q05", quant(0.05)},
                      {"q50", quant(0.5)},
                      {"q95", quant(0.95)},
                      {"ks_vs_delta0", ks}});
      if (ref.empty()) ref = std::move(s);
    }
    cases.push_back({{"d", cs.d},
                     {"key_planes", cs.coupled ? "coupled (one shared phase)" : "independent uniform phases"},
                     {"max_ks_vs_delta0", max_ks},
                     {"rows", rows}});
  }
  return {{"base", base},
          {"samples", samples},
          {"query", "every plane (1, 0)"},
          {"ks_critical_0.1pct", 1.95 * std::sqrt(2.0 / samples)},
          {"cases", cases}};
}

}  // namespace pe::theory
