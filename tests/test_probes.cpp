// The four probes (docs/tasks.md, "Probes"): each probe's sequences keep its rule in every cell (the answer
// rows say what the rule says, read back from the tokens), are the same for the same stream, fill exactly n
// tokens at every length from the shortest; their keys are checked; and a probe run trains, saves, loads and is
// read on the shared grid.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/errors.h"
#include "core/rng.h"
#include "harness/config.h"
#include "harness/probe_reading.h"
#include "harness/task.h"
#include "scratch.h"
#include "tasks/declarations/sequences.h"
#include "tasks/distractors/sequences.h"
#include "tasks/needles/sequences.h"
#include "tasks/order/sequences.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json default_shape(const ProbeKind& kind) {
  json shape = json::object();
  for (auto& k : kind.shape_keys) shape[k.key] = k.default_value;
  return shape;
}

struct Seq {
  std::vector<int> x, y, slot;
};
Seq draw(const ProbeSource& s, int n, int cell, uint64_t key) {
  Seq q{std::vector<int>(n), std::vector<int>(n), std::vector<int>(n)};
  s.sequence(key, n, cell, q.x.data(), q.y.data(), q.slot.data());
  return q;
}
int id_of(const ProbeSource& s, const std::string& name) {
  const auto names = s.token_names();
  return int(std::find(names.begin(), names.end(), name) - names.begin());
}

// Every probe: n tokens in the vocabulary, answers only where slots are, the same stream gives the same
// sequence, at the shortest length and at 300 tokens, in every cell and in training draws.
void check_common(const ProbeKind& kind) {
  const auto s = kind.make(default_shape(kind));
  const int V = int(s->token_names().size());
  for (int n : {s->min_length(), s->min_length() + 3, 300})
    for (int cell = -1; cell < int(s->cells().size()); ++cell)
      for (uint64_t key = 0; key < 20; ++key) {
        const Seq q = draw(*s, n, cell, key);
        int answers = 0;
        for (int i = 0; i < n; ++i) {
          CHECK(q.x[i] >= 0);
          CHECK(q.x[i] < V);
          CHECK((q.y[i] >= 0) == (q.slot[i] >= 0));
          if (q.y[i] < 0) continue;
          ++answers;
          CHECK(q.y[i] < V);
          CHECK(q.slot[i] < s->slots());
        }
        CHECK(answers >= 1);
        CHECK(q.y[n - 1] >= 0);  // the last row always answers
        const Seq again = draw(*s, n, cell, key);
        CHECK(again.x == q.x);
        CHECK(again.y == q.y);
      }
}

}  // namespace

TEST_CASE("the probes are registered tasks whose sequences fill n tokens and repeat for the same stream") {
  for (const ProbeKind& kind : {needles_kind(), distractors_kind(), order_kind(), declarations_kind()}) {
    INFO(kind.name);
    CHECK(find_task(kind.name).name() == kind.name);
    check_common(kind);
    const auto small = kind.make(kind.gradcheck_shape);
    CHECK(small->min_length() <= kind.gradcheck_length);
  }
}

TEST_CASE("multi-needle: the needles are spread and distinct; all in order, or the i-th") {
  const ProbeKind kind = needles_kind();
  const auto s = kind.make(default_shape(kind));
  const int NEEDLE = id_of(*s, "NEEDLE"), QUERY = id_of(*s, "QUERY"), ASK = id_of(*s, "ASK"), I1 = id_of(*s, "I1");
  REQUIRE(s->cells().size() == 6);
  for (int cell = 0; cell < 6; ++cell)
    for (uint64_t key = 0; key < 30; ++key) {
      const int n = 200, k = std::vector<int>{2, 4, 8}[cell / 2];
      const Seq q = draw(*s, n, cell, key);
      std::vector<int> needles, rows;
      for (int i = 0; i + 1 < n; ++i)
        if (q.x[i] == NEEDLE) needles.push_back(q.x[i + 1]), rows.push_back(i);
      REQUIRE(int(needles.size()) == k);
      CHECK(std::set<int>(needles.begin(), needles.end()).size() == size_t(k));
      // needle j lies in the j-th of k segments of the filler (the needles before it are not filler)
      for (int j = 0; j < k; ++j) {
        const int filler_before = rows[j] - 2 * j, F = cell % 2 == 0 ? n - 3 * k : n - 2 * k - 2;
        CHECK(filler_before >= long(F) * j / k);
        CHECK(filler_before <= long(F) * (j + 1) / k);
      }
      if (cell % 2 == 0) {  // all: QUERY s_1 .. s_k, answered one by one
        CHECK(q.x[n - k] == QUERY);
        for (int j = 0; j < k; ++j) {
          CHECK(q.y[n - k + j] == needles[j]);
          CHECK(q.slot[n - k + j] == j);
          if (j + 1 < k) CHECK(q.x[n - k + 1 + j] == needles[j]);
        }
      } else {  // the i-th: ASK I_i, answered s_i
        CHECK(q.x[n - 2] == ASK);
        const int i = q.x[n - 1] - I1;
        REQUIRE(i >= 0);
        REQUIRE(i < k);
        CHECK(q.y[n - 1] == needles[i]);
        CHECK(q.slot[n - 1] == i);
        CHECK(std::count_if(q.y.begin(), q.y.end(), [](int v) { return v >= 0; }) == 1);
      }
    }
  json bad = default_shape(kind);
  bad["needle_alphabet"] = 4;  // 8 needles cannot be distinct
  CHECK_THROWS_WITH_AS(kind.make(bad), doctest::Contains("needle_alphabet"), ConfigError);
}

