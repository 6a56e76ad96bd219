// The interpolation bound (docs/analyses.md "RoPE"): for a(Delta) = Re sum_j h_j e^{i Delta theta_j}, linear
// interpolation between integers D1 < D2 errs by at most 1/2 (Delta-D1)(D2-Delta) sum_j |h_j| theta_j^2.
// A published version uses d/(4 ln b) in place of sum_j theta_j^2; both are compared here.
#pragma once
#include <complex>
#include <nlohmann/json.hpp>
#include <vector>

namespace pe::theory {

double sum_theta_sq(int d, double base);                 // sum_j theta_j^2 (the correct constant)
double published_theta_sq_constant(int d, double base);  // d / (4 ln b)

// a(Delta) for complex weights h (size d/2).
double rope_score_curve(const std::vector<std::complex<double>>& h, double delta, double base);

// |a(Delta) - linear interpolation of a between D1 and D2 at Delta|.
double interpolation_error(const std::vector<std::complex<double>>& h, double D1, double D2, double delta, double base);

nlohmann::json interpolation_bound_report();

}  // namespace pe::theory
