// The direction task (tasks/direction/, docs/tasks.md, "Direction"): its draw's invariants (a query row
// with two content tokens or more on each side, a mark on each side, no tie between the nearest marks
// before and after, the answer of each rule), a bidirectional head's answer moving with a token after
// its query, the exact readers on hand-made sequences, and a short training through the shared loop.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "harness/task.h"
#include "models/cue_head.h"
#include "models/cue_head_trainer.h"
#include "tasks/cue/data.h"
#include "tasks/cue/evaluation.h"
#include "tasks/direction/data.h"

using namespace pe;

namespace direction_test {

CueTaskConfig task_of(const std::string& rule, double mark_prob = 0.1) {
  CueTaskConfig t;
  t.rule = rule;
  t.mark_prob = mark_prob;
  return t;
}

bool marked(const CueTaskConfig& t, int x) { return x >= t.alphabet && x < 2 * t.alphabet; }

// A batch of one hand-made sequence: tokens, query row, target.
CueBatch one(const std::vector<int>& tokens, int query_row, int target) {
  CueBatch b;
  b.B = 1;
  b.T = int(tokens.size());
  b.tokens = tokens;
  b.targets = {target};
  b.query_rows = {query_row};
  return b;
}

}  // namespace direction_test

TEST_CASE("direction: every drawn sequence has its query inside, marks on both sides, no tie, the rule's answer") {
  using namespace direction_test;
  for (const std::string rule : {"before", "nearest"})
    for (const int n : {5, 6, 32, 257})
      for (const double p : {0.0, 0.1, 0.5}) {
        const CueTaskConfig t = task_of(rule, p);
        const CueBatch b = direction_test_set(t, 9, n, 400);
        REQUIRE(b.query_rows.size() == 400);
        int ties_seen = 0, after_nearer = 0;
        for (int i = 0; i < b.B; ++i) {
          const int* x = &b.tokens[size_t(i) * n];
          const int r = b.query_rows[i];
          CHECK(r >= 2);
          CHECK(r <= n - 3);
          for (int k = 0; k < n; ++k) CHECK((x[k] == t.query_token_id()) == (k == r));
          const NearestMarks m = nearest_marks(t, x, n, r);
          REQUIRE(m.before >= 0);
          REQUIRE(m.after >= 0);
          CHECK(marked(t, x[m.before]));
          ties_seen += (r - m.before == m.after - r);
          const bool after = m.after - r < r - m.before;
          after_nearer += after;
          const int want = rule == "before" || !after ? x[m.before] - t.alphabet : x[m.after] - t.alphabet;
          CHECK(b.targets[i] == want);
        }
        CHECK(ties_seen == 0);
        if (n > 6 && p > 0) {  // reflection symmetry: the nearest mark is after the query about half the time
          CHECK(after_nearer > 150);
          CHECK(after_nearer < 250);
        }
      }
  // the same stream for every scheme and seed: the test set depends on (test seed, length) only
  const CueBatch a = direction_test_set(task_of("before"), 9, 32, 50),
                 c = direction_test_set(task_of("before"), 9, 32, 50);
  CHECK(a.tokens == c.tokens);
  CHECK(a.query_rows == c.query_rows);
  // both rules draw the same sequences; only the targets differ
  const CueBatch d = direction_test_set(task_of("nearest"), 9, 32, 50);
  CHECK(a.tokens == d.tokens);
  CHECK(a.targets != d.targets);
  CHECK_THROWS(direction_test_set(task_of("before"), 9, 4, 1));
  CHECK_THROWS(direction_test_set(task_of("after"), 9, 32, 1));
}

