#include "theory/census.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/frequencies.h"

namespace pe::theory {

nlohmann::json wavelength_census_report(int d, int train_len) {
  const double base = pe::kDefaultBase;
  const std::vector<double> kappas = {2.0, 4.0, 8.0};
  const std::vector<std::string> maps = {"pi", "ntk", "yarn", "selective"};
  nlohmann::json planes = nlohmann::json::array();
  for (int j = 0; j < d / 2; ++j) {
    const double theta = pe::plane_frequency(j, d, base), lambda = pe::plane_wavelength(j, d, base);
    const double turns = (train_len - 1) * theta / (2.0 * M_PI);  // over offsets 0..L-1
    nlohmann::json row = {{"plane", j},
                          {"theta", theta},
                          {"wavelength", lambda},
                          {"turns_over_training_offsets", turns},
                          {"completes_turn", turns >= 1.0},
                          {"L_over_lambda", train_len / lambda}};
    nlohmann::json factors = nlohmann::json::object();
    for (const auto& map : maps) {
      nlohmann::json per_kappa = nlohmann::json::object();
      for (double k : kappas) per_kappa[std::to_string(int(k))] = plane_factors(map, d, base, train_len, k)[j];
      factors[map] = per_kappa;
    }
    row["factors"] = factors;
    planes.push_back(row);
  }
  nlohmann::json scale = nlohmann::json::array();
  for (double k : kappas) scale.push_back({{"kappa", k}, {"yarn_logit_scale", yarn_logit_scale(k)}});
  return {{"d", d},
          {"base", base},
          {"train_len", train_len},
          {"completes_turn_rule", "(L-1) theta_j >= 2 pi: the largest training offset L-1 turns the plane fully"},
          {"yarn_alpha", kYarnAlpha},
          {"yarn_beta", kYarnBeta},
          {"kappas", kappas},
          {"planes", planes},
          {"yarn_logit_scale", scale}};
}

}  // namespace pe::theory
