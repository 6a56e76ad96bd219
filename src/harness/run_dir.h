// Run directories, written the same way for every task:
//   <runs_dir>/<task>/<scheme>/seed<N>[-ft-<map>]/{config.json, metrics.jsonl, checkpoint.json}
// Each file is written atomically and the checkpoint last, so a directory with a checkpoint is whole.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

// The directory of one run.
std::string run_dir_path(const std::string& runs_dir, const std::string& task, const std::string& scheme, int seed);
// Writes config.json, metrics.jsonl (one JSON object per line) and, last, checkpoint.json.
void write_run_dir(const std::string& dir, const nlohmann::json& config, const std::string& metrics_lines,
                   const std::string& checkpoint_text);
// The training summary of a whole run directory whose config.json equals `config` (a run that may be
// kept instead of retrained), or null.
nlohmann::json complete_run_training(const std::string& dir, const nlohmann::json& config);

}  // namespace pe
