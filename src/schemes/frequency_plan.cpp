#include "schemes/frequency_plan.h"

#include <cmath>

#include "core/errors.h"

namespace pe {

namespace {
// The arguments of a map for a head of width d, checked (the entry's own checks).
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

std::vector<double> MapSpec::factors(int d, double base, int train_len, double kappa) const {
  if (d < 4 || d % 2 != 0) throw UsageError("map factors: head width must be even and >= 4");
  if (!(base > 1.0) || train_len < 1 || !(kappa > 0.0))
    throw UsageError("map factors: need base > 1, train_len >= 1, kappa > 0");
  return factors_of(*map, map_args(*this, d, base, train_len, kappa, pass_length(train_len, kappa)));
}

double MapSpec::attention_factor(int d, double base, int train_len, double kappa) const {
  const FrequencyMapArgs a = map_args(*this, d, base, train_len, kappa, pass_length(train_len, kappa));
  if (unchanged(*map, a) || !map->attention_factor) return 1.0;
  return map->attention_factor(a);
}

FrequencyPlan identity_plan(int d_head, double base, int rotating_planes) {
  FrequencyPlan p;
  p.theta.assign(d_head / 2, 0.0);
  for (int j = 0; j < rotating_planes && j < d_head / 2; ++j) p.theta[j] = plane_frequency(j, d_head, base);
  return p;
}

FrequencyPlan MapSpec::plan(int d_head, double base, int rotating_planes, int train_len, int read_len,
                            int pass_len) const {
  const FrequencyMap& m = *map;
  const double kappa = double(read_len) / double(train_len);
  const FrequencyMapArgs args = map_args(*this, d_head, base, train_len, kappa, pass_len > 0 ? pass_len : read_len);
  if (m.rebase) {
    FrequencyPlan p = identity_plan(d_head, m.rebase(args), rotating_planes);
    p.name = written;
    return p;
  }
  FrequencyPlan p = identity_plan(d_head, base, rotating_planes);
  p.name = written;
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
