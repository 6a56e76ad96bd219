#include "schemes/frequency_plan.h"

#include <fmt/format.h>

#include <cmath>

#include "core/errors.h"
#include "core/math.h"
#include "schemes/frequency_maps.h"

namespace pe {

namespace {
// The arguments of a written map for a head of width d, checked (MapSpec's own checks).
FrequencyMapArgs map_args(const MapSpec& spec, int d, double base, int train_len, double kappa, int pass_len) {
  FrequencyMapArgs a{d, base, train_len, kappa, spec.value, pass_len, spec.params};
  if (spec.map->check) spec.map->check(a);
  return a;
}

// Whether the map changes nothing at this kappa (the paper maps within the training length).
bool unchanged(const FrequencyMap& m, const FrequencyMapArgs& a) {
  return !m.rebase && m.identity_within_training && a.kappa <= 1.0 && !a.has("factor");
}

// The factors of entry m: 1 where unchanged, and for a distance warp.
std::vector<double> factors_of(const FrequencyMap& m, const FrequencyMapArgs& a) {
  std::vector<double> f(a.d / 2, 1.0);
  if (unchanged(m, a) || !m.factor) return f;
  for (int j = 0; j < a.d / 2; ++j) f[j] = m.factor(a, j);
  return f;
}

int pass_length(int train_len, double kappa) { return int(std::lround(kappa * train_len)); }

}  // namespace

bool is_known_map(const std::string& map) { return find_frequency_map(map) != nullptr; }

void check_maps(const std::vector<std::string>& maps, const std::string& what) {
  for (auto& m : maps) try {
      parse_map(m);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", what, e.what()));
    }
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
  const MapSpec spec = parse_map(map);
  return factors_of(*spec.map, map_args(spec, d, base, train_len, kappa, pass_length(train_len, kappa)));
}

double map_attention_factor(const std::string& map, int d, double base, int train_len, double kappa) {
  const MapSpec spec = parse_map(map);
  const FrequencyMapArgs a = map_args(spec, d, base, train_len, kappa, pass_length(train_len, kappa));
  if (unchanged(*spec.map, a) || !spec.map->attention_factor) return 1.0;
  return spec.map->attention_factor(a);
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
                        int read_len, int pass_len) {
  const MapSpec spec = parse_map(map);
  const FrequencyMap& m = *spec.map;
  const double kappa = double(read_len) / double(train_len);
  const FrequencyMapArgs args = map_args(spec, d_head, base, train_len, kappa, pass_len > 0 ? pass_len : read_len);
  if (m.rebase) {
    FrequencyPlan p = identity_plan(d_head, m.rebase(args), rotating_planes);
    p.name = map;
    return p;
  }
  FrequencyPlan p = identity_plan(d_head, base, rotating_planes);
  p.name = map;
  p.kappa = kappa;
  p.length_dependent = m.length_dependent;
  p.recompute_cached_keys = m.recompute_cached_keys;
  if (m.length_dependent) p.pass_len = args.pass_len;
  if (unchanged(m, args)) return p;
  if (m.warp) {
    const auto [w, s] = m.warp(args);
    p.warp_window = w, p.warp_factor = s;
    return p;
  }
  const auto f = factors_of(m, args);
  for (size_t j = 0; j < p.theta.size(); ++j) p.theta[j] *= f[j];
  if (m.attention_factor) {
    const double a = m.attention_factor(args);
    p.logit_scale = a * a;
  }
  return p;
}

}  // namespace pe
