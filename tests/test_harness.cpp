// The harness: learned-table nulls, determinism across threads, checkpoints, config, bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/errors.h"
#include "core/files.h"
#include "core/parallel.h"
#include "core/params.h"
#include "harness/config.h"
#include "harness/head_loop.h"
#include "scratch.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/evaluation.h"
#include "tasks/cue/training.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
json quick_config(const std::string& dir) {
  json c = default_config();
  c["steps"] = 40;
  c["batch_size"] = 96;  // not a multiple of the chunk size on purpose
  c["test_sequences"] = 300;
  c["runs_dir"] = dir + "/runs";
  c["out_dir"] = dir;
  return c;
}
}  // namespace

TEST_CASE("the learned table cannot read past its rows: null in JSON, a dash in tables") {
  const std::string dir = pe::test::fresh_scratch_dir("learned");
  const json cfg = quick_config(dir);
  const auto e = ExperimentConfig::from_json(cfg);
  const auto out = train_cue(e, cfg, "learned", 0);
  const EvalSettings s{{32, 33, 64}, 200, 5, {}};
  const Evaluation ev = evaluate_checkpoints({out.checkpoint}, s, false);
  const auto& rows = ev.rows;
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].seeds[0].accuracy[0].has_value());
  CHECK_FALSE(rows[0].seeds[0].accuracy[1].has_value());
  CHECK_FALSE(rows[0].seeds[0].accuracy[2].has_value());
  const json r = results_json(ev, s);
  CHECK(r["bag_reader_on_test_set"].size() == 3);
  CHECK(r["rows"][0]["mean"][0].is_number());
  CHECK(r["rows"][0]["mean"][1].is_null());
  CHECK(r["rows"][0]["seeds"][0]["accuracy"][2].is_null());
  CHECK(format_results_table(r).find("—") != std::string::npos);
  CHECK(format_results_markdown(r, nullptr).find("—") != std::string::npos);
}

TEST_CASE("same config and seed give byte-identical checkpoints with 1 thread or 2") {
  const std::string d1 = pe::test::fresh_scratch_dir("det1"), d2 = pe::test::fresh_scratch_dir("det2");
  for (auto scheme : {"rope", "learned"}) {
    json c1 = quick_config(d1), c2 = quick_config(d2);
    c2["runs_dir"] = c1["runs_dir"];  // same recorded config; written to different places below
    set_threads(1);
    const auto m1 = train_cue_model(ExperimentConfig::from_json(c1), scheme, 3);
    set_threads(2);
    const auto m2 = train_cue_model(ExperimentConfig::from_json(c2), scheme, 3);
    set_threads(0);
    CHECK(head_checkpoint(m1, {}, "cue").dump() == head_checkpoint(m2, {}, "cue").dump());
    const CueBatch test = cue_test_set(m1.config().task, 1, 32, 500);
    set_threads(1);
    const auto a1 = cue_accuracy(m1, test);
    set_threads(2);
    const auto a2 = cue_accuracy(m1, test);
    CHECK(*a1 == *a2);
  }
  set_threads(0);
}

