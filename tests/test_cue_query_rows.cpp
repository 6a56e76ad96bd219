// The cue head read at a query row of each sequence's own (CueWorkspace::query_rows), causally or by a
// head made bidirectional (docs/architecture.md, "The batch model"): the invariants that define it, for
// every one-layer scheme, in double.
//   1. query rows all at the last row are the default read;
//   2. a causal head at row r reads what it reads of the sequence cut after r (to 1e-12 of the logits);
//   3. a causal head's answer does not change when a token after its query changes; a bidirectional
//      head's does.
// "The same" is to 1e-15 (logits of about 0.05): the output layer's product may sum in another order in
// a buffer of another alignment (seen: 1e-17), against the 1e-6 and more that a visible key moves.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "models/cue_head.h"
#include "schemes/scheme.h"
#include "tasks/cue/data.h"

using namespace pe;

namespace cue_rows_test {

constexpr int B = 3, T = 12;

CueHead<double> head(const std::string& scheme, bool bidirectional) {
  CueModelConfig cfg;
  cfg.task.alphabet = 4;
  cfg.d_model = 8;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = T;
  cfg.scheme.bidirectional = bidirectional;
  CueHead<double> h(cfg);
  h.init(5);
  h.prepare(T);
  return h;
}

// The logits of reading `tokens` ([B, n]) at `rows` (nullptr: the last row), without the score table.
std::vector<double> read(const CueHead<double>& h, const std::vector<int>& tokens, int n, const int* rows) {
  CueWorkspace<double> ws;
  ws.lookup = false;
  ws.query_rows = rows;
  const std::vector<int> targets(B, 0);
  h.forward(tokens.data(), targets.data(), B, n, ws);
  return ws.logits;
}

double largest_gap(const std::vector<double>& a, const std::vector<double>& b) {
  double gap = 0;
  for (size_t i = 0; i < a.size(); ++i) gap = std::max(gap, std::abs(a[i] - b[i]));
  return gap;
}

}  // namespace cue_rows_test

TEST_CASE("a cue head reads at each sequence's own query row, causally or bidirectionally") {
  using namespace cue_rows_test;
  CueTaskConfig task;
  task.alphabet = 4;
  task.mark_prob = 0.4;
  const CueBatch batch = cue_train_batch(task, 3, 0, B, T);
  const std::vector<int> rows{5, 0, 9}, last(B, T - 1);
  std::vector<int> tokens = batch.tokens;  // the query token moved to each sequence's row
  for (int b = 0; b < B; ++b) std::swap(tokens[size_t(b) * T + T - 1], tokens[size_t(b) * T + rows[b]]);
  for (auto& info : scheme_list()) {
    if (info.min_layers > 1) continue;
    INFO(info.name);
    const auto causal = head(info.name, false), bidirectional = head(info.name, true);
    // 1. the last row as a query row is the default read
    CHECK(largest_gap(read(causal, batch.tokens, T, last.data()), read(causal, batch.tokens, T, nullptr)) <= 1e-15);
    CHECK(largest_gap(read(bidirectional, batch.tokens, T, last.data()),
                      read(bidirectional, batch.tokens, T, nullptr)) <= 1e-15);
    // 2. a causal head at row r reads the sequence cut after r (each sequence alone, at its last row)
    const auto at_rows = read(causal, tokens, T, rows.data());
    const int C = task.alphabet;
    for (int b = 0; b < B; ++b) {
      const int n = rows[b] + 1;
      std::vector<int> cut(size_t(B) * n);
      for (int s = 0; s < B; ++s) std::copy_n(&tokens[size_t(b) * T], n, &cut[size_t(s) * n]);
      const auto alone = read(causal, cut, n, nullptr);
      for (int c = 0; c < C; ++c) CHECK(std::abs(alone[c] - at_rows[size_t(b) * C + c]) <= 1e-12);
    }
    // 3. a token after the query: the causal answer stays, the bidirectional one moves
    std::vector<int> changed = tokens;
    for (int b = 0; b < B; ++b) {
      const int after = rows[b] + 1 + b % 2;  // a row after the query (rows[b] <= 9 < T - 2)
      changed[size_t(b) * T + after] = (changed[size_t(b) * T + after] + 1) % (2 * task.alphabet);
    }
    CHECK(largest_gap(read(causal, changed, T, rows.data()), at_rows) <= 1e-15);
    const auto both = read(bidirectional, tokens, T, rows.data());
    CHECK(largest_gap(read(bidirectional, changed, T, rows.data()), both) > 1e-6);
  }
}

TEST_CASE("a query row outside the sequence, or with every position, is refused") {
  using namespace cue_rows_test;
  const auto h = head("rope", false);
  std::vector<int> tokens(size_t(B) * T, 1);
  const std::vector<int> bad{0, T, 2};
  CHECK_THROWS_WITH(read(h, tokens, T, bad.data()), doctest::Contains("outside 0..11"));
}
