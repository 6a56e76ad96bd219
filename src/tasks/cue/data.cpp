#include "tasks/cue/data.h"

#include "core/errors.h"
#include "core/rng.h"

#include <algorithm>

namespace pe {

void cue_sequence(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target) {
  Rng rng(key);
  const int A = cfg.alphabet;
  int last_marked = -1;
  for (int t = 0; t < n - 1; ++t) {
    const int symbol = rng.below(A);
    const bool marked = rng.uniform() < cfg.mark_prob;
    tokens[t] = symbol + (marked ? A : 0);
    if (marked) last_marked = t;
  }
  if (last_marked < 0) {  // no mark drawn: mark one content token chosen uniformly
    last_marked = rng.below(n - 1);
    tokens[last_marked] += A;
  }
  tokens[n - 1] = cfg.query_token_id();
  *target = tokens[last_marked] - A;
}

namespace {
CueBatch make_batch(const CueTaskConfig& cfg, int B, int T, uint64_t tag, uint64_t a, uint64_t b) {
  if (T < 2) throw UsageError("cue task: length must be at least 2 (got " + std::to_string(T) + ")");
  CueBatch batch;
  batch.B = B;
  batch.T = T;
  batch.tokens.resize(size_t(B) * T);
  batch.targets.resize(B);
  for (int i = 0; i < B; ++i)
    cue_sequence(cfg, stream_key({tag, a, b, uint64_t(i)}), T, &batch.tokens[size_t(i) * T], &batch.targets[i]);
  return batch;
}
}  // namespace

CueBatch cue_train_batch(const CueTaskConfig& cfg, uint64_t seed, int step, int B, int T) {
  return make_batch(cfg, B, T, kTagTrain, seed, uint64_t(step));
}

CueBatch cue_test_set(const CueTaskConfig& cfg, uint64_t test_seed, int n, int count) {
  return make_batch(cfg, count, n, kTagTest, test_seed, uint64_t(n));
}

double cue_bag_reader_accuracy(const CueTaskConfig& cfg, const CueBatch& batch) {
  const int A = cfg.alphabet;
  double total = 0;
  std::vector<int> count(A);
  for (int b = 0; b < batch.B; ++b) {
    std::fill(count.begin(), count.end(), 0);
    for (int t = 0; t < batch.T - 1; ++t) {
      const int x = batch.tokens[size_t(b) * batch.T + t];
      if (x >= A) ++count[x - A];
    }
    const int mx = *std::max_element(count.begin(), count.end());
    const int ties = int(std::count(count.begin(), count.end(), mx));
    if (count[batch.targets[b]] == mx) total += 1.0 / ties;
  }
  return total / batch.B;
}

}  // namespace pe
