#include "theory/census.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/frequencies.h"

namespace pe::theory {

nlohmann::json wavelength_census_report(int d, int train_len, double base, const std::vector<double>& kappas,
                                        const std::vector<std::string>& maps) {
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
      for (double k : kappas) per_kappa[fmt::format("{:g}", k)] = plane_factors(map, d, base, train_len, k)[j];
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
          {"maps", maps},
          {"planes", planes},
          {"yarn_logit_scale", scale}};
}

namespace {
// "pi:2", "sele:4", "B20000:2": a map and kappa in at most 9 characters.
std::string column_label(const std::string& map, double kappa) {
  const size_t eq = map.find('=');
  const std::string abbr = eq == std::string::npos ? map.substr(0, 4) : fmt::format("B{}", map.substr(eq + 1, 6));
  return fmt::format("{}:{:g}", abbr, kappa);
}
}  // namespace

std::string format_census(const nlohmann::json& j) {
  auto num = [](const nlohmann::json& v) { return v.get<double>(); };
  std::string out = fmt::format("completes a turn: {}\n", j["completes_turn_rule"].get<std::string>());
  out += fmt::format("{:>5} {:>10} {:>7} {:>6}", "plane", "lambda", "turns", "full");
  for (const auto& map : j["maps"])
    for (const auto& k : j["kappas"])
      out += fmt::format(" {:>9}", column_label(map.get<std::string>(), num(k)));
  out += "\n";
  for (const auto& p : j["planes"]) {
    out += fmt::format("{:>5} {:>10.2f} {:>7.3f} {:>6}", p["plane"].get<int>(), num(p["wavelength"]),
                       num(p["turns_over_training_offsets"]), p["completes_turn"].get<bool>() ? "yes" : "no");
    for (const auto& map : j["maps"])
      for (const auto& k : j["kappas"]) out += fmt::format(" {:>9.4f}", num(p["factors"][map.get<std::string>()][fmt::format("{:g}", num(k))]));
    out += "\n";
  }
  out += "YaRN logit scale (0.1 ln kappa + 1)^2:";
  for (const auto& s : j["yarn_logit_scale"])
    out += fmt::format("  kappa {:g}: {:.6f}", num(s["kappa"]), num(s["yarn_logit_scale"]));
  return out + "\n";
}

}  // namespace pe::theory
