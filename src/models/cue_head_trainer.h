// The trainer of the cue head (models/cue_head.h), shared by the cue and filings tasks: the model's
// step (forward, backward, the shared tables' gradient bookkeeping, the optimizer), as
// models/block_stack_trainer.h is the block stack's. The task keeps its data, schedule, checkpoints
// and reporting.
#pragma once
#include <vector>

#include "core/adam.h"
#include "models/cue_head.h"

namespace pe {

// A batch is split into fixed chunks of kCueHeadChunk sequences whose gradients are summed in chunk
// order, so a step gives the same bits with any number of threads. The chunks share one set of tables
// (CueHead::prepare_tables), whose gradient is undone once per step.
inline constexpr int kCueHeadChunk = 64;

// What a step measured on its batch, before the update: the mean cross-entropy over the queries (0
// when the step was asked not to compute it) and the share of the queries answered right.
struct CueStepStats {
  double loss = 0, accuracy = 0;
};

class CueHeadTrainer {
 public:
  // The model is the caller's and must outlive the trainer.
  CueHeadTrainer(CueHead<float>& model, AdamConfig cfg);
  Adam<float>& adam() { return adam_; }
  const Adam<float>& adam() const { return adam_; }
  // One Adam step on `batch` (CueBatch: B sequences of T tokens, read at the last position or at every
  // position); the loss of the step is the mean over its queries (CueBatch::queries). with_loss: sum
  // the cross-entropy (a step whose loss is not logged skips it; a diverging step still shows in its
  // gradient). Throws TrainingDiverged (core/params.h, naming `step`) when the loss, the gradient or
  // a parameter before the update is not finite.
  CueStepStats step(const CueBatch& batch, bool with_loss, int step);

 private:
  CueHead<float>& model_;
  AdamConfig cfg_;
  Adam<float> adam_;
  std::vector<std::vector<float>> grads_;  // [chunk][parameter]
  CueTables<float> tables_;                // the step's tables, shared by its chunks
  std::vector<CueWorkspace<float>> ws_;    // one per chunk
  std::vector<BatchStats> stats_;
  std::vector<float> grad_;
};

}  // namespace pe
