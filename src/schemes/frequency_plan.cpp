#include "schemes/frequency_plan.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/math.h"

namespace pe {

namespace {
bool parse_base_override(const std::string& map, double* base) {
  if (map.rfind("base=", 0) != 0) return false;
  try {
    size_t pos = 0;
    const double b = std::stod(map.substr(5), &pos);
    if (pos != map.size() - 5 || !(b > 1.0)) return false;
    if (base) *base = b;
    return true;
  } catch (...) {
    return false;
  }
}
}  // namespace

bool is_known_map(const std::string& map) {
  return map == "none" || map == "pi" || map == "ntk" || map == "yarn" || map == "selective" ||
         parse_base_override(map, nullptr);
}

std::string known_maps() { return "none, pi, ntk, yarn, selective, base=B (B > 1)"; }

std::vector<double> plane_factors(const std::string& map, int d, double base, int train_len, double kappa) {
  if (d < 4 || d % 2 != 0) throw UsageError("plane_factors: head width must be even and >= 4");
  if (!(base > 1.0) || train_len < 1 || !(kappa > 0.0))
    throw UsageError("plane_factors: need base > 1, train_len >= 1, kappa > 0");
  if (map != "none" && map != "pi" && map != "ntk" && map != "yarn" && map != "selective")
    throw UsageError("unknown context-extension map '" + map + "' (known: none, pi, ntk, yarn, selective)");
  const int h = d / 2;
  std::vector<double> f(h, 1.0);
  if (map == "none" || kappa <= 1.0) return f;
  for (int j = 0; j < h; ++j) {
    const double lambda = plane_wavelength(j, d, base);
    if (map == "pi") {
      f[j] = 1.0 / kappa;
    } else if (map == "ntk") {
      f[j] = math::pow(kappa, -2.0 * j / (d - 2));
    } else if (map == "yarn") {
      const double g = std::clamp((train_len / lambda - kYarnAlpha) / (kYarnBeta - kYarnAlpha), 0.0, 1.0);
      f[j] = (1.0 - g) / kappa + g;
    } else {  // selective
      f[j] = lambda > train_len ? 1.0 / kappa : 1.0;
    }
  }
  return f;
}

double yarn_logit_scale(double kappa) {
  if (kappa <= 1.0) return 1.0;
  const double t = 0.1 * math::log(kappa) + 1.0;
  return t * t;
}

FrequencyPlan identity_plan(int d_head, double base, int rotating_planes) {
  FrequencyPlan p;
  p.theta.assign(d_head / 2, 0.0);
  for (int j = 0; j < rotating_planes && j < d_head / 2; ++j) p.theta[j] = plane_frequency(j, d_head, base);
  return p;
}

FrequencyPlan make_plan(const std::string& map, int d_head, double base, int rotating_planes, int train_len,
                        int read_len) {
  if (!is_known_map(map))
    throw UsageError("unknown context-extension map '" + map + "' (known: " + known_maps() + ")");
  double other_base = base;
  if (parse_base_override(map, &other_base)) {
    FrequencyPlan p = identity_plan(d_head, other_base, rotating_planes);
    p.name = map;
    return p;
  }
  FrequencyPlan p = identity_plan(d_head, base, rotating_planes);
  p.name = map;
  p.kappa = double(read_len) / double(train_len);
  if (map == "none" || p.kappa <= 1.0) return p;
  const auto f = plane_factors(map, d_head, base, train_len, p.kappa);
  for (size_t j = 0; j < p.theta.size(); ++j) p.theta[j] *= f[j];
  if (map == "yarn") p.logit_scale = yarn_logit_scale(p.kappa);
  return p;
}

}  // namespace pe
