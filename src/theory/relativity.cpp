#include "theory/relativity.h"

#include <cmath>
#include <random>

#include "core/errors.h"
#include "core/frequencies.h"
#include "core/math.h"
#include "core/rng.h"
#include "theory/sinusoidal_geometry.h"

namespace pe::theory {

Eigen::MatrixXd relative_projection(const Eigen::MatrixXd& M) {
  if (M.rows() != M.cols() || M.rows() % 2 != 0)
    throw pe::UsageError("relative_projection: need a square matrix of even size");
  const Eigen::Index d = M.rows();
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(d, d);
  for (Eigen::Index i = 0; i < d; i += 2) {
    const double a = 0.5 * (M(i, i) + M(i + 1, i + 1));  // tr B / 2
    const double c = 0.5 * (M(i + 1, i) - M(i, i + 1));  // (B21 - B12) / 2
    P(i, i) = a, P(i + 1, i + 1) = a;
    P(i, i + 1) = -c, P(i + 1, i) = c;
  }
  return P;
}

double relativity_defect(const Eigen::MatrixXd& M) {
  const double n = M.norm();
  if (n == 0.0) return 0.0;
  return (M - relative_projection(M)).norm() / n;
}

double offset_score_spread(const Eigen::MatrixXd& M, double base, int offsets, int per_offset, int max_pos,
                           unsigned seed) {
  const int d = int(M.rows());
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pos(0, max_pos - 1);
  double spread = 0.0;
  for (int o = 0; o < offsets; ++o) {
    const int delta = pos(rng) - max_pos / 2;
    double lo = INFINITY, hi = -INFINITY;
    for (int t = 0; t < per_offset; ++t) {
      const int m = pos(rng);
      const double s = sinusoidal_position(m, d, base).dot(M * sinusoidal_position(m + delta, d, base));
      lo = std::min(lo, s), hi = std::max(hi, s);
    }
    spread = std::max(spread, hi - lo);
  }
  return spread;
}

DefectMoments gaussian_defect_moments(int d, int samples, unsigned seed) {
  std::mt19937_64 rng(seed);
  pe::Rng g(pe::stream_key({uint64_t(seed)}));  // normals by pe's own Box-Muller (no libm)
  Eigen::MatrixXd M(d, d);
  double s1 = 0.0, s2 = 0.0;
  for (int t = 0; t < samples; ++t) {
    for (Eigen::Index i = 0; i < M.size(); ++i) M.data()[i] = g.normal();
    const double x = math::pow(relativity_defect(M), 2);
    s1 += x, s2 += x * x;
  }
  const double mean = s1 / samples;
  const double var = std::max(0.0, s2 / samples - mean * mean);
  return {mean, std::sqrt(var / (samples - 1))};
}

nlohmann::json relativity_report() {
  const double base = pe::kDefaultBase;
  const int d = 16;
  std::mt19937_64 rng(11);
  pe::Rng g(pe::stream_key({uint64_t(11)}));  // normals by pe's own Box-Muller (no libm)
  Eigen::MatrixXd random(d, d);
  for (Eigen::Index i = 0; i < random.size(); ++i) random.data()[i] = g.normal();
  const Eigen::MatrixXd commuting = relative_projection(random);  // defect 0 by construction
  const int offsets = 50, per_offset = 20, max_pos = 20000;
  nlohmann::json check = {
      {"d", d},
      {"base", base},
      {"offsets", offsets},
      {"positions_per_offset", per_offset},
      {"position_range", max_pos},
      {"defect_zero_matrix",
       {{"defect", relativity_defect(commuting)},
        {"max_score_spread_at_fixed_offset", offset_score_spread(commuting, base, offsets, per_offset, max_pos, 3)}}},
      {"random_matrix",
       {{"defect", relativity_defect(random)},
        {"max_score_spread_at_fixed_offset", offset_score_spread(random, base, offsets, per_offset, max_pos, 3)}}}};
  nlohmann::json gauss = nlohmann::json::array();
  for (int dd : {4, 16, 64}) {
    const int samples = 4000;
    const DefectMoments mo = gaussian_defect_moments(dd, samples, 100 + dd);
    gauss.push_back({{"d", dd},
                     {"samples", samples},
                     {"mean_defect_sq", mo.mean_sq},
                     {"stderr", mo.stderr_mean},
                     {"expected", 1.0 - 1.0 / dd}});
  }
  return {{"commutant_check", check}, {"gaussian_mean_defect_sq", gauss}};
}

}  // namespace pe::theory