TEST_CASE("direction: the exact readers on hand-made sequences") {
  using namespace direction_test;
  const CueTaskConfig before = task_of("before"), nearest = task_of("nearest");
  const int A = before.alphabet, Q = before.query_token_id();
  // symbols: marked s is A + s. Row 3 is the query; a mark of 2 two rows before, a mark of 5 one row after.
  const std::vector<int> x = {0, A + 2, 1, Q, A + 5, 3, A + 2};
  CueBatch b = one(x, 3, 2);  // before: 2
  // the unsigned-distance reader answers the nearest mark (5): wrong for `before`
  CHECK(direction_distance_reader_accuracy(before, b) == 0.0);
  // the bag reader: marks 2, 5, 2: symbol 2 is the most frequent
  CHECK(cue_bag_reader_accuracy(before, b) == 1.0);
  b.targets = {5};  // nearest: 5, which the distance reader finds and the bag reader misses
  CHECK(direction_distance_reader_accuracy(nearest, b) == 1.0);
  CHECK(cue_bag_reader_accuracy(nearest, b) == 0.0);
  // a tie in the bag is split: marks 1 and 6 once each
  const CueBatch tie = one({A + 1, 0, Q, 0, A + 6}, 2, 1);
  CHECK(cue_bag_reader_accuracy(before, tie) == 0.5);
  CHECK(direction_distance_reader_accuracy(before, one({A + 1, A + 4, Q, 0, A + 6}, 2, 4)) == 1.0);
  // on a drawn test set the distance reader is perfect for `nearest`, and about 1/2 + 1/2 * 1/8 for `before`
  CHECK(direction_distance_reader_accuracy(nearest, direction_test_set(nearest, 3, 32, 2000)) == 1.0);
  const double bd = direction_distance_reader_accuracy(before, direction_test_set(before, 3, 32, 2000));
  CHECK(bd > 0.5);
  CHECK(bd < 0.65);
}

TEST_CASE("direction: a bidirectional head's answer changes when a token after its query changes") {
  using namespace direction_test;
  for (const std::string scheme : {"none", "sinusoidal", "rope", "alibi", "t5", "shaw", "txl", "deberta"}) {
    CAPTURE(scheme);
    CueModelConfig cfg;
    cfg.task = task_of("before");
    cfg.d_model = 8;
    cfg.scheme.name = scheme;
    cfg.scheme.train_length = 16;
    cfg.scheme.bidirectional = true;
    CueHead<double> h(cfg);
    h.init(3);
    h.prepare(16);
    CueBatch b = direction_test_set(cfg.task, 5, 16, 4);
    auto logits = [&](const CueBatch& batch) {
      CueWorkspace<double> ws;
      ws.query_rows = batch.query_rows.data();
      h.forward(batch.tokens.data(), batch.targets.data(), batch.B, batch.T, ws);
      return ws.logits;
    };
    const std::vector<double> l0 = logits(b);
    CueBatch changed = b;
    for (int i = 0; i < b.B; ++i) {  // the last token (after every query) turned into another marked symbol
      int& x = changed.tokens[size_t(i) * 16 + 15];
      x = cfg.task.alphabet + (x % cfg.task.alphabet + 1) % cfg.task.alphabet;
    }
    const std::vector<double> l1 = logits(changed);
    for (int i = 0; i < b.B; ++i) {
      double gap = 0;
      for (int c = 0; c < cfg.task.alphabet; ++c)
        gap = std::max(gap, std::abs(l0[size_t(i) * 8 + c] - l1[size_t(i) * 8 + c]));
      CHECK(gap > 1e-9);
    }
  }
}

TEST_CASE("direction: the task is registered, bidirectional, and trains through the cue head's loop") {
  using namespace direction_test;
  REQUIRE(task_exists("direction"));
  const Task& t = find_task("direction");
  CHECK(t.reads("direction_rule"));
  CHECK_FALSE(t.reads("visibility"));  // always bidirectional: the key does not apply
  CHECK_THROWS(t.validate({{"direction_rule", "after"}}));
  CHECK_NOTHROW(t.validate({{"direction_rule", "nearest"}}));
  // the shared trainer reads at each sequence's query row: a few steps of `nearest` with RoPE learn
  // something (far above the bag reader), and the accuracy reads at the test set's query rows
  CueModelConfig cfg;
  cfg.task = task_of("nearest");
  cfg.scheme.name = "rope";
  cfg.scheme.train_length = 32;
  cfg.scheme.bidirectional = true;
  CueHead<float> h(cfg);
  h.init(1);
  CueHeadTrainer trainer(h, AdamConfig{1e-2, 0.9, 0.999, 1e-8, 0.0});
  for (int step = 1; step <= 300; ++step) trainer.step(direction_train_batch(cfg.task, 1, step, 128, 32), false, step);
  const CueBatch test = direction_test_set(cfg.task, 777, 32, 1000);
  const auto acc = cue_accuracy(h, test);
  REQUIRE(acc);
  CHECK(*acc > cue_bag_reader_accuracy(cfg.task, test) + 0.1);
  // read at the last row instead, the same head answers otherwise
  CueBatch last = test;
  last.query_rows.clear();
  CHECK(*cue_accuracy(h, last) != *acc);
}
