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

// Transformer-XL's memory carried from step to step over B streams: per block the states of the M
// tokens before the next segment, [B, M, D] (models/block_stack.h, SegmentMemory). M = 0: empty
// (a stream's first segment).
struct StreamMemory {
  int M = 0;
  std::vector<std::vector<float>> h;  // [n_layers][B * M * D]
  void clear() { M = 0, h.clear(); }
  SegmentMemory<float> view() const {
    SegmentMemory<float> m{M, {}};
    if (M > 0)
      for (auto& l : h) m.h.push_back(l.data());
    return m;
  }
};

class BlockStackTrainer {
 public:
  BlockStackTrainer(BlockStack<float>& model, AdamConfig cfg);
  Adam<float>& adam() { return adam_; }
  const Adam<float>& adam() const { return adam_; }
  // One AdamW step on token arrays x, y: [B, T] (positions 0..T-1, one document, or the coordinates
  // `at`: packed documents, PAD; a target below 0 is not scored). Returns the mean loss over the
  // scored rows.
  double step(const int* x, const int* y, int B, int T, const TokenCoordinates* at = nullptr);
  // The same on B streams' next segments with their memory (segment recurrence): the segment at
  // positions M .. M+T-1 attends to the memory's rows too; afterwards `memory` holds the last
  // min(mem_len, M + T) states of each stream and block, taken in the forward (before the update).
  double step(const int* x, const int* y, int B, int T, StreamMemory& memory, int mem_len);

 private:
  BlockStack<float>& model_;
  Adam<float> adam_;
  std::vector<std::vector<float>> grads_;
  std::vector<BlockStackCache<float>> caches_;  // one per thread: a chunk's activations are scratch
  std::vector<float> grad_;
  std::vector<double> losses_;
  std::vector<long> chunk_rows_;
  std::vector<std::vector<std::vector<float>>> next_memory_;  // [chunk][layer]: the chunk's next memory
  double run(const int* x, const int* y, int B, int T, StreamMemory* memory, int mem_len, const TokenCoordinates* at);
  long epoch_ = 0;  // steps taken: the caches' params_epoch (derived tables made once per step and thread)
};

}  // namespace pe
