// The training loop of the cue head (models/cue_head.h) as a TrainingLoop (harness/run.h), for every
// task that trains it (the cue task, the filings task): a task gives its model's config and its
// batches; the loop takes the steps (models/cue_head_trainer.h), logs the loss and accuracy of the
// logged steps, saves and restores its state bit for bit, and writes the checkpoint: the shared
// envelope (harness/checkpoint.h) around the head's model section (CueModelConfig::to_json), for the
// run's task (tasks/cue/checkpoint.h reads it). The block stack's counterpart is harness/token_loop.h.
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/config.h"
#include "harness/run.h"
#include "models/cue_head.h"

namespace pe {

// Called every log_every steps and at the end: (step, steps, loss, accuracy) of the last batch.
using HeadProgress = std::function<void(int, int, double, double)>;
// A task's stream of batches: batches(step) is step's batch (1-based), named by the step so that a
// resumed run sees the same stream. The loss of a step is the mean over its queries (CueBatch::queries).
using BatchSource = std::function<CueBatch(int step)>;

// The loop alone (no files): returns the trained model; metrics_log (optional) gets the logged lines.
// Used by tests and benchmarks.
CueHead<float> train_head(const ExperimentConfig& e, const CueModelConfig& model_config, int seed,
                          const BatchSource& batches, nlohmann::json* metrics_log = nullptr,
                          const HeadProgress& progress = {});

// One run of it written as a run directory (harness/run.h: every file atomically, --resume, a stop at a
// step boundary with the state saved) at <runs_dir>/<e.task>/<scheme>/seed<N>; `resolved` is the full
// experiment config, recorded in config.json with the scheme and seed of this run.
TrainedRun train_head_run(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme,
                          int seed, const CueModelConfig& model_config, const BatchSource& batches,
                          const HeadProgress& progress = {});

// What a head's training run reports to the runner (harness/task.h): its summary line ("batch" names
// what its last-step accuracy was measured on) and its results.json record.
// A trained head's checkpoint: the shared envelope around its model section, for `task` (the run's).
nlohmann::json head_checkpoint(const CueHead<float>& model, const nlohmann::json& training, const std::string& task);

TrainedRun head_task_run(TrainedRun out, const std::string& scheme, int seed, const std::string& batch);

}  // namespace pe
