// A whole experiment: every scheme x seed trained (in parallel, one run per thread) and evaluated on
// the shared test stream; results.json and table.md written to out_dir.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

struct ExperimentOutcome {
  nlohmann::json results;
  std::string table, markdown, geometry;  // geometry: empty unless the experiment analyses its heads
  double train_seconds = 0, eval_seconds = 0;
  long long total_steps = 0;
  int runs = 0;
};

// threads: OpenMP threads (0: all cores); a runtime setting, never part of the results.
ExperimentOutcome run_experiment(const nlohmann::json& resolved, bool quiet, int threads = 0);

}  // namespace pe
