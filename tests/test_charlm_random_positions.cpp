// Randomised positions on the char LM (harness/random_positions.h, docs/tasks.md "Randomised positions"):
// the key is checked against the readings that lay out positions of their own; a run records L, draws
// the same positions again and, for NoPE, trains the bits it trains without them; a reading draws each
// length's positions afresh (one pass per length) and refuses what it cannot read.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "core/errors.h"
#include "core/files.h"
#include "harness/checkpoint.h"
#include "harness/config.h"
#include "harness/random_positions.h"
#include "harness/task.h"
#include "scratch.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/training.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace charlm_random_positions_test {

const std::string kTimeMachine = std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt";

json experiment(const std::string& dir, const json& changes) {
  json cfg = default_config("charlm");
  cfg["corpus"] = kTimeMachine;
  cfg["runs_dir"] = dir + "/runs";
  cfg["out_dir"] = dir;
  cfg["d_model"] = 32;
  cfg["steps"] = 6;
  cfg["batch_size"] = 4;
  cfg["log_every"] = 1;
  cfg["train_length"] = 32;
  cfg["eval_lengths"] = {32, 64};
  cfg["finetune_steps"] = 0;
  cfg["val_windows"] = 8;
  cfg["eval_batch"] = 4;
  cfg["maps"] = json::array();
  for (auto& [k, v] : changes.items()) cfg[k] = v;
  complete_config(cfg);
  return cfg;
}

}  // namespace charlm_random_positions_test

TEST_CASE("charlm random positions: the key is checked against every reading that lays out positions") {
  const Task& task = find_task("charlm");
  auto check = [&](const json& changes, const std::string& key) {
    CAPTURE(changes.dump());
    try {
      json cfg = charlm_random_positions_test::experiment("unused", changes);
      task.validate(cfg);
      FAIL("accepted " << changes.dump());
    } catch (const ConfigError& err) {
      CHECK(std::string(err.what()).find(key) != std::string::npos);
    }
  };
  json ok = charlm_random_positions_test::experiment("unused", {{"random_positions", 256}});
  CHECK_NOTHROW(task.validate(ok));
  check({{"random_positions", 48}}, "eval_lengths");  // shorter than a length read
  check({{"random_positions", 16}}, "train_length");
  check({{"random_positions", 256}, {"packing", "padded"}}, "'packing'");
  check({{"random_positions", 256}, {"mem_len", 32}}, "'mem_len'");
  check({{"random_positions", 256}, {"read_layouts", {"documents"}}}, "'read_layouts'");
  check({{"random_positions", 256}, {"decode", "cached"}}, "'decode'");
  check({{"random_positions", 256}, {"cached_maps", {"dynamic"}}}, "'cached_maps'");
}

TEST_CASE("charlm random positions: a validation window's draw is named by its start, length and range") {
  std::vector<int> a(64), b(64), c(64);
  charlm_validation_positions(1000, 64, 512, a.data());
  charlm_validation_positions(1000, 64, 512, b.data());
  CHECK(a == b);
  for (int t = 0; t < 64; ++t)
    CHECK((a[size_t(t)] >= 0 && a[size_t(t)] < 512 && (t == 0 || a[size_t(t)] > a[size_t(t) - 1])));
  charlm_validation_positions(1001, 64, 512, c.data());
  CHECK(a != c);
  charlm_validation_positions(1000, 64, 1024, c.data());
  CHECK(a != c);
  std::vector<int> p(32), q(32);  // training batches: named by (seed, task, step, row), apart from passkey's
  draw_batch_positions(3, 0xC4A5, 7, 1, 32, 512, p);
  draw_batch_positions(3, 0x9A55, 7, 1, 32, 512, q);
  CHECK(p != q);
}