TEST_CASE("a checkpoint round-trips: same parameters, same accuracy") {
  const std::string dir = pe::test::fresh_scratch_dir("roundtrip");
  const json cfg = quick_config(dir);
  const auto out = train_cue(cfg.is_null() ? ExperimentConfig{} : ExperimentConfig::from_json(cfg), cfg, "alibi", 1);
  const auto cp = load_checkpoint(out.checkpoint);
  CHECK(cp.model->config().scheme.name == "alibi");
  CHECK(cp.meta["training"]["seed"] == 1);
  const auto model = train_cue_model(ExperimentConfig::from_json(cfg), "alibi", 1);
  CHECK(cp.model->params() == model.params());
  CHECK(fs::exists(out.run_dir + "/config.json"));
  CHECK(fs::exists(out.run_dir + "/metrics.jsonl"));
  // no temporary files left behind
  for (auto& f : fs::directory_iterator(out.run_dir)) CHECK(f.path().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("bad checkpoints are clear errors: missing, corrupt, other version, mismatched shape") {
  const std::string dir = pe::test::fresh_scratch_dir("badcp");
  const json cfg = quick_config(dir);
  const auto out = train_cue(ExperimentConfig::from_json(cfg), cfg, "learned", 0);
  CHECK_THROWS_AS(load_checkpoint(dir + "/nope.json"), CheckpointError);
  const std::string text = read_file(out.checkpoint);
  write_file_atomic(dir + "/truncated.json", text.substr(0, text.size() / 2));
  CHECK_THROWS_WITH_AS(load_checkpoint(dir + "/truncated.json"), doctest::Contains("not valid JSON"), CheckpointError);
  json j = json::parse(text);
  j["version"] = 99;
  write_json_atomic(dir + "/v99.json", j);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir + "/v99.json"), doctest::Contains("version 99"), CheckpointError);
  j = json::parse(text);
  j["scheme"]["learned_rows"] = 64;  // the table in the file has 32 rows
  write_json_atomic(dir + "/shape.json", j);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir + "/shape.json"), doctest::Contains("pos.table"), CheckpointError);
  j = json::parse(text);
  j["params"][0]["name"] = "renamed";
  write_json_atomic(dir + "/name.json", j);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir + "/name.json"), doctest::Contains("missing"), CheckpointError);
  j = json::parse(text);
  j["scheme"]["name"] = "fourier";
  write_json_atomic(dir + "/scheme.json", j);
  CHECK_THROWS_AS(load_checkpoint(dir + "/scheme.json"), CheckpointError);
  j = json::parse(text);
  j["scheme"]["learned_rows"] = 16;  // fewer rows than the training length it states
  write_json_atomic(dir + "/rows.json", j);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir + "/rows.json"), doctest::Contains("train_length is 32"), CheckpointError);
  j = json::parse(text);
  j["version"] = 4294967297;  // not version 1 once cut to 32 bits
  write_json_atomic(dir + "/v64.json", j);
  CHECK_THROWS_WITH_AS(load_checkpoint(dir + "/v64.json"), doctest::Contains("version 4294967297"), CheckpointError);
}

TEST_CASE("experiment files list what differs; --set applies last; unknown keys and wrong types are errors") {
  const std::string dir = pe::test::fresh_scratch_dir("config");
  write_file_atomic(dir + "/exp.json", R"({"steps": 10, "schemes": ["rope"]})");
  json c = load_experiment(dir + "/exp.json");
  CHECK(c["steps"] == 10);
  CHECK(c["batch_size"] == 256);  // default kept
  apply_override(c, "steps=20");
  apply_override(c, "eval_lengths=32,64");
  apply_override(c, "lr=0.003");
  CHECK(c["steps"] == 20);
  CHECK(c["eval_lengths"] == json::array({32, 64}));
  CHECK(c["lr"] == 0.003);
  write_file_atomic(dir + "/typo.json", R"({"step": 10})");
  CHECK_THROWS_WITH_AS(load_experiment(dir + "/typo.json"), doctest::Contains("unknown key 'step'"), ConfigError);
  write_file_atomic(dir + "/type.json", R"({"steps": "many"})");
  CHECK_THROWS_WITH_AS(load_experiment(dir + "/type.json"), doctest::Contains("'steps' must be an integer"),
                       ConfigError);
  write_file_atomic(dir + "/broken.json", R"({"steps": 10,)");
  CHECK_THROWS_WITH_AS(load_experiment(dir + "/broken.json"), doctest::Contains("not valid JSON"), ConfigError);
  CHECK_THROWS_AS(load_experiment(dir + "/absent.json"), ConfigError);
  CHECK_THROWS_WITH_AS(apply_override(c, "stepz=3"), doctest::Contains("unknown key 'stepz'"), ConfigError);
  CHECK_THROWS_WITH_AS(apply_override(c, "steps=3.5"), doctest::Contains("steps"), ConfigError);
  CHECK_THROWS_AS(apply_override(c, "steps"), ConfigError);
  c["schemes"] = json::array({"rope", "fourier"});
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("unknown scheme 'fourier'"), UsageError);
  c = default_config();
  c["task"] = "filings2";
  CHECK_THROWS_WITH_AS(validate_config(c), doctest::Contains("unknown task"), ConfigError);
}

