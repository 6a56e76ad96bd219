// Training one cue-task model and writing its run directory:
//   <runs_dir>/<task>/<scheme>/seed<N>/{config.json, metrics.jsonl, checkpoint.json}
// The loop is the head's (harness/head_loop.h), its step the model's trainer's (models/cue_head_trainer.h);
// the task gives its model config and its batches (tasks/cue/data.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/config.h"
#include "harness/head_loop.h"
#include "harness/run.h"
#include "models/cue_head.h"

namespace pe {

// The scheme settings of an experiment (shared by every model); d_model, n_heads and d_head are
// filled in by the model that builds the scheme.
CueModelConfig cue_model_config(const ExperimentConfig& e, const std::string& scheme);
// The same for a head made with `bidirectional` visibility whatever the experiment's keys (a task of
// its own on the cue stream's keys: alphabet, mark_prob).
CueModelConfig head_model_config(const ExperimentConfig& e, const std::string& scheme, bool bidirectional);
// The keys of the cue stream and its test set (alphabet, mark_prob, test_sequences, test_seed), which a
// task drawing its own sequences of marked tokens declares alike.
std::vector<KeySpec> cue_stream_keys();
std::string run_dir_for(const ExperimentConfig& e, const std::string& scheme, int seed);

// Trains from scratch and writes the run directory (every file atomically). `resolved` is the full
// experiment config, recorded in config.json with the scheme and seed of this run. With e.resume, a
// complete run directory whose config.json is this run's is kept instead, and a state this run
// saved when it was stopped (harness/training_state.h) is continued. SIGINT/SIGTERM stop it at a
// step boundary with its state saved (Interrupted).
TrainedRun train_cue(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                     const HeadProgress& progress = {});

// The training loop alone (no files): returns the trained model. Used by tests and benchmarks.
// A batch is split into fixed chunks of sequences whose gradients are summed in chunk order
// (models/cue_head_trainer.h), so the result is the same for any number of threads.
CueHead<float> train_cue_model(const ExperimentConfig& e, const std::string& scheme, int seed,
                               nlohmann::json* metrics_log = nullptr, const HeadProgress& progress = {});

}  // namespace pe