TEST_CASE("charlm random positions: a run records L, trains the same bits again, and NoPE is untouched") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-random-positions");
  const json plain = charlm_random_positions_test::experiment(dir + "/plain", {});
  const json drawn = charlm_random_positions_test::experiment(dir + "/drawn", {{"random_positions", 256}});
  const ExperimentConfig ep = ExperimentConfig::from_json(plain), ed = ExperimentConfig::from_json(drawn);
  // NoPE reads no position: the run with drawn positions is the plain run, bit for bit (but its record)
  const TrainedRun none_plain = train_charlm(ep, plain, "none", 0), none_drawn = train_charlm(ed, drawn, "none", 0);
  CHECK(read_file(none_plain.run_dir + "/metrics.jsonl") == read_file(none_drawn.run_dir + "/metrics.jsonl"));
  CHECK(load_charlm_checkpoint(none_plain.checkpoint).model->params() ==
        load_charlm_checkpoint(none_drawn.checkpoint).model->params());
  // RoPE reads them: another run, recorded, and the same bits when trained again
  const TrainedRun rope_plain = train_charlm(ep, plain, "rope", 0), rope = train_charlm(ed, drawn, "rope", 0);
  CHECK(read_file(rope_plain.run_dir + "/metrics.jsonl") != read_file(rope.run_dir + "/metrics.jsonl"));
  const std::string text = read_file(rope.checkpoint);
  CHECK(json::parse(text)["training"]["random_positions"] == 256);
  CHECK(!json::parse(read_file(rope_plain.checkpoint))["training"].contains("random_positions"));
  fs::remove_all(rope.run_dir);
  CHECK(read_file(train_charlm(ed, drawn, "rope", 0).checkpoint) == text);
  // a learned table must hold every position drawn
  json short_table = drawn;
  short_table["learned_rows"] = 128;
  CHECK_THROWS_WITH_AS(train_charlm(ExperimentConfig::from_json(short_table), short_table, "learned", 0),
                       doctest::Contains("random_positions 256"), ConfigError);
  fs::remove_all(dir);
}

TEST_CASE("charlm random positions: each length is its own pass at drawn positions; the reading follows the record") {
  const std::string dir = pe::test::fresh_scratch_dir("charlm-random-positions-read");
  const json drawn = charlm_random_positions_test::experiment(dir, {{"random_positions", 256}});
  const ExperimentConfig e = ExperimentConfig::from_json(drawn);
  const TrainedRun run = train_charlm(e, drawn, "rope", 0);
  const CharCorpus corpus = load_char_corpus(charlm_random_positions_test::kTimeMachine, kTimeMachineSha1);
  LoadedCharLM cp = load_charlm_checkpoint(run.checkpoint);
  const CharLMSettings cs = charlm_settings(e);
  const auto both = charlm_perplexities(*cp.model, corpus, {32, 64}, cs.val_start, cs.val_windows, cs.eval_batch,
                                        Visibility{}, 1, Packing::None, 256);
  REQUIRE(both.size() == 2);
  for (int i = 0; i < 2; ++i) {
    const int T = i == 0 ? 32 : 64;
    const PerplexityResult alone =
        charlm_perplexity(*cp.model, corpus, T, cs.val_start, cs.val_windows, cs.eval_batch, Visibility{}, 1, 256);
    CHECK(both[size_t(i)].loss == alone.loss);  // the same pass, the same bits
    const PerplexityResult consecutive =
        charlm_perplexity(*cp.model, corpus, T, cs.val_start, cs.val_windows, cs.eval_batch);
    CHECK(both[size_t(i)].loss != consecutive.loss);  // RoPE reads the drawn offsets
  }
  // the reading takes L from the checkpoint, labels its rows, and refuses a length past L
  const json r = evaluate_charlm({run.checkpoint},
                                 ExperimentConfig::from_json(charlm_random_positions_test::experiment(dir, {})), false);
  REQUIRE(r["rows"].size() == 1);
  CHECK(r["rows"][0]["random_positions"] == 256);
  CHECK(charlm_reading_label(r["rows"][0]) == "rope (random 256)");
  CHECK(r["rows"][0]["perplexity"][0].get<double>() == both[0].perplexity);  // the same pass
  const json too_long = charlm_random_positions_test::experiment(dir, {{"eval_lengths", {32, 512}}});
  CHECK_THROWS_WITH_AS(evaluate_charlm({run.checkpoint}, ExperimentConfig::from_json(too_long), false),
                       doctest::Contains("eval_lengths"), ConfigError);
  // read beside a run of the same scheme and seed at positions 0 .. n-1: two runs, labelled apart
  const json plain = charlm_random_positions_test::experiment(dir + "/plain", {});
  const TrainedRun other = train_charlm(ExperimentConfig::from_json(plain), plain, "rope", 0);
  CHECK_NOTHROW(check_distinct_runs({run.checkpoint, other.checkpoint}));
  CHECK_THROWS_AS(check_distinct_runs({run.checkpoint, run.checkpoint}), UsageError);
  const json both_rows =
      evaluate_charlm({run.checkpoint, other.checkpoint},
                      ExperimentConfig::from_json(charlm_random_positions_test::experiment(dir, {})), false);
  REQUIRE(both_rows["summary"].size() == 2);
  CHECK(both_rows["summary"][0]["label"] == "rope (random 256)");
  CHECK(both_rows["summary"][1]["label"] == "rope");
  const json cached = charlm_random_positions_test::experiment(dir, {{"decode", "cached"}});
  CHECK_THROWS_WITH_AS(evaluate_charlm({run.checkpoint}, ExperimentConfig::from_json(cached), false),
                       doctest::Contains("'decode'"), ConfigError);
  fs::remove_all(dir);
}
