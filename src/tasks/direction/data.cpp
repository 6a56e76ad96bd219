#include "tasks/direction/data.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "core/rng.h"

namespace pe {

namespace {

bool is_marked(const CueTaskConfig& cfg, int token) { return token >= cfg.alphabet && token < 2 * cfg.alphabet; }

// The answer of `rule` on one sequence.
int answer(const CueTaskConfig& cfg, const int* tokens, int n, int query_row) {
  const NearestMarks m = nearest_marks(cfg, tokens, n, query_row);
  int row = m.before;
  if (cfg.rule == "nearest" && query_row - m.before > m.after - query_row) row = m.after;
  return tokens[row] - cfg.alphabet;
}

// Marks one row of [lo, hi] chosen uniformly, skipping row `skip` (-1: none) — the draw's k-th number.
void mark_one(const CueTaskConfig& cfg, Rng& rng, int* tokens, int lo, int hi, int skip) {
  const int count = hi - lo + 1 - (skip >= lo && skip <= hi ? 1 : 0);
  int row = lo + rng.below(count);
  if (skip >= lo && row >= skip) ++row;
  tokens[row] += cfg.alphabet;
}

// The sequence key identifies a test or training sequence; one stream draws everything in order: the
// query row, each content token's symbol and mark, then the fixes (1-3 in data.h) as they are needed.
void draw(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target, int* query_row) {
  if (n < kDirectionMinLength)
    throw UsageError(fmt::format("direction task: length must be at least {} (got {})", kDirectionMinLength, n));
  if (cfg.rule != "before" && cfg.rule != "nearest")
    throw UsageError(fmt::format("direction task: rule '{}' is not before or nearest", cfg.rule));
  Rng rng(key);
  const int A = cfg.alphabet, r = 2 + rng.below(n - 4);
  for (int t = 0; t < n; ++t) {
    if (t == r) continue;
    const int symbol = rng.below(A);
    tokens[t] = symbol + (rng.uniform() < cfg.mark_prob ? A : 0);
  }
  tokens[r] = cfg.query_token_id();
  NearestMarks m = nearest_marks(cfg, tokens, n, r);
  if (m.before < 0) mark_one(cfg, rng, tokens, 0, r - 1, -1);
  if (m.after < 0) mark_one(cfg, rng, tokens, r + 1, n - 1, -1);
  m = nearest_marks(cfg, tokens, n, r);
  const int d = r - m.before;
  if (m.after - r == d) {
    const bool before = rng.below(2) == 0;
    tokens[before ? m.before : m.after] -= A;
    const NearestMarks left = nearest_marks(cfg, tokens, n, r);
    if (before && left.before < 0) mark_one(cfg, rng, tokens, 0, r - 1, r - d);
    if (!before && left.after < 0) mark_one(cfg, rng, tokens, r + 1, n - 1, r + d);
  }
  *query_row = r;
  *target = answer(cfg, tokens, n, r);
}

CueBatch direction_batch(const CueTaskConfig& cfg, int B, int T, uint64_t tag, uint64_t a, uint64_t b) {
  CueBatch batch;
  batch.B = B;
  batch.T = T;
  batch.tokens.resize(size_t(B) * T);
  batch.targets.resize(B);
  batch.query_rows.resize(B);
  for (int i = 0; i < B; ++i)
    draw(cfg, stream_key({tag, a, b, uint64_t(i)}), T, &batch.tokens[size_t(i) * T], &batch.targets[i],
         &batch.query_rows[i]);
  return batch;
}

}  // namespace

NearestMarks nearest_marks(const CueTaskConfig& cfg, const int* tokens, int n, int query_row) {
  NearestMarks m;
  for (int t = query_row - 1; t >= 0 && m.before < 0; --t)
    if (is_marked(cfg, tokens[t])) m.before = t;
  for (int t = query_row + 1; t < n && m.after < 0; ++t)
    if (is_marked(cfg, tokens[t])) m.after = t;
  return m;
}

void direction_sequence(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target, int* query_row) {
  draw(cfg, key, n, tokens, target, query_row);
}

CueBatch direction_train_batch(const CueTaskConfig& cfg, uint64_t seed, int step, int B, int T) {
  return direction_batch(cfg, B, T, kTagTrain, seed, uint64_t(step));
}

CueBatch direction_test_set(const CueTaskConfig& cfg, uint64_t test_seed, int n, int count) {
  return direction_batch(cfg, count, n, kTagTest, test_seed, uint64_t(n));
}

double direction_distance_reader_accuracy(const CueTaskConfig& cfg, const CueBatch& batch) {
  long right = 0;
  for (int b = 0; b < batch.B; ++b) {
    const int* x = &batch.tokens[size_t(b) * batch.T];
    const int r = batch.query_rows.at(b);
    const NearestMarks m = nearest_marks(cfg, x, batch.T, r);
    const int nearest = r - m.before < m.after - r ? m.before : m.after;
    right += (x[nearest] - cfg.alphabet) == batch.targets[b];
  }
  return double(right) / batch.B;
}

}  // namespace pe
