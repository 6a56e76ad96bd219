// Run directories, written the same way for every task:
//   <runs_dir>/<task>/<scheme>/seed<N>[-ft-<map>]/{config.json, metrics.jsonl, checkpoint.json}
// A run directory is whole or absent: its files are written into a temporary sibling directory that
// then takes its place in one rename (an existing directory is swapped out and removed), and a lock
// file beside it (<dir>.lock, flock) keeps two processes from writing one run.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace pe {

// The directory of one run.
std::string run_dir_path(const std::string& runs_dir, const std::string& task, const std::string& scheme, int seed);
// Holds <dir>.lock for as long as it lives (take it before training the run); UsageError if another
// process holds it. The lock file is removed when released.
class RunDirLock {
 public:
  explicit RunDirLock(const std::string& dir);
  ~RunDirLock();
  RunDirLock(const RunDirLock&) = delete;
  RunDirLock& operator=(const RunDirLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1, slot_ = -1;
};
// Writes config.json, metrics.jsonl (one JSON object per line) and checkpoint.json into a
// temporary sibling, then puts it in place of dir in one rename.
void write_run_dir(const std::string& dir, const nlohmann::json& config, const std::string& metrics_lines,
                   const std::string& checkpoint_text);
// The training summary of a whole run directory whose config.json equals `config` (a run that may be
// kept instead of retrained), or null.
nlohmann::json complete_run_training(const std::string& dir, const nlohmann::json& config);

}  // namespace pe
