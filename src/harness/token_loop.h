// The training loop of the block stack (models/block_stack.h) as a TrainingLoop (harness/run.h), for
// every token-level task: a task gives its batches and its checkpoint; the loop takes the steps, logs
// the mean loss of the steps since the last line, and saves and restores its state (the batches'
// position included) bit for bit. It lives in the harness, above the model it drives, so models/
// includes nothing of the harness.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/run.h"
#include "models/block_stack.h"
#include "models/block_stack_trainer.h"

namespace pe {

// A task's training batches: next(step, x, y) fills x and y ([B, T], B at most the loop's batch; a
// target below 0 is not scored) for 1-based `step`. A stream that is not a function of the step says where it stands
// (position) and continues from there (seek; CheckpointError naming `path` when out of range).
class TokenBatches {
 public:
  virtual ~TokenBatches() = default;
  virtual void next(int step, std::vector<int>& x, std::vector<int>& y) = 0;
  virtual nlohmann::json position() const { return nullptr; }
  // The coordinates of the batch next() just gave (packed documents, PAD: harness/packing.h), valid
  // until the next call; nullptr: every sequence at positions 0 .. T-1, one document.
  virtual const TokenCoordinates* coordinates() { return nullptr; }
  // With a segment memory (TokenLoopSettings::mem_len): whether the batch next() just gave starts its
  // streams afresh (the memory is emptied before it) rather than continuing the previous batch's.
  virtual bool starts_streams() const { return true; }
  virtual void seek(const nlohmann::json& position, const std::string& path) {}
};

struct TokenLoopSettings {
  int steps = 0, batch = 0, length = 0, log_every = 50;
  int final_steps = 100;
  // > 0: Transformer-XL's segment recurrence: each batch continues the previous batch's B streams
  // (TokenBatches::starts_streams) and attends to the last mem_len states of each (no gradient into
  // them); the memory is part of a saved state
  int mem_len = 0;  // the training record's final_loss averages the last this many steps (at least)
  AdamConfig adam;
  // the learning rate of step s (1-based); unset: adam.lr at every step. A function of the step alone,
  // so a resumed run takes the same steps.
  std::function<double(int)> lr_at;
  // called every log_every steps and at the end with (step, steps, mean loss since the last call)
  std::function<void(int, int, double)> progress;
  // the checkpoint's text for a finished run's "training" record
  std::function<std::string(const BlockStack<float>&, const nlohmann::json& training)> checkpoint;
  nlohmann::json training;  // the training record's fixed fields (seed, lr, ...); steps, final_loss and
                            // final_loss_steps join them
};

// The final training loss from a run's metrics lines ({"step", "loss_avg"} every log interval, the
// mean of the steps since the line before): the mean loss of the last logged intervals that together
// cover at least `steps` steps (exactly the last `steps` when the interval divides it), computed as
// sum of loss_avg x interval, newest first, over the steps covered; `covered` gets their number.
// 0 and covered 0 for no lines.
double final_loss_of(const std::string& metrics_lines, int steps, int* covered);

// The learning rate falling from lr to floor * lr along a half cosine over `steps` steps (TokenLoopSettings::lr_at):
// step s (1-based) at t = (s - 1) / (steps - 1).
std::function<double(int)> half_cosine_lr(double lr, double floor, int steps);

class TokenLoop final : public TrainingLoop {
 public:
  // The model is the caller's and must outlive the loop.
  TokenLoop(BlockStack<float>& model, TokenBatches& batches, TokenLoopSettings settings);
  size_t n_params() const override { return model_.layout().total(); }
  void resume(const TrainingState& s) override;
  void step(int step) override;
  TrainingState state(int step) const override;
  std::string metrics_lines() const override { return lines_; }
  nlohmann::json training() const override;
  std::string checkpoint_text(const nlohmann::json& training) const override {
    return settings_.checkpoint(model_, training);
  }

 private:
  BlockStack<float>& model_;
  TokenBatches& batches_;
  TokenLoopSettings settings_;
  BlockStackTrainer trainer_;
  std::vector<int> x_, y_;
  StreamMemory memory_;
  std::string lines_;
  double since_ = 0, final_loss_ = 0;
  int count_ = 0;
};

}  // namespace pe
