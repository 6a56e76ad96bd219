#include "theory/alibi_bound.h"

#include <algorithm>
#include <cmath>
#include <random>
#include "core/math.h"

namespace pe::theory {

double alibi_tail_bound(double width, double slope, int D) {
  return math::exp(width - slope * D) / (1.0 - math::exp(-slope));
}

double alibi_tail_mass(const std::vector<double>& content, double slope, int D) {
  const int len = int(content.size());
  double mx = -INFINITY;
  for (int r = 0; r < len; ++r) mx = std::max(mx, content[r] - slope * r);
  double total = 0.0, tail = 0.0;
  for (int r = 0; r < len; ++r) {
    const double w = math::exp(content[r] - slope * r - mx);
    total += w;
    if (r >= D) tail += w;
  }
  return tail / total;
}

double alibi_mean_tail_mass(double slope, int n, int D) {
  double sum = 0.0;
  for (int i = D; i < n; ++i) {
    const double last = math::exp(-slope * (i + 1));
    sum += (math::exp(-slope * D) - last) / (1.0 - last);
  }
  return n > 0 ? sum / n : 0.0;
}

nlohmann::json alibi_bound_report() {
  const double W = 20.0, s = 0.5;
  const int len = 4096, heads = 300;
  nlohmann::json rows = nlohmann::json::array();
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unif(0.0, W);
  std::bernoulli_distribution coin(0.5);
  for (int D : {40, 60, 80}) {
    const double bound = alibi_tail_bound(W, s, D);
    // random heads: iid uniform content in [0, W]; two-level content {0, W} at random
    double max_uniform = 0.0, max_two_level = 0.0;
    std::vector<double> c(len);
    for (int h = 0; h < heads; ++h) {
      for (double& x : c) x = unif(rng);
      max_uniform = std::max(max_uniform, alibi_tail_mass(c, s, D));
      for (double& x : c) x = coin(rng) ? W : 0.0;
      max_two_level = std::max(max_two_level, alibi_tail_mass(c, s, D));
    }
    // the worst case: content 0 before D, W from D on
    for (int r = 0; r < len; ++r) c[r] = r < D ? 0.0 : W;
    const double worst = alibi_tail_mass(c, s, D);
    rows.push_back({{"D", D},
                    {"bound", bound},
                    {"vacuous", bound >= 1.0},
                    {"max_mass_uniform_heads", max_uniform},
                    {"max_mass_two_level_heads", max_two_level},
                    {"worst_case_mass", worst},
                    {"holds", std::max({max_uniform, max_two_level, worst}) <= bound}});
  }
  return {{"width", W}, {"slope", s}, {"horizon", W / s}, {"len", len}, {"heads_per_family", heads}, {"rows", rows}};
}

}  // namespace pe::theory
