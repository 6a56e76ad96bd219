#include "cli/common.h"

#include <fmt/format.h>

#include "core/errors.h"
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

void add_run_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--threads", o.threads, "OpenMP threads (0: all cores); results do not depend on it");
  sub->add_flag("--quiet,-q", o.quiet, "no progress line");
}

void reject_for_task(bool given, const std::string& option, const std::string& task, const std::string& applies_to) {
  if (given)
    throw UsageError(fmt::format("{} applies to {}, not to --task {}; drop it or choose that task", option, applies_to,
                                 task));
}

}  // namespace pe::cli
