// Context-extension maps for RoPE (schemes.md "Context-extension maps") and the wavelength census
// (analysis.md "RoPE"). The RoPE scheme may reuse plane_factors for its frequency plan.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pe::theory {

// YaRN ramp bounds (schemes.md): g_j = clamp((L/lambda_j - alpha) / (beta - alpha), 0, 1).
inline constexpr double kYarnAlpha = 1.0;
inline constexpr double kYarnBeta = 32.0;

// theta'_j / theta_j for j = 0..d/2-1 under `map` in {"none", "pi", "ntk", "yarn", "selective"} for a
// head trained at train_len read at kappa * train_len. kappa <= 1: every factor is 1.
// Throws pe::UsageError for an unknown map or bad arguments.
//   pi: 1/kappa.  ntk: kappa^(-2j/(d-2)) (base -> base kappa^(d/(d-2))).
//   yarn: (1 - g_j)/kappa + g_j.  selective: 1/kappa where lambda_j > train_len, else 1.
std::vector<double> plane_factors(const std::string& map, int d, double base, int train_len, double kappa);

// YaRN's multiplier on every RoPE content score: (0.1 ln kappa + 1)^2 (1 when kappa <= 1).
double yarn_logit_scale(double kappa);

// d = 16, L = 32: each plane's wavelength, turns over the training offsets, whether it completes a
// turn, and the factors of pi, ntk, yarn, selective at kappa = 2, 4, 8; YaRN's logit scale.
nlohmann::json wavelength_census_report(int d = 16, int train_len = 32);

}  // namespace pe::theory
