// The cue head read at positions of each sequence's own (CueWorkspace::positions: randomised positions,
// harness/random_positions.h), for every one-layer scheme, in double:
//   1. positions 0 .. T-1 given per sequence are the default read;
//   2. every position shifted by the same amount moves the answer exactly when the scheme reads more than
//      offsets (Scheme::offsets_only);
//   3. a random draw moves the answer of every scheme that reads a position: all but NoPE and CoPE, whose
//      count comes from its gates (tests/test_cope.cpp);
//   4. the draws: sorted, distinct, in range, named by (seed, step, row) and (test seed, length, row, range).
// Parameters are drawn N(0, 0.5²) over the initial ones so that a table that starts at zero (T5's) reads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/rng.h"
#include "models/cue_head.h"
#include "schemes/scheme.h"
#include "tasks/cue/data.h"

using namespace pe;

namespace cue_positions_test {

constexpr int B = 3, T = 12, kRange = 40;

CueHead<double> head(const std::string& scheme) {
  CueModelConfig cfg;
  cfg.task.alphabet = 4;
  cfg.d_model = 8;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = kRange;  // a learned table of kRange rows
  CueHead<double> h(cfg);
  h.init(5);
  Rng rng(stream_key({kTagInit, 99}));
  for (double& p : h.params()) p += 0.5 * rng.normal();
  h.prepare(kRange);
  return h;
}

// The logits of reading `tokens` ([B, T]) at `positions` ([B, T]; nullptr: 0 .. T-1), without the score table.
std::vector<double> read(const CueHead<double>& h, const std::vector<int>& tokens, const int* positions) {
  CueWorkspace<double> ws;
  ws.lookup = false;
  ws.positions = positions;
  const std::vector<int> targets(B, 0);
  h.forward(tokens.data(), targets.data(), B, T, ws);
  return ws.logits;
}

double largest_gap(const std::vector<double>& a, const std::vector<double>& b) {
  double gap = 0;
  for (size_t i = 0; i < a.size(); ++i) gap = std::max(gap, std::abs(a[i] - b[i]));
  return gap;
}

}  // namespace cue_positions_test

TEST_CASE("a cue head reads each sequence at positions of its own") {
  using namespace cue_positions_test;
  CueTaskConfig task;
  task.alphabet = 4;
  task.mark_prob = 0.4;
  CueBatch batch = cue_train_batch(task, 3, 0, B, T);
  std::vector<int> rows(size_t(B) * T), shifted(size_t(B) * T);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) rows[size_t(b) * T + t] = t, shifted[size_t(b) * T + t] = t + 20;
  cue_random_positions(batch, 3, 0, kRange);
  std::set<std::string> unmoved_by_draw;
  int schemes = 0;
  for (auto& info : scheme_list()) {
    if (info.min_layers > 1) continue;
    INFO(info.name);
    ++schemes;
    const auto h = head(info.name);
    const auto plain = read(h, batch.tokens, nullptr);
    // 1. 0 .. T-1 per sequence is the default read
    CHECK(largest_gap(read(h, batch.tokens, rows.data()), plain) <= 1e-12);
    // 2. a shift moves exactly the schemes that read more than offsets
    const double shift_gap = largest_gap(read(h, batch.tokens, shifted.data()), plain);
    if (h.scheme().offsets_only())
      CHECK(shift_gap <= 1e-12);
    else
      CHECK(shift_gap > 1e-6);
    // 3. a draw moves every scheme that reads a position
    const double draw_gap = largest_gap(read(h, batch.tokens, batch.positions.data()), plain);
    if (info.positionless) CHECK(draw_gap <= 1e-12);
    if (draw_gap <= 1e-12) unmoved_by_draw.insert(info.name);
  }
  CHECK(schemes >= 15);
  CHECK(unmoved_by_draw == std::set<std::string>{"none", "cope"});
}

TEST_CASE("sequence positions are refused out of order, or past the shared tables") {
  using namespace cue_positions_test;
  const auto h = head("rope");
  std::vector<int> tokens(size_t(B) * T, 1), pos(size_t(B) * T);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) pos[size_t(b) * T + t] = 2 * t;
  std::vector<int> unsorted = pos;
  std::swap(unsorted[3], unsorted[4]);
  CHECK_THROWS_WITH_AS(read(h, tokens, unsorted.data()), doctest::Contains("not ascending"), Error);
  CueTables<double> tables;
  h.prepare_tables(T, 0, false, tables, false);  // positions 0 .. 11, but the draw reaches 22
  CueWorkspace<double> ws;
  ws.shared = &tables;
  ws.positions = pos.data();
  const std::vector<int> targets(B, 0);
  CHECK_THROWS_WITH_AS(h.forward(tokens.data(), targets.data(), B, T, ws), doctest::Contains("shared tables"), Error);
}

TEST_CASE("the cue task's position draws: sorted, distinct, in range, named by their stream") {
  CueTaskConfig task;
  CueBatch a = cue_train_batch(task, 7, 5, 6, 32), b = a, c = a;
  cue_random_positions(a, 7, 5, 256);
  cue_random_positions(b, 7, 5, 256);
  cue_random_positions(c, 7, 6, 256);
  CHECK(a.position_range == 256);
  CHECK(a.positions == b.positions);
  CHECK(a.positions != c.positions);
  for (int r = 0; r < a.B; ++r) {
    const int* p = &a.positions[size_t(r) * a.T];
    CHECK(p[0] >= 0);
    CHECK(p[a.T - 1] < 256);
    for (int t = 1; t < a.T; ++t) CHECK(p[t] > p[t - 1]);
  }
  // a test set's draws: the same for every reader; at the full range they are 0 .. n-1
  CueBatch test = cue_test_set(task, 777, 64, 4), again = test, full = test;
  cue_test_positions(test, 777, 256);
  cue_test_positions(again, 777, 256);
  CHECK(test.positions == again.positions);
  cue_test_positions(full, 777, 64);
  for (int r = 0; r < full.B; ++r)
    for (int t = 0; t < full.T; ++t) CHECK(full.positions[size_t(r) * full.T + t] == t);
}
