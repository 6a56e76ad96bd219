#include "theory/census.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/frequencies.h"
#include "schemes/frequency_plan.h"

namespace pe::theory {

nlohmann::json wavelength_census_report(int d, int train_len, double base, const std::vector<double>& kappas,
                                        const std::vector<MapSpec>& maps) {
  // factors[m][k][j]: map m at kappa k, plane j
  std::vector<std::vector<std::vector<double>>> factors_of;
  for (const MapSpec& map : maps) {
    factors_of.emplace_back();
    for (double k : kappas) factors_of.back().push_back(map.factors(d, base, train_len, k));
  }
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
    for (size_t m = 0; m < maps.size(); ++m) {
      nlohmann::json per_kappa = nlohmann::json::object();
      for (size_t k = 0; k < kappas.size(); ++k)
        per_kappa[fmt::format("{:g}", kappas[k])] = factors_of[m][k][size_t(j)];
      factors[maps[m].written] = per_kappa;
    }
    row["factors"] = factors;
    planes.push_back(row);
  }
  nlohmann::json census = {
      {"d", d},
      {"base", base},
      {"train_len", train_len},
      {"completes_turn_rule", "(L-1) theta_j >= 2 pi: the largest training offset L-1 turns the plane fully"},
      {"kappas", kappas},
      {"maps", maps},
      {"planes", planes}};
  for (const FrequencyMap& m : frequency_maps())  // each map's own fields, once however often it is listed
    if (m.census_fields && std::any_of(maps.begin(), maps.end(), [&](const MapSpec& s) { return s.map == &m; }))
      m.census_fields(census, kappas);
  return census;
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
    for (const auto& k : j["kappas"]) out += fmt::format(" {:>9}", column_label(map.get<std::string>(), num(k)));
  out += "\n";
  for (const auto& p : j["planes"]) {
    out += fmt::format("{:>5} {:>10.2f} {:>7.3f} {:>6}", p["plane"].get<int>(), num(p["wavelength"]),
                       num(p["turns_over_training_offsets"]), p["completes_turn"].get<bool>() ? "yes" : "no");
    for (const auto& map : j["maps"])
      for (const auto& k : j["kappas"])
        out += fmt::format(" {:>9.4f}", num(p["factors"][map.get<std::string>()][fmt::format("{:g}", num(k))]));
    out += "\n";
  }
  for (const FrequencyMap& m : frequency_maps())
    if (m.census_line) out += m.census_line(j);
  return out;
}

nlohmann::json rope_scaling_census(const MapSpec& map, const std::string& rope_type, int head_dim, double partial,
                                   double base, int original, int length) {
  const int dim = int(head_dim * partial);
  if (dim < 4 || dim % 2)
    throw UsageError(
        fmt::format("the rotary width int({} x {}) = {} must be even and at least 4", head_dim, partial, dim));
  const double kappa = double(length) / original;
  const auto factors = map.factors(dim, base, original, kappa);
  const double a = map.attention_factor(dim, base, original, kappa);
  nlohmann::json planes = nlohmann::json::array(), inv = nlohmann::json::array();
  for (int j = 0; j < dim / 2; ++j) {
    const double theta = pe::plane_frequency(j, dim, base);
    planes.push_back({{"plane", j},
                      {"default_inv_freq", theta},
                      {"inv_freq", theta * factors[j]},
                      {"factor", factors[j]},
                      {"wavelength", 2.0 * M_PI / (theta * factors[j])}});
    inv.push_back(theta * factors[j]);
  }
  nlohmann::json out = {{"rope_type", rope_type},
                        {"map", map},
                        {"head_dim", head_dim},
                        {"partial_rotary_factor", partial},
                        {"rotary_dim", dim},
                        {"base", base},
                        {"original_max_position_embeddings", original},
                        {"length", length},
                        {"inv_freq", inv},
                        {"attention_factor", a},
                        {"logit_scale", a * a},
                        {"planes", planes}};
  if (!map.map->paper_form.empty()) {  // the code YaRN beside the paper's (truncate on and off)
    const double factor = map.params.value("factor", std::max(1.0, kappa));
    const MapSpec paper = parse_map(map.map->paper_form);
    nlohmann::json forms = nlohmann::json::object();
    forms["paper"] = {{"map", paper},
                      {"factors", paper.factors(dim, base, original, factor)},
                      {"attention_factor", paper.attention_factor(dim, base, original, factor)}};
    for (bool truncate : {true, false}) {
      MapSpec code = map;
      code.params["truncate"] = truncate;
      code.written = write_map(map.map->name, code.params);
      forms[truncate ? "code_truncate" : "code_no_truncate"] = {
          {"map", code},
          {"factors", code.factors(dim, base, original, kappa)},
          {"attention_factor", code.attention_factor(dim, base, original, kappa)}};
    }
    out["yarn_forms"] = forms;
  }
  return out;
}

std::string format_rope_scaling_census(const nlohmann::json& c) {
  std::string out = fmt::format(
      "rope_type {} read as {}\nhead_dim {}, rotary width {}, base {}, original length {}, read at length {}\n"
      "attention factor {:.6f} (cos and sin times it; scores times {:.6f})\n",
      c["rope_type"].get<std::string>(), c["map"].get<std::string>(), c["head_dim"].get<int>(),
      c["rotary_dim"].get<int>(), c["base"].get<double>(), c["original_max_position_embeddings"].get<int>(),
      c["length"].get<int>(), c["attention_factor"].get<double>(), c["logit_scale"].get<double>());
  const bool yarn = c.contains("yarn_forms");
  out += fmt::format("{:>5} {:>12} {:>12} {:>9} {:>10}", "plane", "theta_j", "theta'_j", "factor", "wavelength");
  if (yarn) out += fmt::format(" {:>9} {:>9} {:>9}", "paper", "code", "code,notr");
  out += "\n";
  for (size_t j = 0; j < c["planes"].size(); ++j) {
    const auto& p = c["planes"][j];
    out += fmt::format("{:>5} {:>12.6g} {:>12.6g} {:>9.5f} {:>10.2f}", p["plane"].get<int>(),
                       p["default_inv_freq"].get<double>(), p["inv_freq"].get<double>(), p["factor"].get<double>(),
                       p["wavelength"].get<double>());
    if (yarn) {
      const auto& f = c["yarn_forms"];
      out += fmt::format(" {:>9.5f} {:>9.5f} {:>9.5f}", f["paper"]["factors"][j].get<double>(),
                         f["code_truncate"]["factors"][j].get<double>(),
                         f["code_no_truncate"]["factors"][j].get<double>());
    }
    out += "\n";
  }
  if (yarn) {
    const auto& f = c["yarn_forms"];
    out += fmt::format(
        "attention factor: paper {:.6f} (0.1 ln kappa + 1 at kappa = factor), code {:.6f}, code without truncation "
        "{:.6f}\n",
        f["paper"]["attention_factor"].get<double>(), f["code_truncate"]["attention_factor"].get<double>(),
        f["code_no_truncate"]["attention_factor"].get<double>());
    out +=
        "paper: a ramp on the turns L/lambda_j between 1 and 32; code: a ramp on the plane index j between the "
        "correction dimensions of beta_fast and beta_slow turns\n";
  }
  return out;
}

}  // namespace pe::theory
