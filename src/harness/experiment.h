// The experiment runner, one for every task: every (scheme, seed) of an experiment trained by the
// task — one run per thread when the task's runs are small, one after another on every thread
// otherwise — then the runs that start from them (follow_ups), one reading of every checkpoint they
// left (TaskReader::evaluate), results.json and table.md written atomically into out_dir, and the task's
// analyses. results.json holds the readings, the experiment, a record of every training run
// ("training") and the published figures it was compared with ("reference", when there are any).
#pragma once
#include <nlohmann/json.hpp>

#include "harness/task.h"

namespace pe {

ExperimentReport run_experiment(const Task& task, const nlohmann::json& resolved, const RunControl& control);

}  // namespace pe
