// A frequency plan: the per-plane angular frequencies RoPE reads its angles from, and a multiplier
// on the content score. Context-extension maps (docs/schemes.md; their table is frequency_maps.h) are
// plans applied at read time, with
// no retraining; the identity plan is plain RoPE, bit for bit.
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

// YaRN ramp bounds: g_j = clamp((L/lambda_j - alpha) / (beta - alpha), 0, 1).
inline constexpr double kYarnAlpha = 1.0;
inline constexpr double kYarnBeta = 32.0;

// Whether `map` names a map of the table (schemes/frequency_maps.h): none, pi, ntk, yarn, selective,
// base=B. known_maps() lists them for messages.
bool is_known_map(const std::string& map);
std::string known_maps();
// The one check of a list of map names (an option, a key): a comma-separated list, each a known
// map; throws UsageError naming `what` and listing the known maps.
std::vector<std::string> parse_map_list(const std::string& text, const std::string& what);
void check_maps(const std::vector<std::string>& maps, const std::string& what);

// theta'_j / theta_j for j = 0..d/2-1 under `map` for a head of width d trained at train_len and read
// at kappa * train_len (a length-dependent map: a pass of that length). The paper maps give 1 at
// kappa <= 1. A distance warp (compress) keeps the frequencies: 1.
//   pi: 1/kappa.   ntk: kappa^(-2j/(d-2)) (base -> base kappa^(d/(d-2))).
//   yarn: (1 - g_j)/kappa + g_j.   selective: 1/kappa where lambda_j > train_len, else 1.
//   none: 1.   base=B: B^(-2j/d) / base^(-2j/d) at every kappa.
// Throws UsageError for an unknown map or bad arguments.
std::vector<double> plane_factors(const std::string& map, int d, double base, int train_len, double kappa);

// YaRN's multiplier on every RoPE content score: (0.1 ln kappa + 1)^2 (1 when kappa <= 1).
double yarn_logit_scale(double kappa);
// The attention factor of `map` at kappa (its square multiplies the content score).
double map_attention_factor(const std::string& map, int d, double base, int train_len, double kappa);

// theta_j = base^(-2j/d) for the first `rotating_planes` planes, 0 for the rest.
FrequencyPlan identity_plan(int d_head, double base, int rotating_planes);

// The plan of `map` for a head trained at train_len read at read_len (kappa = read_len/train_len), for
// a pass of pass_len tokens (0: read_len; only length-dependent maps look at it).
FrequencyPlan make_plan(const std::string& map, int d_head, double base, int rotating_planes, int train_len,
                        int read_len, int pass_len = 0);

}  // namespace pe
