// RoPE geometry (docs/analyses.md "RoPE"): relative by construction, isometric, the long-term decay
// envelope, and whether the score's distribution depends on the offset.
// The identities are checked on the harness's own RoPE scheme (schemes/rope.h).
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <vector>

namespace pe::theory {

// R(pos) x by the formula, for real-valued pos (the scheme object, schemes/rope.h, turns integer
// positions from a cache; the relative check below runs on it).
Eigen::VectorXd rope_rotate(const Eigen::VectorXd& x, double pos, double base);

struct RopeRelativeCheck {
  double max_relative_error = 0.0;  // max |<R(m)q, R(n)k> - <q, R(n-m)k>|
  double max_norm_error = 0.0;      // max | ||R(m)q|| - ||q|| |
};
RopeRelativeCheck rope_relative_check(int d, double base, int trials, int max_pos, unsigned seed);

// sum_{j=1}^{d/2} |S_j|, S_j = sum_{l<j} e^{i Delta theta_l} (RoFormer's long-term decay envelope).
double rope_decay_envelope(double delta, int d, double base);

// Scores <q, R(Delta) k> for q with every plane (1, 0) and keys on the unit circle in each plane at a
// uniform phase: independent phases per plane (coupled = false) or one phase shared by all planes.
std::vector<double> rope_offset_scores(int d, double base, double delta, bool coupled, int samples, unsigned seed);

// Two-sample Kolmogorov-Smirnov distance between two samples.
double ks_distance(std::vector<double> a, std::vector<double> b);

nlohmann::json rope_relative_report();
nlohmann::json rope_decay_report();
nlohmann::json rope_offset_distribution_report();

}  // namespace pe::theory
