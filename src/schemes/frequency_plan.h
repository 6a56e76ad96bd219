// A frequency plan: the per-plane angular frequencies RoPE reads its angles from, and a multiplier
// on the content score. Context-extension maps (pi, ntk, yarn, ...) are plans applied at read time;
// the identity plan is plain RoPE.
#pragma once
#include <string>
#include <vector>

#include "core/frequencies.h"

namespace pe {

struct FrequencyPlan {
  std::string name = "identity";
  std::vector<double> theta;  // theta'_j for every plane j = 0 .. d/2-1
  double logit_scale = 1.0;   // multiplies q.k/sqrt(d)
};

// theta_j = base^(-2j/d); planes j >= rotating_planes get theta 0 (they pass through unrotated).
inline FrequencyPlan identity_plan(int d_head, double base, int rotating_planes) {
  FrequencyPlan p;
  p.theta.assign(d_head / 2, 0.0);
  for (int j = 0; j < rotating_planes && j < d_head / 2; ++j) p.theta[j] = plane_frequency(j, d_head, base);
  return p;
}

}  // namespace pe
