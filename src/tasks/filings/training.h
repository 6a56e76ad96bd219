// Training a filings head: the tournament's head without its query token (tasks/filings/data.h),
// trained by the head's loop (harness/head_loop.h, train_head_run; its step: models/cue_head_trainer.h)
// on 32-token windows of the training documents of the experiment's corpus.
#pragma once
#include <string>

#include "harness/config.h"
#include "harness/head_loop.h"
#include "models/cue_head.h"

namespace pe {

// The head for one scheme of a filings experiment.
CueModelConfig filings_model_config(const ExperimentConfig& e, const std::string& scheme);
// Its training batches: batch_size windows of train_length tokens per step, named by (seed, step).
BatchSource filings_windows(const ExperimentConfig& e, int seed);

}  // namespace pe
