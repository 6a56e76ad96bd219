#include "cli/common.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "experiments/config.h"

namespace pe::cli {

nlohmann::json resolve_config(const std::string& experiment, const std::vector<std::string>& sets) {
  nlohmann::json cfg = experiment.empty() ? default_config() : load_experiment(experiment);
  for (auto& s : sets) apply_override(cfg, s);
  validate_config(cfg);
  return cfg;
}

Progress::Progress(bool quiet) : on_(!quiet && isatty(fileno(stderr))) {}
void Progress::update(const std::string& line) {
  if (on_) fmt::print(stderr, "\r{:<78}", line.substr(0, 78));
}
void Progress::done() {
  if (on_) fmt::print(stderr, "\r{:<78}\r", "");
}

}  // namespace pe::cli
