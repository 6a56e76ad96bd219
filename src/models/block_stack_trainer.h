// The trainer of the block stack (models/block_stack.h), shared by the token-level tasks.
#pragma once
#include <vector>

#include "core/adam.h"
#include "models/block_stack.h"

namespace pe {

// One optimizer over a model. A batch is split into chunks of about kBlockStackChunkTokens tokens
// (4 sequences at T = 128, 1 at T = 512: fixed by T alone) whose gradients are summed in chunk
// order, so a step gives the same bits with any number of threads. Chunks this small keep the
// activations of both threads' chunks in the shared L3 cache.
inline constexpr int kBlockStackChunkTokens = 512;
class BlockStackTrainer {
 public:
  BlockStackTrainer(BlockStack<float>& model, AdamConfig cfg);
  Adam<float>& adam() { return adam_; }
  const Adam<float>& adam() const { return adam_; }
  // One AdamW step on token arrays x, y: [B, T] (positions 0..T-1; a target below 0 is not
  // scored). Returns the mean loss over the scored rows.
  double step(const int* x, const int* y, int B, int T);

 private:
  BlockStack<float>& model_;
  Adam<float> adam_;
  std::vector<std::vector<float>> grads_;
  std::vector<BlockStackCache<float>> caches_;  // one per thread: a chunk's activations are scratch
  std::vector<float> grad_;
  std::vector<double> losses_;
  std::vector<long> chunk_rows_;
  long epoch_ = 0;  // steps taken: the caches' params_epoch (derived tables made once per step and thread)
};

}  // namespace pe
