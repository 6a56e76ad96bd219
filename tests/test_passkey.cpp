// The passkey task (docs/tasks.md, section 4): its sequences, its keys and their checks, a run that
// learns, a stopped run that --resume ends byte-identical, and its reading.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <set>

#include "core/errors.h"
#include "core/files.h"
#include "core/interrupt.h"
#include "harness/config.h"
#include "harness/task.h"
#include "harness/training_state.h"
#include "scratch.h"
#include "tasks/passkey/data.h"
#include "tasks/passkey/evaluation.h"
#include "tasks/passkey/training.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json small_config(const std::string& runs) {
  json c = default_config("passkey");
  c["runs_dir"] = runs;
  c["steps"] = 40;
  c["batch_size"] = 16;
  c["log_every"] = 10;
  c["checkpoint_every"] = 10;
  c["d_model"] = 32;
  c["train_length"] = 24;
  c["eval_lengths"] = {24, 48};
  c["depths"] = 3;
  c["cell_sequences"] = 8;
  complete_config(c);
  return c;
}
}  // namespace

TEST_CASE("a passkey sequence: filler, the key at its depth, the query, the key again; scored on the answer rows") {
  const PasskeySpec spec;  // 4 symbols of 10, 16 filler words
  const int n = 40, F = n - 1 - 2 * spec.symbols;
  for (double depth : {0.0, 0.5, 1.0}) {
    std::vector<int> x(n), y(n);
    const int p = passkey_offset(spec, n, depth);
    CHECK(p == int(std::lround(depth * F)));
    passkey_test_sequence(spec, 777, n, 0, depth, 3, x.data(), y.data());
    CHECK(x[p] == spec.pass_token());
    CHECK(x[n - spec.symbols] == spec.query_token());
    std::set<int> key;
    for (int i = 0; i < spec.symbols; ++i) {
      const int s = x[p + 1 + i];
      CHECK(s >= spec.filler);
      CHECK(s < spec.filler + spec.alphabet);
      key.insert(s);
      CHECK(y[n - spec.symbols + i] == s);  // at QUERY: s1; at each copied symbol: the next
      if (i + 1 < spec.symbols) CHECK(x[n - spec.symbols + 1 + i] == s);
    }
    CHECK(key.size() == size_t(spec.symbols));  // distinct
    for (int i = 0; i < n; ++i) {
      if (i >= n - spec.symbols) continue;
      CHECK(y[i] == -1);
      if (i < p || (i > p + spec.symbols && i < n - spec.symbols)) CHECK(x[i] < spec.filler);  // filler only
    }
    // the same cell and index: the same sequence (shared by every reader)
    std::vector<int> x2(n), y2(n);
    passkey_test_sequence(spec, 777, n, 0, depth, 3, x2.data(), y2.data());
    CHECK(x2 == x);
  }
  CHECK(spec.token_names().size() == size_t(spec.vocab()));
  CHECK(spec.token_names()[size_t(spec.pass_token())] == "PASS");
}

TEST_CASE("passkey keys: declared by the task, refused by the others, checked together") {
  const Task& passkey = find_task("passkey");
  CHECK(passkey.reads("passkey_symbols"));
  CHECK(passkey.reads("n_layers"));
  CHECK(!find_task("cue").reads("passkey_symbols"));
  CHECK(!passkey.reads("alphabet"));  // the cue task's
  json c = default_config("passkey");
  CHECK(c["n_layers"] == 3);  // its own default, not the char LM's
  CHECK(!c.contains("alphabet"));
  merge_config(c, json{{"alphabet", 4}}, "test");  // a key of the table...
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("key 'alphabet' does not apply to the passkey task"),
                       ConfigError);  // ...that this task does not read
  json short_len = default_config("passkey");
  short_len["train_length"] = 9;  // a 4-symbol passkey needs 10
  CHECK_THROWS_WITH_AS(validate_config(short_len), doctest::Contains("key 'train_length': length 9 cannot hold"),
                       ConfigError);
  json alpha = default_config("passkey");
  alpha["passkey_symbols"] = 6;
  alpha["passkey_alphabet"] = 5;
  CHECK_THROWS_WITH_AS(validate_config(alpha), doctest::Contains("passkey_alphabet"), ConfigError);
  json renamed = default_config("passkey");
  CHECK_THROWS_WITH_AS(merge_config(renamed, json{{"rescale", {"pi"}}}, "test"),
                       doctest::Contains("key 'rescale' was renamed 'maps'"), ConfigError);
}

TEST_CASE("a passkey run: stopped at a step boundary, --resume ends byte-identical; its reading") {
  const std::string dir = pe::test::fresh_scratch_dir("passkey-resume");
  const json cfg = small_config(dir + "/runs");
  ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun ref = train_passkey(e, cfg, "rope", 1);
  CHECK(ref.steps == 40);
  const std::string expected = read_file(ref.checkpoint) + read_file(ref.run_dir + "/metrics.jsonl");
  fs::remove_all(ref.run_dir);
  try {
    train_passkey(e, cfg, "rope", 1, [](int step, int, double) {
      if (step == 20) request_stop(SIGINT);
    });
    FAIL("the run was not stopped");
  } catch (const Interrupted&) {
  }
  clear_stop();
  REQUIRE(file_exists(training_state_path(ref.run_dir)));
  e.resume = true;
  const TrainedRun resumed = train_passkey(e, cfg, "rope", 1);
  CHECK(resumed.resumed_at == 20);
  CHECK(read_file(resumed.checkpoint) + read_file(resumed.run_dir + "/metrics.jsonl") == expected);
  // kept whole on a second --resume
  CHECK(train_passkey(e, cfg, "rope", 1).kept);

  const LoadedPasskey cp = load_passkey_checkpoint(ref.checkpoint);
  CHECK(cp.train_length == 24);
  CHECK(cp.model->config().n_layers == 3);
  const json r = evaluate_passkey({ref.checkpoint}, PasskeyReadSettings{{24, 48}, {parse_map("pi")}, 3, 8, 5}, false);
  REQUIRE(r["rows"].size() == 2);  // rope, rope+pi
  CHECK(r["rows"][1]["map"] == "pi");
  for (auto& row : r["rows"]) {
    REQUIRE(row["whole"].size() == 1);
    for (auto& len : row["whole"][0]) {
      REQUIRE(len.size() == 3);
      for (auto& v : len) CHECK((v.get<double>() >= 0 && v.get<double>() <= 1));
    }
  }
  // at the training length the map is the identity: the same reading
  CHECK(r["rows"][0]["whole"][0][0] == r["rows"][1]["whole"][0][0]);
  // a length that cannot hold the passkey is refused
  CHECK_THROWS_AS(evaluate_passkey({ref.checkpoint}, PasskeyReadSettings{{9}, {}, 3, 8, 5}, false), UsageError);
  fs::remove_all(dir);
}
