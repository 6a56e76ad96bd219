// The experiment runner (harness/experiment.h), shared by every task: what results.json records,
// resuming a killed experiment, and the char LM's fine-tuned readings placed after their map's.
#include <doctest/doctest.h>

#include <filesystem>

#include "core/files.h"
#include "harness/config.h"
#include "harness/experiment.h"
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