TEST_CASE("length lists must be positive integers") {
  CHECK(parse_length_list("32,64, 128", "--lengths") == std::vector<int>{32, 64, 128});
  for (auto bad : {"", "32,,64", "32,abc", "0", "-5", "32;64", "1e3", "64,"})
    CHECK_THROWS_AS(parse_length_list(bad, "--lengths"), UsageError);
}

TEST_CASE("unknown schemes are named, with the known ones") {
  SchemeConfig c;
  c.name = "fourier";
  CHECK_THROWS_WITH_AS(make_scheme<float>(c), doctest::Contains("known: none, sinusoidal, learned, rope, alibi"),
                       UsageError);
}

TEST_CASE("results are written atomically: a failed write leaves the old file intact") {
  const std::string dir = pe::test::fresh_scratch_dir("atomic");
  write_file_atomic(dir + "/r.json", "old");
  CHECK_THROWS_AS(write_file_atomic(dir + "/r.json/x", "new"), IoError);  // parent is a file
  CHECK(read_file(dir + "/r.json") == "old");
}

TEST_CASE("a non-finite loss or parameter stops training, naming the step and the first tensor") {
  ParamLayout layout;
  layout.add("a", 2, 2);
  layout.add("b", 1, 3);
  std::vector<float> p(layout.total(), 0.5f), g(layout.total(), 0.0f);
  CHECK_NOTHROW(check_finite_step(3, 0.7, layout, p.data(), g.data(), 0.01));
  CHECK_THROWS_WITH_AS(check_finite_step(3, std::nan(""), layout, p.data(), g.data(), 0.01),
                       doctest::Contains("training diverged at step 3: the loss is nan"), TrainingDiverged);
  g[5] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH_AS(check_finite_step(4, 0.7, layout, p.data(), g.data(), 0.01),
                       doctest::Contains("the gradient of b is not finite"), TrainingDiverged);
  p[1] = std::nanf("");
  CHECK_THROWS_WITH_AS(check_finite_step<float>(5, 0.7, layout, p.data(), nullptr, 0.01),
                       doctest::Contains("a is not finite"), TrainingDiverged);
  CHECK(TrainingDiverged("x").exit_code() == 7);
}

TEST_CASE("every key's domain is checked in one place: files, --set and resolved configs") {
  json cfg = default_config("cue");
  CHECK_THROWS_WITH_AS(apply_override(cfg, "steps=0"), doctest::Contains("key 'steps' must be an integer in [1, "),
                       ConfigError);
  CHECK_THROWS_WITH_AS(merge_config(cfg, json{{"lr", -1.0}}, "file.json"),
                       doctest::Contains("file.json: key 'lr' must be a finite number in (0, 1]"), ConfigError);
  CHECK_THROWS_WITH_AS(merge_config(cfg, json{{"eval_lengths", {32, 100000}}}, "f"),
                       doctest::Contains("every entry must be an integer in [2, 2048] (got 100000)"), ConfigError);
  json direct = cfg;
  direct["batch_size"] = 1000000;  // a config assembled without merge_config
  CHECK_THROWS_WITH_AS(validate_config(direct), doctest::Contains("batch_size"), ConfigError);
  CHECK(describe_keys().find("steps") != std::string::npos);
  CHECK(describe_keys().find("an integer in [1, 1000000]") != std::string::npos);
}
