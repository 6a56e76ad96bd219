#include "theory/sinusoidal_geometry.h"

#include <cmath>
#include <random>
#include <string>

#include "core/frequencies.h"
#include "core/math.h"
#include "theory/cosine_integral.h"

namespace pe::theory {

Eigen::VectorXd sinusoidal_position(double m, int d, double base) {
  Eigen::VectorXd p(d);
  pe::sinusoidal_code(m, d, base, p.data());
  return p;
}

Eigen::MatrixXd sinusoidal_matrix(int positions, int d, double base) {
  Eigen::MatrixXd P(positions, d);
  for (int m = 0; m < positions; ++m) P.row(m) = sinusoidal_position(m, d, base).transpose();
  return P;
}

Eigen::MatrixXd shift_rotation(double k, int d, double base) {
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(d, d);
  for (int j = 0; j < d / 2; ++j) {
    const double a = k * pe::plane_frequency(j, d, base);
    R(2 * j, 2 * j) = math::cos(a);
    R(2 * j, 2 * j + 1) = math::sin(a);
    R(2 * j + 1, 2 * j) = -math::sin(a);
    R(2 * j + 1, 2 * j + 1) = math::cos(a);
  }
  return R;
}

double stationary_kernel(double delta, int d, double base) {
  double s = 0.0;
  for (int j = 0; j < d / 2; ++j) s += math::cos(delta * pe::plane_frequency(j, d, base));
  return s;
}

double log_ruler_limit(double delta, double base) {
  const double a = std::abs(delta);
  if (a == 0.0) return 1.0;
  return (cosine_integral(a) - cosine_integral(a / base)) / math::log(base);
}

double log_ruler_line(double delta, double base) {
  return 1.0 - (kEulerGamma + math::log(std::abs(delta))) / math::log(base);
}

ColumnCosine largest_column_cosine(int positions, int d, double base) {
  const Eigen::MatrixXd P = sinusoidal_matrix(positions, d, base);
  const Eigen::MatrixXd G = P.transpose() * P;  // d x d column Gram
  ColumnCosine best;
  for (int a = 0; a < d; ++a)
    for (int b = a + 1; b < d; ++b) {
      const double c = G(a, b) / std::sqrt(G(a, a) * G(b, b));
      if (std::abs(c) > best.value) best = {std::abs(c), c, a, b};
    }
  return best;
}

MinDistance min_code_distance(int positions, int d, double base) {
  const Eigen::MatrixXd Pt = sinusoidal_matrix(positions, d, base).transpose();  // d x positions
  MinDistance best{INFINITY, -1, -1};
  double best2 = INFINITY;
  for (int m = 0; m < positions; ++m)
    for (int n = m + 1; n < positions; ++n) {
      const double d2 = (Pt.col(m) - Pt.col(n)).squaredNorm();
      // the distance depends only on n - m; the tolerance keeps the earliest pair among rounding-level ties
      if (d2 < best2 - 1e-9) best2 = d2, best = {0.0, m, n};
    }
  best.value = std::sqrt(best2);
  return best;
}

nlohmann::json rotation_report() {
  const double base = pe::kDefaultBase;
  const int positions = 4096;
  nlohmann::json rows = nlohmann::json::array();
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int> pos(0, positions - 1);
  for (int d : {16, 64}) {
    // p(m+k) = R(k) p(m) for every m in range and a spread of shifts
    double shift_err = 0.0;
    for (int k : {1, 2, 3, 17, 100, 1000, 4095}) {
      const Eigen::MatrixXd R = shift_rotation(k, d, base);
      for (int m = 0; m < positions; ++m)
        shift_err =
            std::max(shift_err,
                     (sinusoidal_position(m + k, d, base) - R * sinusoidal_position(m, d, base)).cwiseAbs().maxCoeff());
    }
    // R(a) R(b) = R(a+b) and R orthogonal, on random shifts
    double group_err = 0.0, orth_err = 0.0;
    for (int t = 0; t < 200; ++t) {
      const int a = pos(rng), b = pos(rng);
      const Eigen::MatrixXd Ra = shift_rotation(a, d, base);
      group_err =
          std::max(group_err, (Ra * shift_rotation(b, d, base) - shift_rotation(a + b, d, base)).cwiseAbs().maxCoeff());
      orth_err = std::max(orth_err, (Ra.transpose() * Ra - Eigen::MatrixXd::Identity(d, d)).cwiseAbs().maxCoeff());
    }
    double norm_err = 0.0;
    for (int m = 0; m < positions; ++m)
      norm_err = std::max(norm_err, std::abs(sinusoidal_position(m, d, base).squaredNorm() - d / 2.0));
    const MinDistance md = min_code_distance(positions, d, base);
    rows.push_back({{"d", d},
                    {"base", base},
                    {"positions", positions},
                    {"max_shift_error", shift_err},
                    {"max_group_law_error", group_err},
                    {"max_orthogonality_error", orth_err},
                    {"max_norm_sq_error", norm_err},
                    {"norm_sq", d / 2.0},
                    {"min_distance", md.value},
                    {"min_distance_pair", {md.m, md.n}},
                    {"min_distance_offset", md.n - md.m},
                    {"injective", md.value > 0.0}});
  }
  return {{"rows", rows}};
}

nlohmann::json log_ruler_report() {
  const double base = pe::kDefaultBase;
  nlohmann::json rows = nlohmann::json::array();
  for (int delta : {1, 4, 16, 64, 256, 1024}) {
    nlohmann::json r = {
        {"delta", delta}, {"limit", log_ruler_limit(delta, base)}, {"line", log_ruler_line(delta, base)}};
    nlohmann::json by_d = nlohmann::json::array();
    for (int d : {64, 512, 8192}) by_d.push_back({{"d", d}, {"ratio", 2.0 / d * stationary_kernel(delta, d, base)}});
    r["by_d"] = by_d;
    rows.push_back(r);
  }
  return {{"base", base}, {"quantity", "(2/d) kappa_d(delta)"}, {"rows", rows}};
}

namespace {

// Column 2j is sin(m theta_j), column 2j+1 is cos(m theta_j).
std::string column_name(int col) { return std::string(col % 2 ? "cos" : "sin") + " plane " + std::to_string(col / 2); }

}  // namespace

nlohmann::json column_cosine_report() {
  const double base = pe::kDefaultBase;
  const int d = 16;
  nlohmann::json rows = nlohmann::json::array();
  for (int positions : {64, 4096}) {
    const ColumnCosine c = largest_column_cosine(positions, d, base);
    rows.push_back({{"d", d},
                    {"base", base},
                    {"positions", positions},
                    {"max_cosine", c.value},
                    {"signed_cosine", c.signed_value},
                    {"columns", {c.col_a, c.col_b}},
                    {"column_names", {column_name(c.col_a), column_name(c.col_b)}}});
  }
  return {{"rows", rows}};
}

}  // namespace pe::theory
