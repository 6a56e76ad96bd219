// Training one cue-task model and writing its run directory:
//   <runs_dir>/<task>/<scheme>/seed<N>/{config.json, metrics.jsonl, checkpoint.json}
#pragma once
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/config.h"
#include "harness/training_state.h"
#include "harness/task.h"
#include "models/cue_head.h"

namespace pe {

// Called every log_every steps and at the end: (step, steps, loss, accuracy) of the last batch.
using ProgressFn = std::function<void(int, int, double, double)>;

// The scheme settings of an experiment (shared by every model); d_model, n_heads and d_head are
// filled in by the model that builds the scheme.
CueModelConfig cue_model_config(const ExperimentConfig& e, const std::string& scheme);
std::string run_dir_for(const ExperimentConfig& e, const std::string& scheme, int seed);

// Trains from scratch and writes the run directory (every file atomically). `resolved` is the full
// experiment config, recorded in config.json with the scheme and seed of this run. With e.resume, a
// complete run directory whose config.json is this run's is kept instead, and a state this run
// saved when it was stopped (harness/training_state.h) is continued. SIGINT/SIGTERM stop it at a
// step boundary with its state saved (Interrupted).
TrainedRun train_cue(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                       const ProgressFn& progress = {});

// The training loop alone (no files): returns the trained model. Used by tests and benchmarks.
// A batch is split into fixed chunks of 64 sequences whose gradients are summed in chunk order, so
// the result is the same for any number of threads.
CueHead<float> train_cue_model(const ExperimentConfig& e, const std::string& scheme, int seed,
                               nlohmann::json* metrics_log = nullptr, const ProgressFn& progress = {});

// The single-head trainer itself, for any stream of batches (the cue task's, the filings task's
// windows): batches(step) is step's batch, named by the step so that a resumed run sees the same
// stream. The loss of a step is the mean over its queries (CueBatch::queries).
using BatchSource = std::function<CueBatch(int step)>;
CueHead<float> train_head(const ExperimentConfig& e, const CueModelConfig& model_config, int seed,
                          const BatchSource& batches, nlohmann::json* metrics_log = nullptr,
                          const ProgressFn& progress = {});
// What a head's training run reports to the runner (harness/task.h): its summary line ("batch" names
// what its last-step accuracy was measured on) and its results.json record.
TrainedRun head_task_run(TrainedRun out, const std::string& scheme, int seed, const std::string& batch);

// One run of it written as a run directory (harness/run.h: train_cue's files and --resume), for e.task.
TrainedRun train_head_run(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme,
                            int seed, const CueModelConfig& model_config, const BatchSource& batches,
                            const ProgressFn& progress = {});

}  // namespace pe
