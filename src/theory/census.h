// Context-extension maps for RoPE (schemes.md "Context-extension maps") and the wavelength census
// (analysis.md "RoPE"). The RoPE scheme may reuse plane_factors for its frequency plan.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schemes/frequency_plan.h"

namespace pe::theory {

// The maps themselves live with the RoPE scheme (schemes/frequency_plan.h): one definition for the
// census, the analyses and evaluation.
using pe::kYarnAlpha;
using pe::kYarnBeta;
using pe::plane_factors;
using pe::yarn_logit_scale;

// d = 16, L = 32: each plane's wavelength, turns over the training offsets, whether it completes a
// turn, and the factors of pi, ntk, yarn, selective at kappa = 2, 4, 8; YaRN's logit scale.
nlohmann::json wavelength_census_report(int d = 16, int train_len = 32);

}  // namespace pe::theory