TEST_CASE("relative order: two distinct marks at a gap of the cell's class; FIRST the earlier, SECOND the later") {
  const ProbeKind kind = order_kind();
  const auto s = kind.make(default_shape(kind));
  const int MARK = id_of(*s, "MARK"), FIRST = id_of(*s, "FIRST"), SECOND = id_of(*s, "SECOND");
  std::map<int, std::set<int>> gaps_seen;
  for (int n : {7, 64, 256})
    for (int cell = 0; cell < 6; ++cell)
      for (uint64_t key = 0; key < 40; ++key) {
        const Seq q = draw(*s, n, cell, key);
        std::vector<int> marks;
        for (int i = 0; i < n; ++i)
          if (q.x[i] == MARK) marks.push_back(i);
        REQUIRE(marks.size() == 2);
        CHECK(q.x[marks[0] + 1] != q.x[marks[1] + 1]);
        CHECK(q.x[n - 1] == (cell < 3 ? FIRST : SECOND));
        CHECK(q.y[n - 1] == q.x[marks[cell < 3 ? 0 : 1] + 1]);
        const int F = n - 5, g = marks[1] - marks[0] - 2;
        const int lo[3] = {0, F / 8 + 1, F / 2 + 1}, hi[3] = {F / 8, F / 2, F};
        CHECK(g >= lo[cell % 3]);
        CHECK(g <= hi[cell % 3]);
        if (n == 256) gaps_seen[cell % 3].insert(g);
      }
  for (auto& [c, gaps] : gaps_seen) CHECK(gaps.size() > 10);  // drawn, not fixed
}

TEST_CASE("distractors: one pair holds the queried key; each distractor shares exactly j symbols in place") {
  const ProbeKind kind = distractors_kind();
  const auto s = kind.make(default_shape(kind));
  const int KEY = id_of(*s, "KEY"), QUERY = id_of(*s, "QUERY"), m = 3;
  REQUIRE(s->cells().size() == 9);
  for (int cell = 0; cell < 9; ++cell)
    for (uint64_t key = 0; key < 30; ++key) {
      const int n = 128, c = std::vector<int>{1, 4, 8}[cell / m], j = cell % m;
      const Seq q = draw(*s, n, cell, key);
      CHECK(q.x[n - 1 - m] == QUERY);
      const std::vector<int> target(q.x.end() - m, q.x.end());
      int holders = 0;
      std::vector<int> pairs;
      for (int i = 0; i < n - m - 1; ++i)
        if (q.x[i] == KEY) pairs.push_back(i);
      REQUIRE(int(pairs.size()) == c + 1);
      for (int p : pairs) {
        int same = 0;
        for (int i = 0; i < m; ++i) same += q.x[p + 1 + i] == target[i];
        if (same == m) {
          ++holders;
          CHECK(q.y[n - 1] == q.x[p + 1 + m]);  // the answer is the queried pair's value
        } else {
          CHECK(same == j);
        }
      }
      CHECK(holders == 1);
      for (int p : pairs)  // every distractor's value differs from the answer
        if (!std::equal(target.begin(), target.end(), q.x.begin() + p + 1)) CHECK(q.x[p + 1 + m] != q.y[n - 1]);
    }
}

