#include "models/cue_head_trainer.h"

#include <algorithm>

#include "core/errors.h"
#include "core/fpenv.h"
#include "core/parallel.h"
#include "core/params.h"

namespace pe {

CueHeadTrainer::CueHeadTrainer(CueHead<float>& model, AdamConfig cfg)
    : model_(model), cfg_(cfg), adam_(model.layout().total(), cfg), grad_(model.layout().total()) {}

CueStepStats CueHeadTrainer::step(const CueBatch& batch, bool with_loss, int step) {
  const ScopedFlushToZero ftz;
  const int B = batch.B, T = batch.T;
  const size_t n = model_.layout().total();
  const size_t per_row = batch.every_position ? size_t(T) : 1;  // targets per sequence
  const long queries = std::max(1L, batch.queries());
  const int chunks = (B + kCueHeadChunk - 1) / kCueHeadChunk;
  if (int(grads_.size()) < chunks) grads_.resize(chunks, std::vector<float>(n));
  if (int(ws_.size()) < chunks) ws_.resize(chunks);
  stats_.assign(chunks, BatchStats{});
  // the positions read: 0 .. T-1, or each sequence's own draw below position_range (randomised positions)
  const bool own_positions = batch.position_range > 0;
  if (own_positions && batch.positions.size() != size_t(B) * T)
    throw Error("CueHeadTrainer: a batch's positions are one per token");
  const int span = batch.position_span();
  model_.prepare(span);
  model_.prepare_tables(span, 0, batch.every_position, tables_, !own_positions);  // once for the step's chunks
  if (!batch.query_rows.empty() && batch.query_rows.size() != size_t(B))
    throw Error("CueHeadTrainer: a batch's query rows are one per sequence");
  for (auto& w : ws_) w.shared = &tables_, w.loss = with_loss;
#pragma omp parallel for schedule(static) if (!in_parallel() && chunks > 1)
  for (int c = 0; c < chunks; ++c) {
    const ScopedFlushToZero ftz_thread;
    const int b0 = c * kCueHeadChunk, nb = std::min(kCueHeadChunk, B - b0);
    std::fill(grads_[c].begin(), grads_[c].end(), 0.0f);
    ws_[c].query_rows = batch.query_rows.empty() ? nullptr : batch.query_rows.data() + b0;
    ws_[c].positions = own_positions ? batch.positions.data() + size_t(b0) * T : nullptr;
    stats_[c] = model_.chunk_backward(&batch.tokens[size_t(b0) * T], &batch.targets[b0 * per_row], nb, T, queries,
                                      grads_[c].data(), ws_[c], 0, batch.every_position);
  }
  // grad = 0 + the chunks' gradients in chunk order; the chunks' table gradients summed into the first
  // chunk's workspace in the same order, then undone once for the step
  std::fill(grad_.begin(), grad_.end(), 0.0f);
  double loss = 0;
  int correct = 0;
  for (int c = 0; c < chunks; ++c) {
    for (size_t i = 0; i < n; ++i) grad_[i] += grads_[c][i];
    if (c > 0) model_.add_table_grads(ws_[0], ws_[c]);
    loss += stats_[c].loss_sum;
    correct += stats_[c].correct;
  }
  model_.shared_tables_backward(ws_[0], grad_.data());
  const CueStepStats out{loss / queries, double(correct) / queries};  // the loss: 0 without with_loss
  check_finite_step(step, out.loss, model_.layout(), model_.params().data(), grad_.data(), cfg_.lr);
  adam_.step(model_.params().data(), grad_.data());
  return out;
}

}  // namespace pe
