#include "cli/common.h"

#include <fmt/format.h>

#include "experiments/config.h"

namespace pe::cli {

nlohmann::json resolve_config(const std::string& experiment, const std::vector<std::string>& sets) {
  nlohmann::json cfg = experiment.empty() ? default_config(task_of({}, sets)) : load_experiment(experiment, sets);
  for (auto& s : sets) apply_override(cfg, s);
  complete_config(cfg);
  validate_config(cfg);
  return cfg;
}

nlohmann::json Overrides::resolve(const std::string& experiment, const std::vector<std::string>& user_sets) const {
  std::vector<std::string> all = sets;
  all.insert(all.end(), user_sets.begin(), user_sets.end());
  return resolve_config(experiment, all);
}

std::string Overrides::format_number(double v) { return fmt::format("{}", v); }

}  // namespace pe::cli
