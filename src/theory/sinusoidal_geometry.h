// The sinusoidal code as a kernel (docs/analyses.md "The sinusoidal code as a kernel"): shift is a rotation,
// the stationary kernel, the logarithmic ruler, column cosines of the position matrix.
// Layout as schemes.md: p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j).
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

namespace pe::theory {

// p(m), length d.
Eigen::VectorXd sinusoidal_position(double m, int d, double base);

// [positions x d] matrix whose row m is p(m), m = 0..positions-1.
Eigen::MatrixXd sinusoidal_matrix(int positions, int d, double base);

// R(k): block-diagonal d x d with block j = [[cos k theta_j, sin k theta_j], [-sin k theta_j, cos k theta_j]],
// the shift operator of the sine-first code, p(m+k) = R(k) p(m). (In the plane's (x, y) = (sin, cos)
// coordinates this turns by -k theta_j in RoPE's sign convention; it is a rotation either way.)
Eigen::MatrixXd shift_rotation(double k, int d, double base);

// kappa_d(Delta) = sum_j cos(Delta theta_j) = <p(m), p(m + Delta)>.
double stationary_kernel(double delta, int d, double base);

// I_b(Delta) = (Ci(|Delta|) - Ci(|Delta|/b)) / ln b, the d -> infinity limit of (2/d) kappa_d (1 at 0).
double log_ruler_limit(double delta, double base);

// 1 - (gamma + ln Delta) / ln b, the straight line I_b follows for 1 << Delta << b.
double log_ruler_line(double delta, double base);

struct ColumnCosine {
  double value = 0.0;  // the largest |cosine| between two distinct columns
  double signed_value = 0.0;
  int col_a = -1, col_b = -1;
};
// Over the [positions x d] matrix (positions 0..positions-1).
ColumnCosine largest_column_cosine(int positions, int d, double base);

// Smallest ||p(m) - p(n)|| over 0 <= m < n < positions, pairwise from the codes (the earliest pair
// among values within 1e-9 of the minimum: the distance depends only on n - m).
struct MinDistance {
  double value = 0.0;
  int m = -1, n = -1;
};
MinDistance min_code_distance(int positions, int d, double base);

nlohmann::json rotation_report();   // shift = rotation, group law, norm, injectivity
nlohmann::json log_ruler_report();  // the (2/d) kappa_d table beside I_b and the line
nlohmann::json column_cosine_report();

}  // namespace pe::theory
