// The experiment runner (harness/experiment.h), shared by every task: what results.json records,
// resuming a killed experiment, and the char LM's fine-tuned readings placed after their map's.
#include <doctest/doctest.h>

#include <filesystem>

#include "core/files.h"
#include "core/progress.h"
#include "harness/config.h"
#include "harness/checkpoint.h"
#include "harness/experiment.h"
#include "harness/run_dir.h"
#include "tasks/task.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
json small_cue(const std::string& dir) {
  json c = default_config("cue");
  c["schemes"] = {"rope", "alibi"};
  c["seeds"] = {0, 1};
  c["steps"] = 40;
  c["test_size"] = 64;
  c["eval_lengths"] = {32, 64};
  c["rescale"] = json::array();
  c["reference"] = "";
  c["runs_dir"] = dir + "/runs";
  c["out_dir"] = dir;
  complete_config(c);
  return c;
}
}  // namespace

TEST_CASE("the runner records every run, and --resume keeps complete runs with the same config") {
  const std::string dir = (fs::temp_directory_path() / "pe-bench-test-runner").string();
  fs::remove_all(dir);
  const json cfg = small_cue(dir);
  const Task& cue = find_task("cue");
  const ExperimentReport first = run_experiment(cue, cfg, RunControl{true, 2, false});
  CHECK(first.runs == 4);
  CHECK(first.total_steps == 4 * 40);
  const json r = json::parse(read_file(dir + "/results.json"));
  REQUIRE(r.at("training").size() == 4);
  CHECK(r["training"][0]["scheme"] == "rope");
  CHECK(r["training"][1]["seed"] == 1);
  CHECK(r["training"][3]["steps"] == 40);
  CHECK(!r.contains("reference"));  // none given
  CHECK(r.at("experiment") == cfg);
  CHECK(file_exists(dir + "/table.md"));
  const std::string results = read_file(dir + "/results.json"), ckpt = read_file(dir + "/runs/cue/alibi/seed1/checkpoint.json");

  // a killed experiment: one run directory lost; --resume trains that one only, and ends where an
  // uninterrupted run ends
  fs::remove_all(dir + "/runs/cue/alibi/seed1");
  const ExperimentReport resumed = run_experiment(cue, cfg, RunControl{true, 2, true});
  CHECK(resumed.total_steps == 40);
  CHECK(resumed.kept == 3);
  CHECK(resumed.text.find("--resume: kept 3 complete runs, continued 0 from a saved state, trained 1 from the start") !=
        std::string::npos);
  CHECK(read_file(dir + "/results.json") == results);
  CHECK(read_file(dir + "/runs/cue/alibi/seed1/checkpoint.json") == ckpt);

  // another config is trained again, not kept
  json other = cfg;
  other["lr"] = 5e-3;
  const ExperimentReport changed = run_experiment(cue, other, RunControl{true, 2, true});
  CHECK(changed.total_steps == 4 * 40);
  CHECK(read_file(dir + "/runs/cue/alibi/seed1/checkpoint.json") != ckpt);
  fs::remove_all(dir);
}

TEST_CASE("a run directory is whole or absent, locked while written, and readers name what is wrong") {
  const std::string root = (fs::temp_directory_path() / "pe-bench-test-rundir").string();
  fs::remove_all(root);
  const std::string dir = root + "/runs/cue/rope/seed0";
  write_run_dir(dir, json{{"scheme", "rope"}, {"seed", 0}}, "{}\n", "old");
  write_file_atomic(dir + "/extra.txt", "from an older run");
  // replacing swaps the whole directory: nothing of the old one is left, and no temporary either
  write_run_dir(dir, json{{"scheme", "rope"}, {"seed", 0}}, "{}\n", "new");
  CHECK(read_file(dir + "/checkpoint.json") == "new");
  CHECK(!file_exists(dir + "/extra.txt"));
  for (auto& e : fs::directory_iterator(root + "/runs/cue/rope")) CHECK(e.path().filename() == "seed0");
  // one writer at a time
  {
    const RunDirLock first(dir);
    CHECK_THROWS_WITH_AS(RunDirLock{dir}, doctest::Contains("another pe-bench process is writing"), UsageError);
  }
  CHECK(!file_exists(dir + ".lock"));  // released and removed
  CHECK_NOTHROW(RunDirLock{dir});

  // readers: a real checkpoint, then each kind of damage
  json cfg = small_cue(root);
  cfg["schemes"] = {"rope"};
  cfg["seeds"] = {0};
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  Progress quiet(true);
  fs::remove_all(root + "/runs");
  const TaskRun run = find_task("cue").train(e, cfg, "rope", 0, quiet);
  CHECK(find_checkpoints(root + "/runs", "cue").size() == 1);
  write_file_atomic(root + "/runs/cue/rope/seed0.tmp.99.1/config.json", "{}");
  CHECK_THROWS_WITH_AS(find_checkpoints(root + "/runs", "cue"), doctest::Contains("stale temporary file"), DataError);
  fs::remove_all(root + "/runs/cue/rope/seed0.tmp.99.1");
  write_file_atomic(root + "/runs/cue/rope/seed1/config.json", "{}");
  CHECK_THROWS_WITH_AS(find_checkpoints(root + "/runs", "cue"), doctest::Contains("is incomplete"), DataError);
  fs::remove_all(root + "/runs/cue/rope/seed1");
  json c = json::parse(read_file(run.run_dir + "/config.json"));
  c["seed"] = 5;
  write_file_atomic(run.run_dir + "/config.json", c.dump());
  CHECK_THROWS_WITH_AS(find_checkpoints(root + "/runs", "cue"), doctest::Contains("mixes runs"), DataError);
  // an experiment that repeats a seed is refused before anything runs
  json rep = small_cue(root);
  rep["seeds"] = {0, 0};
  CHECK_THROWS_WITH_AS(ExperimentConfig::from_json(rep), doctest::Contains("appears twice"), ConfigError);
  fs::remove_all(root);
}
