#include "cli/common.h"

#include <fmt/format.h>


#include "experiments/config.h"

namespace pe::cli {

nlohmann::json resolve_config(const std::string& experiment, const std::vector<std::string>& sets) {
  nlohmann::json cfg = experiment.empty() ? default_config(task_of({}, sets)) : load_experiment(experiment, sets);
  for (auto& s : sets) apply_override(cfg, s);
  validate_config(cfg);
  return cfg;
}

}  // namespace pe::cli
