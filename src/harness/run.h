// One training run as a run directory, the same for every task. A task provides a TrainingLoop (its
// model, optimiser, one step, its resumable state and its checkpoint); train_run does the rest:
//   1. lock the run directory (harness/run_dir.h: no other process writes it meanwhile);
//   2. with --resume, keep a complete run directory whose config.json is this run's;
//   3. with --resume, continue the state the run saved when it was stopped (harness/training_state.h);
//   4. take the steps, saving a state every checkpoint_every steps and stopping at a step boundary
//      with the state saved on SIGINT/SIGTERM (Interrupted);
//   5. write the run directory as one unit, then remove the saved state.
// What it leaves is a TrainedRun, the one record of a training run every task and the runner use.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/training_state.h"

namespace pe {

struct TrainedRun {
  std::string run_dir, checkpoint;
  nlohmann::json training;  // the checkpoint's "training" record (steps, final_loss, ...)
  int steps = 0;            // the run's steps
  int resumed_at = 0;       // a saved state continued after this step (0: from the start)
  bool kept = false;        // --resume kept a complete run directory
  double seconds = 0;
  // What the task makes of it for the runner: one line for the terminal, its entry in results.json's
  // "training" list.
  std::string summary;
  nlohmann::json record;
  int trained() const { return kept ? 0 : steps - resumed_at; }  // optimiser steps taken now
  double final_loss() const { return training.value("final_loss", 0.0); }
};

class TrainingLoop {
 public:
  virtual ~TrainingLoop() = default;
  virtual size_t n_params() const = 0;
  // Continues from a saved state: parameters, moments and the loop's own state (CheckpointError
  // naming s.path when the loop state is not this loop's).
  virtual void resume(const TrainingState& s) = 0;
  // Takes optimiser step `step` (1-based), logging and reporting progress when due.
  virtual void step(int step) = 0;
  // The state after `step`, to continue from.
  virtual TrainingState state(int step) const = 0;
  // After the last step: metrics.jsonl's lines, the checkpoint's "training" record and the checkpoint.
  virtual std::string metrics_lines() const = 0;
  virtual nlohmann::json training() const = 0;
  virtual std::string checkpoint_text(const nlohmann::json& training) const = 0;
};

struct RunSpec {
  std::string dir;
  nlohmann::json config;  // the run's config.json
  int steps = 0;
  int checkpoint_every = 0;  // a saved state every this many steps (0: only when stopped)
  std::string what;          // the run in messages ("rope seed 0")
  bool resume = false;
};

struct ExperimentConfig;

// An experiment's (scheme, seed) run from scratch: its directory under e.runs_dir, its config.json
// (resolved with the scheme and seed), e's steps, checkpoint interval and --resume; `what` names it
// in messages ("rope seed 0").
RunSpec experiment_run(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                       const std::string& what);

// Trains (or keeps) one run. The loop is made only when the run is trained.
TrainedRun train_run(const RunSpec& spec, const std::function<std::unique_ptr<TrainingLoop>()>& make_loop);

}  // namespace pe
