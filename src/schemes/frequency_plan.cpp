#include "schemes/frequency_plan.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/math.h"
#include "schemes/frequency_maps.h"

namespace pe {

namespace {
const FrequencyMap& map_or_throw(const std::string& map, double* value) {
  const FrequencyMap* m = find_frequency_map(map, value);
  if (!m) throw UsageError(fmt::format("unknown context-extension map '{}' (known: {})", map, known_maps()));
  return *m;
}

// The factors of entry m: 1 at kappa <= 1 unless m rebases (a rebase ignores kappa).
std::vector<double> factors_of(const FrequencyMap& m, const FrequencyMapArgs& a) {
  std::vector<double> f(a.d / 2, 1.0);
  if (!m.rebase && a.kappa <= 1.0) return f;
  for (int j = 0; j < a.d / 2; ++j) f[j] = m.factor(a, j);
  return f;
}

}  // namespace

bool is_known_map(const std::string& map) { return find_frequency_map(map) != nullptr; }

void check_maps(const std::vector<std::string>& maps, const std::string& what) {
  for (auto& m : maps)
    if (!is_known_map(m))
      throw UsageError(fmt::format("{}: unknown context-extension map '{}' (known: {})", what, m, known_maps()));
}

std::vector<std::string> parse_map_list(const std::string& text, const std::string& what) {
  std::vector<std::string> maps;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty()) throw UsageError(fmt::format("{}: empty map name in '{}' (write e.g. pi,ntk)", what, text));
    maps.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  check_maps(maps, what);
  return maps;
}

std::vector<double> plane_factors(const std::string& map, int d, double base, int train_len, double kappa) {
  if (d < 4 || d % 2 != 0) throw UsageError("plane_factors: head width must be even and >= 4");
  if (!(base > 1.0) || train_len < 1 || !(kappa > 0.0))
    throw UsageError("plane_factors: need base > 1, train_len >= 1, kappa > 0");
  double value = 0;
  const FrequencyMap& m = map_or_throw(map, &value);
  return factors_of(m, {d, base, train_len, kappa, value});
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
  double value = 0;
  const FrequencyMap& m = map_or_throw(map, &value);
  const double kappa = double(read_len) / double(train_len);
  const FrequencyMapArgs args{d_head, base, train_len, kappa, value};
  if (m.rebase) {
    FrequencyPlan p = identity_plan(d_head, m.rebase(args), rotating_planes);
    p.name = map;
    return p;
  }
  FrequencyPlan p = identity_plan(d_head, base, rotating_planes);
  p.name = map;
  p.kappa = kappa;
  if (kappa <= 1.0) return p;
  const auto f = factors_of(m, args);
  for (size_t j = 0; j < p.theta.size(); ++j) p.theta[j] *= f[j];
  if (m.logit_scale) p.logit_scale = m.logit_scale(args);
  return p;
}

}  // namespace pe
