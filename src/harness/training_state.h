// A training run that can stop at a step boundary and continue bit for bit. Its state is one file
// beside its run directory, <run_dir>.state.json: the run's config.json, the steps taken, the flat
// parameters and Adam moments (every float exactly), and the task loop's own state (the metrics
// lines so far, the data stream's position, running sums). It is written atomically when SIGINT or
// SIGTERM stops the run (core/interrupt.h) and every `checkpoint_every` steps, and removed when the
// run directory is written. `--resume` continues a run from it when its config is the run's.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe {

struct TrainingState {
  int step = 0;  // steps taken
  std::vector<float> params, adam_m, adam_v;
  long adam_steps = 0;
  nlohmann::json loop;  // the task loop's own state
  std::string path;     // the file it was read from (for messages)
};

std::string training_state_path(const std::string& run_dir);
// The state the run with this config saved, or nothing (none saved, or one of a run with another
// config, which training from scratch replaces). Validated like a checkpoint: CheckpointError (exit
// 3) if the file is unreadable, its step does not lie in [1, steps) for a run of `steps` steps, its
// parameters or moments are not `n_params` finite numbers, or its loop state is not an object.
std::optional<TrainingState> load_training_state(const std::string& run_dir, const nlohmann::json& config,
                                                 size_t n_params, int steps);
// A field of a loaded state's loop of the given type (an array, a string, a number, an object, a
// non-negative integer with Int): CheckpointError naming the state file otherwise.
enum class LoopField { Array, String, Number, Object, Int };
const nlohmann::json& loop_field(const TrainingState& s, const std::string& key, LoopField type);
void remove_training_state(const std::string& run_dir);

// What a training loop calls after every step: it saves the state every `every` steps (0: never;
// not after the last step, which writes the run directory instead) and, when a stop was requested,
// saves it and throws Interrupted with one line saying how to continue.
class StepCheckpoints {
 public:
  StepCheckpoints(std::string run_dir, nlohmann::json config, int steps, int every, std::string what);
  void after_step(int step, const std::function<TrainingState()>& state) const;
  // A run that has not started yet when a stop is requested: Interrupted, nothing to save.
  void before_start() const;

 private:
  std::string run_dir_, what_;
  nlohmann::json config_;
  int steps_, every_;
};

}  // namespace pe
