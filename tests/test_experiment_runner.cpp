// The experiment runner (harness/experiment.h), shared by every task: what results.json records,
// resuming a killed experiment, and the char LM's fine-tuned readings placed after their map's.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "core/files.h"
#include "core/progress.h"
#include "harness/checkpoint.h"
#include "harness/config.h"
#include "harness/experiment.h"
#include "harness/run_dir.h"
#include "harness/task.h"
#include "scratch.h"
#include "tasks/charlm/training.h"

#include <fmt/format.h>
#include <cmath>

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {
json small_cue(const std::string& dir) {
  json c = default_config("cue");
  c["schemes"] = {"rope", "alibi"};
  c["seeds"] = {0, 1};
  c["steps"] = 40;
  c["test_sequences"] = 64;
  c["eval_lengths"] = {32, 64};
  c["maps"] = json::array();
  c["reference"] = "";
  c["runs_dir"] = dir + "/runs";
  c["out_dir"] = dir;
  complete_config(c);
  return c;
}
}  // namespace

TEST_CASE("the runner records every run, and --resume keeps complete runs with the same config") {
  const std::string dir = pe::test::scratch_path("runner").string();
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
  const std::string results = read_file(dir + "/results.json"),
                    ckpt = read_file(dir + "/runs/cue/alibi/seed1/checkpoint.json");

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
  const std::string root = pe::test::scratch_path("rundir").string();
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
  const TrainedRun run = find_task("cue").trainer().train(e, cfg, "rope", 0, quiet);
  CHECK(find_checkpoints(root + "/runs", "cue").size() == 1);
  // a dead process's temporary is skipped; a live one's is a run being written, waited for
  write_file_atomic(root + "/runs/cue/rope/seed0.tmp.999999999.1/config.json", "{}");
  CHECK(find_checkpoints(root + "/runs", "cue").size() == 1);
  fs::remove_all(root + "/runs/cue/rope/seed0.tmp.999999999.1");
  const std::string live = root + "/runs/cue/rope/seed0.tmp." + std::to_string(::getpid()) + ".1";
  write_file_atomic(live + "/config.json", "{}");
  CHECK_THROWS_WITH_AS(find_checkpoints(root + "/runs", "cue"),
                       doctest::Contains("is being written by pe-bench process"), UsageError);
  fs::remove_all(live);
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

TEST_CASE("compare: the paired differences agree with the results' per-seed accuracies; unknown readers are named") {
  const std::string dir = pe::test::scratch_path("compare").string();
  fs::remove_all(dir);
  json cfg = small_cue(dir);
  cfg["seeds"] = {0, 1, 2};
  cfg["maps"] = {"pi"};
  cfg["test_sequences"] = 500;
  const Task& cue = find_task("cue");
  const ExperimentReport rep = run_experiment(cue, cfg, RunControl{true, 2, false});
  const json& r = rep.results;
  // rows: rope, rope+pi, alibi; at 64 (index 1)
  double diff_sum = 0;
  std::vector<double> per_seed;
  for (int s = 0; s < 3; ++s) {
    per_seed.push_back(r["rows"][0]["seeds"][s]["accuracy"][1].get<double>() -
                       r["rows"][1]["seeds"][s]["accuracy"][1].get<double>());
    diff_sum += per_seed.back();
  }
  const std::string text = cue.reporter().compare(r, "rope", "rope+pi", 64, CompareSettings{500, 3});
  CHECK(text.find("rope − rope+pi at 64 (3 seeds, 500 test sequences each)") != std::string::npos);
  CHECK(text.find(fmt::format("across seeds (paired t, 2 df): {:+.3f}", diff_sum / 3)) != std::string::npos);
  // each seed's bootstrap is centred on that seed's difference, recomputed from its checkpoints
  for (int s = 0; s < 3; ++s)
    CHECK(text.find(fmt::format("seed {}, over the shared test sequences: {:+.3f}", s, per_seed[s])) !=
          std::string::npos);
  CHECK(text == cue.reporter().compare(r, "rope", "rope+pi", 64, CompareSettings{500, 3}));  // seeded
  CHECK_THROWS_WITH_AS(cue.reporter().compare(r, "rope+ntk", "rope", 64, {}), doctest::Contains("rope, rope+pi, alibi"),
                       UsageError);
  CHECK_THROWS_WITH_AS(cue.reporter().compare(r, "rope", "alibi", 128, {}), doctest::Contains("read at [32,64]"),
                       UsageError);
  // every row carries its statistics; the interval adds the test set's error to the seeds'
  const json& row = r["rows"][2];
  for (size_t li = 0; li < 2; ++li) {
    const double hw = row["half_width"][li], seed_hw = row["seed_half_width"][li], se = row["test_se"][li];
    CHECK(hw * hw == doctest::Approx(seed_hw * seed_hw + 1.959963984540054 * 1.959963984540054 * se * se));
    CHECK(se == doctest::Approx(std::sqrt(row["mean"][li].get<double>() * (1 - row["mean"][li].get<double>()) / 500)));
  }
  // the tables print the interval of a proportion, [lo, hi] inside [0, 1] around the mean
  for (size_t li = 0; li < 2; ++li) {
    CHECK(row["lo"][li].get<double>() <= row["mean"][li].get<double>());
    CHECK(row["mean"][li].get<double>() <= row["hi"][li].get<double>());
    CHECK(row["hi"][li].get<double>() <= 1);
  }
  CHECK(cue.reporter().table(r).find(fmt::format("{:.3f} [{:.3f}, {:.3f}]", row["mean"][0].get<double>(),
                                                 row["lo"][0].get<double>(), row["hi"][0].get<double>())) !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("char-LM summaries group the readings by label over seeds; compare pairs them by seed") {
  json rows = json::array();
  const double p[3][2] = {{6.0, 7.0}, {6.5, 7.9}, {7.0, 8.1}};
  for (int s = 0; s < 3; ++s) {
    rows.push_back({{"scheme", "rope"},
                    {"map", "none"},
                    {"band", 0},
                    {"finetuned", false},
                    {"seed", s},
                    {"perplexity", {p[s][0], p[s][1]}}});
    rows.push_back({{"scheme", "rope"},
                    {"map", "pi"},
                    {"band", 0},
                    {"finetuned", false},
                    {"seed", s},
                    {"perplexity", {p[s][0] + 0.5, nullptr}}});
  }
  const json sum = charlm_summary(rows);
  REQUIRE(sum.size() == 2);
  CHECK(sum[0]["label"] == "rope");
  CHECK(sum[0]["seeds"] == json({0, 1, 2}));
  CHECK(sum[0]["mean"][0].get<double>() == doctest::Approx(6.5));
  CHECK(sum[0]["sd"][0].get<double>() == doctest::Approx(0.5));
  CHECK(sum[0]["half_width"][0].get<double>() == doctest::Approx(4.302652729749464 * 0.5 / std::sqrt(3.0)));
  CHECK(sum[1]["mean"][1].is_null());
  const json results = {{"lengths", {128, 256}}, {"rows", rows}};
  const std::string text = compare_charlm_readers(results, "rope+pi", "rope", 128);
  CHECK(text.find("across seeds (paired t, 2 df): +0.50 [+0.50, +0.50]") != std::string::npos);
}
