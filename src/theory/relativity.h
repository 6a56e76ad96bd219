// Which score matrices see only offsets (docs/analyses.md): the commutant projection Pi and the relativity
// defect delta(M) = ||M - Pi M||_F / ||M||_F. Reused by the trained-head analysis.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

namespace pe::theory {

// Pi M (d x d, d even): in each diagonal 2x2 block B (planes (2j, 2j+1)) keep
// (tr B / 2) I + ((B21 - B12) / 2) J, J = [[0, -1], [1, 0]] the quarter turn; zero everything else.
// The orthogonal projection (Frobenius) onto the matrices commuting with every R(k).
Eigen::MatrixXd relative_projection(const Eigen::MatrixXd& M);

// ||M - Pi M||_F / ||M||_F; 0 for the zero matrix.
double relativity_defect(const Eigen::MatrixXd& M);

// Largest spread (max - min) of p(m)^T M p(n) over pairs (m, n) sharing the same offset n - m, over
// `offsets` random offsets with `per_offset` random m each (positions in [0, max_pos)).
double offset_score_spread(const Eigen::MatrixXd& M, double base, int offsets, int per_offset, int max_pos,
                           unsigned seed);

// Mean of delta^2 over `samples` d x d matrices with iid N(0,1) entries, and its standard error.
struct DefectMoments {
  double mean_sq = 0.0, stderr_mean = 0.0;
};
DefectMoments gaussian_defect_moments(int d, int samples, unsigned seed);

nlohmann::json relativity_report();

}  // namespace pe::theory
