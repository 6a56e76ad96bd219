// A frequency plan: the per-plane angular frequencies RoPE reads its angles from, and a multiplier
// on the content score. Context-extension maps (docs/schemes.md; their table is frequency_maps.h) are
// plans applied at read time, with no retraining; the identity plan is plain RoPE, bit for bit. A map
// is parsed once into a MapSpec (frequency_maps.h); MapSpec::plan, factors and attention_factor are
// defined here. This header includes frequency_maps.h, never the other way.
#pragma once
#include <string>
#include <vector>

#include "core/frequencies.h"
#include "schemes/frequency_maps.h"

namespace pe {

struct FrequencyPlan {
  std::string name = identity_map();
  double kappa = 1.0;         // read length / training length (1: no change)
  std::vector<double> theta;  // theta'_j for every plane j = 0 .. d/2-1 (0: the plane does not turn)
  double logit_scale = 1.0;   // multiplies q.k/sqrt(d): the square of the map's attention factor
  // compress: the relative distance d inside the score becomes compress_distance(d, w, s); s = 0: no warp
  double warp_window = 0, warp_factor = 0;
  bool length_dependent = false;       // made for one pass length (dynamic, longrope)
  bool recompute_cached_keys = false;  // cached keys turned again under each step's plan
  int pass_len = 0;                    // the pass length it was made for (length_dependent plans)
  // A stack whose layers turn differently (a hybrid's RoPE layers with their own base or rotary
  // fraction): layer l reads layers[l] (theta empty for a layer without frequencies), and the fields
  // above are the first RoPE layer's. Empty: every layer reads this plan.
  std::vector<FrequencyPlan> layers;
};

// Whether two plans turn every plane alike and scale the content score alike.
inline bool same_rotation(const FrequencyPlan& a, const FrequencyPlan& b) {
  return a.theta == b.theta && a.logit_scale == b.logit_scale && a.warp_window == b.warp_window &&
         a.warp_factor == b.warp_factor;
}

// theta_j = base^(-2j/d) for the first `rotating_planes` planes, 0 for the rest.
FrequencyPlan identity_plan(int d_head, double base, int rotating_planes);

}  // namespace pe
