#include "models/block_stack_trainer.h"

#include <algorithm>

#include "core/fpenv.h"
#include "core/parallel.h"

namespace pe {

BlockStackTrainer::BlockStackTrainer(BlockStack<float>& model, AdamConfig cfg)
    : model_(model), adam_(model.layout().total(), cfg), grad_(model.layout().total()) {}

double BlockStackTrainer::step(const int* x, const int* y, int B, int T, const TokenCoordinates* at) {
  return run(x, y, B, T, nullptr, 0, at);
}

double BlockStackTrainer::step(const int* x, const int* y, int B, int T, StreamMemory& memory, int mem_len) {
  return run(x, y, B, T, &memory, mem_len, nullptr);
}

double BlockStackTrainer::run(const int* x, const int* y, int B, int T, StreamMemory* memory, int mem_len,
                              const TokenCoordinates* at) {
  const ScopedFlushToZero ftz;
  const SegmentMemory<float> mem = memory ? memory->view() : SegmentMemory<float>{};
  const int M = mem.M, D = model_.config().d_model;
  const size_t n = model_.layout().total();
  const int per_chunk = std::max(1, kBlockStackChunkTokens / T);
  const int chunks = (B + per_chunk - 1) / per_chunk;
  if (int(grads_.size()) < chunks) grads_.resize(chunks, std::vector<float>(n));
  // activations are scratch within one chunk: one cache per thread, reused chunk after chunk, stays warm
  if (int(caches_.size()) < max_threads()) caches_.resize(max_threads());
  losses_.assign(chunks, 0.0);
  // every position the batch reads: M + T rows from 0, or the coordinates' own (randomised positions run past T)
  int reach = M + T;
  if (at && at->pos)
    for (size_t i = 0; i < size_t(B) * T; ++i) reach = std::max(reach, at->pos[i] + 1);
  model_.prepare(reach);
  if (memory) next_memory_.resize(chunks);
  // a row is scored when its target is not ignored and it is not PAD
  auto scored = [&](size_t i) { return y[i] >= 0 && !(at && at->doc && at->doc[i] < 0); };
  long rows = 0;  // the scored rows of the batch (every row, unless a target is ignored)
  for (size_t i = 0; i < size_t(B) * T; ++i) rows += scored(i);
  const bool every_row = rows == long(B) * T;
  chunk_rows_.assign(chunks, 0);
  ++epoch_;  // the parameters are fixed until adam_.step: each thread makes the derived tables once
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel() && chunks > 1)
  for (int c = 0; c < chunks; ++c) {
    const ScopedFlushToZero ftz_thread;
    auto& cache = caches_[thread_index()];
    cache.params_epoch = epoch_;
    const int b0 = c * per_chunk, nb = std::min(per_chunk, B - b0);
    std::fill(grads_[c].begin(), grads_[c].end(), 0.0f);
    const SegmentMemory<float> chunk_mem = mem.from(b0, D);
    const size_t off = size_t(b0) * T;
    const TokenCoordinates chunk_at =
        at ? TokenCoordinates{at->pos ? at->pos + off : nullptr, at->doc ? at->doc + off : nullptr}
           : TokenCoordinates{};
    const double mean =
        model_.forward_backward(x + off, y + off, nb, T, grads_[c].data(), cache, M, Visibility{}, std::max(1L, rows),
                                M > 0 ? &chunk_mem : nullptr, at ? &chunk_at : nullptr);
    if (memory) model_.next_memory(cache, M > 0 ? &chunk_mem : nullptr, nb, T, mem_len, next_memory_[c]);
    for (size_t i = size_t(b0) * T; i < size_t(b0 + nb) * T; ++i) chunk_rows_[c] += scored(i);
    losses_[c] = every_row ? nb * mean : chunk_rows_[c] * mean;
  }
  // grad = sum of the chunk gradients in chunk order; the threads take disjoint ranges of parameters
  // (each element is still summed chunk 0, 1, 2, ..., so the bits do not depend on the threads).
  constexpr size_t kRange = 8192;
  const long ranges = long((n + kRange - 1) / kRange);
#pragma omp parallel for schedule(static) if (!in_parallel() && ranges > 1)
  for (long r = 0; r < ranges; ++r) {
    const size_t i0 = size_t(r) * kRange, i1 = std::min(n, i0 + kRange);
    float* out = grad_.data();
    std::copy(grads_[0].data() + i0, grads_[0].data() + i1, out + i0);
    for (int c = 1; c < chunks; ++c) {
      const float* g = grads_[c].data();
      for (size_t i = i0; i < i1; ++i) out[i] += g[i];
    }
  }
  double loss = 0;
  for (int c = 0; c < chunks; ++c) loss += losses_[c];
  if (memory) {  // the chunks' next memories, in sequence order
    const int keep = std::min(mem_len, M + T), L = model_.config().n_layers;
    memory->h.resize(L);
    for (int l = 0; l < L; ++l) {
      memory->h[l].clear();
      for (int c = 0; c < chunks; ++c)
        memory->h[l].insert(memory->h[l].end(), next_memory_[c][l].begin(), next_memory_[c][l].end());
    }
    memory->M = keep;
  }
  adam_.step(model_.params().data(), grad_.data());
  return every_row ? loss / B : loss / std::max(1L, rows);
}

}  // namespace pe
