#include "tasks/cue/data.h"

#include "core/errors.h"
#include "core/rng.h"
#include "core/rng_lanes.h"
#include "harness/random_positions.h"

#include <algorithm>

namespace pe {

namespace {

// After the n - 1 content tokens (draws 0 .. 2n - 3): with no mark drawn, mark one content token
// chosen uniformly (draw 2n - 2); then the query token and the target.
void finish_sequence(const CueTaskConfig& cfg, uint64_t key, int n, int last_marked, int* tokens, int* target) {
  const int A = cfg.alphabet;
  if (last_marked < 0) {
    last_marked = Rng(key + 2 * uint64_t(n - 1)).below(n - 1);
    tokens[last_marked] += A;
  }
  tokens[n - 1] = cfg.query_token_id();
  *target = tokens[last_marked] - A;
}

// The n - 1 content tokens drawn one at a time (draw 2t: token t's symbol, 2t + 1: its mark);
// returns the last marked t, or -1.
int content_tokens(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens) {
  Rng rng(key);
  const int A = cfg.alphabet;
  int last = -1;
  for (int t = 0; t < n - 1; ++t) {
    const int symbol = rng.below(A);
    const bool marked = rng.uniform() < cfg.mark_prob;
    tokens[t] = symbol + (marked ? A : 0);
    if (marked) last = t;
  }
  return last;
}

#ifdef PEBENCH_RNG_LANES
// The first `count` content tokens, eight at a time (the last group masked): the very integers
// content_tokens draws (core/rng_lanes.h: draw 2t is token t's symbol, 2t + 1 its mark). Returns the
// last marked t, or -1.
PEBENCH_RNG_LANES_TARGET int content_tokens8(const CueTaskConfig& cfg, uint64_t key, int count, int* tokens) {
  using namespace rng_lanes;
  const int A = cfg.alphabet;
  const Below8 below(A);
  const __m512d a = _mm512_set1_pd(double(A)), p = _mm512_set1_pd(cfg.mark_prob);
  const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), one = _mm512_set1_epi64(1);
  int last = -1;
  for (int t0 = 0; t0 < count; t0 += 8) {
    const int lanes = std::min(8, count - t0);
    const __m512i i = _mm512_add_epi64(_mm512_set1_epi64(int64_t(key + 2 * uint64_t(t0))), even);
    const __m512d symbol = below(next8(i));
    const __m512d u = uniform8(next8(_mm512_add_epi64(i, one)));
    const __mmask8 marked = _mm512_cmp_pd_mask(u, p, _CMP_LT_OQ) & __mmask8((1u << lanes) - 1u);
    const __m256i tok = _mm512_maskz_cvtpd_epi32(kAll, _mm512_mask_add_pd(symbol, marked, symbol, a));
    if (lanes == 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(tokens + t0), tok);
    } else {
      alignas(32) int group[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(group), tok);
      std::copy_n(group, lanes, tokens + t0);
    }
    // (no branch on the marks: they are random, and a mispredicted branch per group cost more than the group)
    const int newest = t0 + 31 - __builtin_clz(unsigned(marked) | 1u), any = -int(marked != 0);
    last = (newest & any) | (last & ~any);
  }
  return last;
}
#endif

}  // namespace

void cue_sequence(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target) {
#ifdef PEBENCH_RNG_LANES
  // The one CPU-feature switch (core/cpu_features.h; off under PEBENCH_NO_AVX512=1, so the AVX2 golden
  // runs keep covering the one-at-a-time draws).
  if (rng_lanes_enabled()) {
    finish_sequence(cfg, key, n, content_tokens8(cfg, key, n - 1, tokens), tokens, target);
    return;
  }
#endif
  cue_sequence_drawn_singly(cfg, key, n, tokens, target);
}

void cue_sequence_drawn_singly(const CueTaskConfig& cfg, uint64_t key, int n, int* tokens, int* target) {
  finish_sequence(cfg, key, n, content_tokens(cfg, key, n, tokens), tokens, target);
}

namespace {
// The cue task's constant in the streams of its randomised positions (harness/random_positions.h).
constexpr uint64_t kCuePositions = 0xC0E7A4D;

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

void cue_random_positions(CueBatch& batch, uint64_t seed, int step, int range) {
  draw_batch_positions(seed, kCuePositions, step, batch.B, batch.T, range, batch.positions);
  batch.position_range = range;
}

void cue_test_positions(CueBatch& test, uint64_t test_seed, int range) {
  test.positions.resize(size_t(test.B) * test.T);
  for (int i = 0; i < test.B; ++i)
    sample_positions(stream_key({kTagTest, test_seed, kCuePositions, uint64_t(test.T), uint64_t(i), uint64_t(range)}),
                     test.T, range, &test.positions[size_t(i) * test.T]);
  test.position_range = range;
}

double cue_bag_reader_accuracy(const CueTaskConfig& cfg, const CueBatch& batch) {
  const int A = cfg.alphabet;
  double total = 0;
  std::vector<int> count(A);
  for (int b = 0; b < batch.B; ++b) {
    std::fill(count.begin(), count.end(), 0);
    for (int t = 0; t < batch.T; ++t) {  // every marked token, wherever the query token sits
      const int x = batch.tokens[size_t(b) * batch.T + t];
      if (x >= A && x < 2 * A) ++count[x - A];
    }
    const int mx = *std::max_element(count.begin(), count.end());
    const int ties = int(std::count(count.begin(), count.end(), mx));
    if (count[batch.targets[b]] == mx) total += 1.0 / ties;
  }
  return total / batch.B;
}

}  // namespace pe
