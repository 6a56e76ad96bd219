// Training a filings head: the tournament's head without its query token (tasks/filings/data.h),
// driven through the tournament's trainer (tasks/cue/training.h, train_head) by 32-token windows of
// the training documents of the experiment's corpus.
#pragma once
#include <string>

#include "harness/config.h"
#include "tasks/cue/training.h"

namespace pe {

// The head for one scheme of a filings experiment.
CueModelConfig filings_model_config(const ExperimentConfig& e, const std::string& scheme);
// Its training batches: batch_size windows of train_length tokens per step, named by (seed, step).
BatchSource filings_windows(const ExperimentConfig& e, int seed);

}  // namespace pe
