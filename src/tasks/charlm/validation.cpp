// The character LM's validation readings (training.h): perplexity at several lengths from one pass,
// through cached decoding, in Transformer-XL's segments, and the per-position loss in bins.
#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/fpenv.h"
#include "core/math.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "harness/random_positions.h"
#include "models/block_stack_decoder.h"
#include "models/block_stack_trainer.h"
#include "models/cross_entropy.h"
#include "tasks/charlm/documents.h"
#include "tasks/charlm/training.h"

namespace pe {

// ---- validation

void charlm_batch_losses(const BlockStack<float>& model, const int* x, const int* y, int nb, int T,
                         BlockStackCache<float>& cache, const Visibility& vis, const std::vector<int>& prefixes,
                         double* means, double* position_sum, const TokenCoordinates* at) {
  const int per_piece = std::max(1, kBlockStackChunkTokens / T);
  std::vector<double> sums(prefixes.size(), 0.0);
  for (int b0 = 0; b0 < nb; b0 += per_piece) {
    const int np = std::min(per_piece, nb - b0);
    const size_t off = size_t(b0) * T;
    TokenCoordinates piece;  // the rows of this piece
    if (at) piece = {at->pos ? at->pos + off : nullptr, at->doc ? at->doc + off : nullptr};
    model.forward(x + off, y + off, np, T, cache, 0, vis, nullptr, at ? &piece : nullptr);
    for (int b = 0; b < np; ++b) {
      const double* l = cache.token_loss.data() + size_t(b) * T;
      for (size_t i = 0; i < prefixes.size(); ++i)
        for (int t = 0; t < prefixes[i]; ++t) sums[i] += l[t];
      if (position_sum)
        for (int t = 0; t < T; ++t) position_sum[t] += l[t];
    }
  }
  for (size_t i = 0; i < prefixes.size(); ++i) means[i] = sums[i] / (double(nb) * prefixes[i]);
}

void charlm_validation_positions(long start, int T, int range, int* pos) {
  sample_positions(stream_key({kTagTest, 0xC4A5, 0x7A4D, uint64_t(start), uint64_t(T), uint64_t(range)}), T, range,
                   pos);
}

std::vector<PerplexityResult> charlm_perplexities(BlockStack<float>& model, const CharCorpus& corpus,
                                                  const std::vector<int>& lengths, int val_start, int n_windows,
                                                  int batch, const Visibility& vis, int stride, Packing layout,
                                                  int random_positions) {
  if (lengths.empty()) return {};
  if (random_positions > 0 && layout != Packing::None)
    throw Error("charlm_perplexities: random positions and a packing layout both lay out positions");
  if (random_positions > 0 && lengths.size() > 1) {
    // each length draws its own positions, so a shorter reading is no prefix of a longer one: a pass each
    std::vector<PerplexityResult> out;
    for (int T : lengths)
      out.push_back(charlm_perplexities(model, corpus, {T}, val_start, n_windows, batch, vis, stride, layout,
                                        random_positions)[0]);
    return out;
  }
  const int T = *std::max_element(lengths.begin(), lengths.end());
  const int batches = (n_windows + batch - 1) / batch;
  const size_t nl = lengths.size();
  model.prepare(std::max(T, random_positions));  // (drawn positions reach up to random_positions - 1)
  std::vector<double> batch_loss(size_t(batches) * nl);  // [batch][length]
  std::vector<std::vector<double>> pos_sum(batches, std::vector<double>(T, 0.0));
  std::vector<BlockStackCache<float>> caches(std::max(1, max_threads()));
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (int k = 0; k < batches; ++k) {
    const ScopedFlushToZero ftz;
    auto& cache = caches[thread_index()];
    const int w0 = k * batch, nb = std::min(batch, n_windows - w0);
    std::vector<int> x(size_t(nb) * T), y(size_t(nb) * T);
    BatchCoordinates at;
    for (int b = 0; b < nb; ++b)
      charlm_window(corpus, layout, val_start + (w0 + b) * stride, T, T, &x[size_t(b) * T], &y[size_t(b) * T], at);
    if (random_positions > 0) {
      at.pos.resize(size_t(nb) * T);
      for (int b = 0; b < nb; ++b)
        charlm_validation_positions(val_start + (w0 + b) * stride, T, random_positions, &at.pos[size_t(b) * T]);
    }
    charlm_batch_losses(model, x.data(), y.data(), nb, T, cache, vis, lengths, &batch_loss[size_t(k) * nl],
                        pos_sum[k].data(), at.view());
  }
  std::vector<double> position(T, 0.0);
  for (int k = 0; k < batches; ++k)
    for (int t = 0; t < T; ++t) position[t] += pos_sum[k][t];
  for (auto& v : position) v /= n_windows;
  std::vector<PerplexityResult> out(nl);
  for (size_t i = 0; i < nl; ++i) {
    PerplexityResult& r = out[i];
    r.length = lengths[i];
    for (int k = 0; k < batches; ++k) r.loss += batch_loss[size_t(k) * nl + i];
    r.loss /= batches;
    r.perplexity = math::exp(r.loss);
    r.position_loss.assign(position.begin(), position.begin() + lengths[i]);
  }
  return out;
}

namespace {
// The figures of every length from each window's token losses ([window][position]), with the sums of
// charlm_perplexities: per batch of `batch` windows the mean over its tokens, then the mean over
// batches; the per-position loss over every window.
std::vector<PerplexityResult> perplexities_of(const std::vector<std::vector<double>>& token_loss,
                                              const std::vector<int>& lengths, int batch) {
  const int n_windows = int(token_loss.size()), T = *std::max_element(lengths.begin(), lengths.end());
  const int batches = (n_windows + batch - 1) / batch;
  std::vector<PerplexityResult> out(lengths.size());
  std::vector<double> position(T, 0.0);
  for (int w = 0; w < n_windows; ++w)
    for (int t = 0; t < T; ++t) position[t] += token_loss[w][t];
  for (auto& v : position) v /= n_windows;
  for (size_t i = 0; i < lengths.size(); ++i) {
    PerplexityResult& r = out[i];
    r.length = lengths[i];
    for (int k = 0; k < batches; ++k) {
      const int w0 = k * batch, nb = std::min(batch, n_windows - w0);
      double sum = 0;
      for (int b = 0; b < nb; ++b)
        for (int t = 0; t < lengths[i]; ++t) sum += token_loss[w0 + b][t];
      r.loss += sum / (double(nb) * lengths[i]);
    }
    r.loss /= batches;
    r.perplexity = math::exp(r.loss);
    r.position_loss.assign(position.begin(), position.begin() + lengths[i]);
  }
  return out;
}
}  // namespace

std::vector<PerplexityResult> charlm_cached_perplexities(
    const std::function<std::unique_ptr<BlockStack<float>>()>& load, const std::optional<MapSpec>& map, int train_len,
    int read_len, const CharCorpus& corpus, const std::vector<int>& lengths, int val_start, int n_windows, int batch,
    int window, int stride) {
  if (lengths.empty()) return {};
  const int T = *std::max_element(lengths.begin(), lengths.end());
  // each thread decodes with its own model: a length-dependent map re-plans the scheme at every step
  std::vector<std::unique_ptr<BlockStack<float>>> models(std::max(1, max_threads()));
  std::vector<std::vector<double>> token_loss(n_windows, std::vector<double>(T, 0.0));
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (int w = 0; w < n_windows; ++w) {
    const ScopedFlushToZero ftz;
    auto& model = models[thread_index()];
    if (!model) model = load();
    std::vector<int> x(T), y(T);
    char_window(corpus, val_start + w * stride, T, x.data(), y.data());
    BlockStackDecoder<float> dec(*model, window > 0 ? window : T, map, train_len, read_len);
    const int V = model->config().vocab;
    for (int t = 0; t < T; ++t) token_loss[w][t] = cross_entropy_forward(dec.step(x[t]), V, y[t]);
  }
  return perplexities_of(token_loss, lengths, batch);
}

std::vector<PerplexityResult> charlm_segment_perplexities(BlockStack<float>& model, const CharCorpus& corpus,
                                                          const std::vector<int>& lengths, int val_start, int n_windows,
                                                          int batch, int segment, int mem_len, int stride) {
  if (lengths.empty()) return {};
  const int T = *std::max_element(lengths.begin(), lengths.end());
  const int per_piece = std::max(1, kBlockStackChunkTokens / segment);
  model.prepare(mem_len + segment);
  std::vector<std::vector<double>> token_loss(n_windows, std::vector<double>(T, 0.0));
  std::vector<BlockStackCache<float>> caches(std::max(1, max_threads()));
  const int pieces = (n_windows + per_piece - 1) / per_piece;
#pragma omp parallel for schedule(dynamic, 1) if (!in_parallel())
  for (int k = 0; k < pieces; ++k) {
    const ScopedFlushToZero ftz;
    auto& cache = caches[thread_index()];
    const int w0 = k * per_piece, np = std::min(per_piece, n_windows - w0);
    std::vector<int> x(size_t(np) * T), y(size_t(np) * T), xs, ys;
    for (int b = 0; b < np; ++b)
      char_window(corpus, val_start + (w0 + b) * stride, T, &x[size_t(b) * T], &y[size_t(b) * T]);
    StreamMemory memory, next;  // the states of the tokens before the segment, then after it
    for (int s0 = 0; s0 < T; s0 += segment) {
      const int n = std::min(segment, T - s0);
      xs.resize(size_t(np) * n), ys.resize(size_t(np) * n);
      for (int b = 0; b < np; ++b)
        for (int t = 0; t < n; ++t)
          xs[size_t(b) * n + t] = x[size_t(b) * T + s0 + t], ys[size_t(b) * n + t] = y[size_t(b) * T + s0 + t];
      const SegmentMemory<float> mem = memory.view();
      model.forward(xs.data(), ys.data(), np, n, cache, mem.M, Visibility{}, mem.M > 0 ? &mem : nullptr);
      for (int b = 0; b < np; ++b)
        for (int t = 0; t < n; ++t) token_loss[w0 + b][s0 + t] = cache.token_loss[size_t(b) * n + t];
      next.M = model.next_memory(cache, mem.M > 0 ? &mem : nullptr, np, n, mem_len, next.h);
      std::swap(memory, next);
    }
  }
  return perplexities_of(token_loss, lengths, batch);
}

PerplexityResult charlm_perplexity(BlockStack<float>& model, const CharCorpus& corpus, int T, int val_start,
                                   int n_windows, int batch, const Visibility& vis, int stride, int random_positions) {
  return charlm_perplexities(model, corpus, {T}, val_start, n_windows, batch, vis, stride, Packing::None,
                             random_positions)[0];
}

std::vector<double> bin_positions(const std::vector<double>& position_loss, int window) {
  std::vector<double> bins;  // (NaN positions, which no sequence reached, are left out; a bin of them only: NaN)
  for (size_t a = 0; a < position_loss.size(); a += window) {
    const size_t b = std::min(position_loss.size(), a + size_t(window));
    double s = 0;
    int n = 0;
    for (size_t i = a; i < b; ++i)
      if (!std::isnan(position_loss[i])) s += position_loss[i], ++n;
    bins.push_back(n ? s / double(n) : std::nan(""));
  }
  return bins;
}

}  // namespace pe