TEST_CASE("code: running the program prints the answer; the chain's root sits where its cell says") {
  const ProbeKind kind = declarations_kind();
  const auto s = kind.make(default_shape(kind));
  const int EQ = id_of(*s, "="), SEMI = id_of(*s, ";"), PRINT = id_of(*s, "PRINT"), N = 16;
  for (int n : {14, 15, 64, 301})
    for (int cell = -1; cell < 9; ++cell)
      for (uint64_t key = 0; key < 30; ++key) {
        const Seq q = draw(*s, n, cell, key);
        // an interpreter: each variable's value (a constant id, or unknown), statement by statement
        std::map<int, int> value;
        std::map<int, int> assigned_at;
        int i = (n - 2) % 4, statement = 0;
        for (int p = 0; p < i; ++p) CHECK(q.x[p] == SEMI);
        for (; i + 4 <= n - 2; i += 4, ++statement) {
          REQUIRE(q.x[i + 1] == EQ);
          REQUIRE(q.x[i + 3] == SEMI);
          const int lhs = q.x[i], rhs = q.x[i + 2];
          REQUIRE(lhs < N);
          if (rhs >= N)
            value[lhs] = rhs;
          else if (value.count(rhs))
            value[lhs] = value[rhs];
          else
            value.erase(lhs);
          assigned_at[lhs] = statement;
        }
        REQUIRE(q.x[n - 2] == PRINT);
        const int u = q.x[n - 1];
        REQUIRE(value.count(u));
        CHECK(q.y[n - 1] == value[u]);  // the program's own answer
        if (cell >= 0) {
          // the printed variable's chain: follow its copies back to the root
          const int L = cell / 3 + 1, S = (n - 2) / 4;
          int v = u, steps = 1, root = -1;
          for (int st = S - 1, want = v; st >= 0; --st) {
            const int at = (n - 2) % 4 + 4 * st;
            if (q.x[at] != want) continue;
            root = st;
            if (q.x[at + 2] >= N) break;
            want = q.x[at + 2], ++steps;
          }
          CHECK(steps == L);
          const int expect[3] = {0, int(std::lround(0.5 * (S - L))), S - L};
          CHECK(root == expect[cell % 3]);
        }
      }
}

TEST_CASE("a probe run: keys checked, trained, saved, loaded and read on the grid") {
  json c = default_config("needles");
  CHECK(c["n_layers"] == 3);
  CHECK(c["needle_counts"] == json({2, 4, 8}));
  CHECK(!find_task("passkey").reads("needle_counts"));
  c["train_length"] = 20;  // 8 needles and their question need 24
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("key 'train_length': length 20 cannot hold"), ConfigError);
  json bad = default_config("declarations");
  bad["code_variables"] = 3;
  CHECK_THROWS_WITH_AS(validate_config(bad), doctest::Contains("code_variables"), ConfigError);

  const std::string dir = pe::test::fresh_scratch_dir("probe-run");
  json cfg = default_config("order");
  cfg["runs_dir"] = dir + "/runs";
  cfg["steps"] = 20, cfg["batch_size"] = 8, cfg["log_every"] = 10, cfg["d_model"] = 16, cfg["train_length"] = 16;
  cfg["eval_lengths"] = {16, 32};
  cfg["cell_sequences"] = 5;
  complete_config(cfg);
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  Progress quiet(true);
  const TrainedRun run = find_task("order").trainer().train(e, cfg, "rope", 0, quiet);
  CHECK(run.steps == 20);
  const LoadedProbe cp = load_probe_checkpoint(order_kind(), run.checkpoint);
  CHECK(cp.train_length == 16);
  CHECK(cp.shape == json({{"order_alphabet", 16}, {"filler_words", 16}}));
  CHECK_THROWS_AS(load_probe_checkpoint(needles_kind(), run.checkpoint), CheckpointError);  // another task's
  const json r = evaluate_probe(order_kind(), {run.checkpoint}, {{16, 32}, {parse_map("pi")}, 5, 7}, false);
  REQUIRE(r["rows"].size() == 2);  // rope, rope+pi
  CHECK(r["cells"].size() == 6);
  for (auto& row : r["rows"]) {
    REQUIRE(row["whole"][0].size() == 2);
    for (auto& len : row["whole"][0]) {
      REQUIRE(len.size() == 6);
      for (auto& v : len) CHECK((v.get<double>() >= 0 && v.get<double>() <= 1));
    }
    CHECK(row["accuracy"].size() == 2);
  }
  CHECK(r["rows"][0]["whole"][0][0] == r["rows"][1]["whole"][0][0]);  // the map is the identity at 16
  CHECK_THROWS_AS(evaluate_probe(order_kind(), {run.checkpoint}, {{6}, {}, 5, 7}, false), UsageError);
  CHECK(!format_probe_markdown(r).empty());
  fs::remove_all(dir);
}
