// Interruption and resume (harness/training_state.h): a run stopped at a step boundary saves its
// state, and --resume ends byte-identical to an uninterrupted run, for both tasks; a periodic save
// survives a run that dies; readers name an interrupted run. (The same with real signals through
// the CLI: tests/interrupt_resume.sh.)
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>

#include "core/errors.h"
#include "core/files.h"
#include "core/interrupt.h"
#include "harness/checkpoint.h"
#include "harness/config.h"
#include "harness/experiment.h"
#include "harness/task.h"
#include "harness/training_state.h"
#include "scratch.h"
#include "tasks/charlm/training.h"
#include "tasks/cue/training.h"
#include "tasks/filings/training.h"

using namespace pe;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string files_of(const std::string& run_dir) {
  return read_file(run_dir + "/config.json") + read_file(run_dir + "/metrics.jsonl") +
         read_file(run_dir + "/checkpoint.json");
}

json cue_config(const std::string& runs) {
  json c = default_config("cue");
  c["steps"] = 60;
  c["log_every"] = 10;
  c["runs_dir"] = runs;
  complete_config(c);
  return c;
}

json charlm_config(const std::string& runs) {
  json c = default_config("charlm");
  c["corpus"] = std::string(PEBENCH_SOURCE_DIR) + "/data/timemachine.txt";
  c["runs_dir"] = runs;
  c["d_model"] = 32;
  c["steps"] = 30;
  c["batch_size"] = 8;
  c["lr"] = 3e-3;
  c["log_every"] = 10;
  c["checkpoint_every"] = 10;
  complete_config(c);
  return c;
}

}  // namespace

TEST_CASE("a cue run stopped at a step boundary saves its state, and --resume ends byte-identical") {
  const std::string dir = pe::test::fresh_scratch_dir("resume-cue");
  const json cfg = cue_config(dir + "/runs");
  ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const std::string run_dir = run_dir_for(e, "rope", 3);
  const std::string expected = files_of(train_cue(e, cfg, "rope", 3).run_dir);
  fs::remove_all(run_dir);
  // the stop arrives during step 30 (what the SIGINT handler does), seen at the step's end
  auto stop_at_30 = [](int step, int, double, double) {
    if (step == 30) request_stop(SIGINT);
  };
  try {
    train_cue(e, cfg, "rope", 3, stop_at_30);
    FAIL("the run was not stopped");
  } catch (const Interrupted& i) {
    CHECK(i.saved_state);
    CHECK(std::string(i.what()).find("at step 30 of 60") != std::string::npos);
    CHECK(std::string(i.what()).find("--resume") != std::string::npos);
  }
  clear_stop();
  CHECK(!fs::exists(run_dir));
  REQUIRE(file_exists(training_state_path(run_dir)));
  // a reader says the run is unfinished rather than reading around it
  CHECK_THROWS_WITH_AS(find_checkpoints(dir + "/runs"), doctest::Contains("interrupted"), DataError);

  e.resume = true;
  const TrainedRun out = train_cue(e, cfg, "rope", 3);
  CHECK(out.resumed_at == 30);
  CHECK(files_of(out.run_dir) == expected);
  CHECK(!file_exists(training_state_path(run_dir)));  // removed once the run directory is whole

  // a run that has not started when the stop comes saves nothing
  request_stop(SIGINT);
  CHECK_THROWS_AS(train_cue(e, cfg, "alibi", 3, [](int, int, double, double) {}), Interrupted);  // not started
  clear_stop();
  fs::remove_all(dir);
}

TEST_CASE("a filings run (windows named by seed and step) stopped and resumed ends byte-identical") {
  const std::string dir = pe::test::fresh_scratch_dir("resume-filings");
  json cfg = default_config("filings");
  cfg["steps"] = 40;
  cfg["log_every"] = 10;
  cfg["runs_dir"] = dir + "/runs";
  complete_config(cfg);
  ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const CueModelConfig mc = filings_model_config(e, "alibi");
  const std::string expected = files_of(train_head_run(e, cfg, "alibi", 2, mc, filings_windows(e, 2)).run_dir);
  const std::string run_dir = run_dir_for(e, "alibi", 2);
  CHECK(run_dir.find("/filings/alibi/seed2") != std::string::npos);
  fs::remove_all(run_dir);
  auto stop_at_20 = [](int step, int, double, double) {
    if (step == 20) request_stop(SIGTERM);
  };
  CHECK_THROWS_AS(train_head_run(e, cfg, "alibi", 2, mc, filings_windows(e, 2), stop_at_20), Interrupted);
  clear_stop();
  REQUIRE(file_exists(training_state_path(run_dir)));
  e.resume = true;
  const TrainedRun out = train_head_run(e, cfg, "alibi", 2, mc, filings_windows(e, 2));
  CHECK(out.resumed_at == 20);
  CHECK(files_of(out.run_dir) == expected);
  fs::remove_all(dir);
}

TEST_CASE("a char-LM run: stopped, or killed after a periodic save, --resume ends byte-identical") {
  const std::string dir = pe::test::fresh_scratch_dir("resume-charlm");
  const json cfg = charlm_config(dir + "/runs");
  ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun ref = train_charlm(e, cfg, "rope", 0);
  const std::string expected = files_of(ref.run_dir);
  fs::remove_all(ref.run_dir);

  SUBCASE("stopped by a signal") {
    try {
      train_charlm(e, cfg, "rope", 0, [](int step, int, double) {
        if (step == 20) request_stop(SIGTERM);
      });
      FAIL("the run was not stopped");
    } catch (const Interrupted& i) {
      CHECK(std::string(i.what()).find("SIGTERM at step 20 of 30") != std::string::npos);
    }
    clear_stop();
  }
  SUBCASE("killed after the periodic save at step 10") {
    // dies during step 20's logging, before that step's save: the state of step 10 is what is left
    CHECK_THROWS(train_charlm(e, cfg, "rope", 0, [](int step, int, double) {
      if (step == 20) throw std::runtime_error("killed");
    }));
    REQUIRE(file_exists(training_state_path(ref.run_dir)));
    CHECK(json::parse(read_file(training_state_path(ref.run_dir))).at("step") == 10);
  }
  REQUIRE(file_exists(training_state_path(ref.run_dir)));
  CHECK(!fs::exists(ref.run_dir));
  e.resume = true;
  const TrainedRun resumed = train_charlm(e, cfg, "rope", 0);
  CHECK(resumed.resumed_at > 0);
  CHECK(files_of(resumed.run_dir) == expected);
  CHECK(!file_exists(training_state_path(ref.run_dir)));
  fs::remove_all(dir);
}

TEST_CASE("a char-LM run with Transformer-XL's memory (mem_len) stopped mid-stream resumes byte-identical") {
  const std::string dir = pe::test::fresh_scratch_dir("resume-charlm-memory");
  json cfg = charlm_config(dir + "/runs");
  cfg["train_windows"] = 4096;  // 4 segments of 128 per stream of the batch of 8: memories emptied at steps 5, 9, ...
  cfg["mem_len"] = 64;
  ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun ref = train_charlm(e, cfg, "txl", 0);
  const std::string expected = files_of(ref.run_dir);
  fs::remove_all(ref.run_dir);
  try {
    train_charlm(e, cfg, "txl", 0, [](int step, int, double) {
      if (step == 20) request_stop(SIGTERM);  // step 20: the memory of the stream's third segment is saved
    });
    FAIL("the run was not stopped");
  } catch (const Interrupted&) {
  }
  clear_stop();
  const json state = json::parse(read_file(training_state_path(ref.run_dir)));
  CHECK(state.at("loop").at("memory").at("rows") == 64);
  e.resume = true;
  const TrainedRun resumed = train_charlm(e, cfg, "txl", 0);
  CHECK(resumed.resumed_at == 20);
  CHECK(files_of(resumed.run_dir) == expected);
  fs::remove_all(dir);
}

TEST_CASE("a fine-tune is resumable too, and checkpoint_every leaves the run's config.json alone") {
  const std::string dir = pe::test::fresh_scratch_dir("resume-finetune");
  json cfg = charlm_config(dir + "/runs");
  cfg["finetune_steps"] = 6;
  cfg["finetune_length"] = 256;
  cfg["finetune_batch"] = 2;
  cfg["log_every"] = 2;
  ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const TrainedRun base = train_charlm(e, cfg, "rope", 0);
  const TrainedRun ft = finetune_charlm(e, cfg, base.checkpoint, parse_map("pi"));
  const std::string expected = files_of(ft.run_dir);
  fs::remove_all(ft.run_dir);
  CHECK_THROWS_AS(finetune_charlm(e, cfg, base.checkpoint, parse_map("pi"),
                                  [](int step, int, double) {
                                    if (step == 4) request_stop(SIGINT);
                                  }),
                  Interrupted);
  clear_stop();
  // a different checkpoint_every is the same run
  json other = cfg;
  other["checkpoint_every"] = 3;
  ExperimentConfig e2 = ExperimentConfig::from_json(other);
  e2.resume = true;
  const TrainedRun resumed = finetune_charlm(e2, other, base.checkpoint, parse_map("pi"));
  CHECK(resumed.resumed_at == 4);
  CHECK(read_file(resumed.run_dir + "/checkpoint.json") ==
        read_file(dir + "/runs/charlm/rope/seed0-ft-pi/checkpoint.json"));
  CHECK(files_of(resumed.run_dir) == expected);
  CHECK(json::parse(read_file(resumed.run_dir + "/config.json")).count("checkpoint_every") == 0);
  fs::remove_all(dir);
}

TEST_CASE("the runner: a stop before any run starts saves nothing and says how to continue") {
  const std::string dir = pe::test::fresh_scratch_dir("resume-runner");
  json cfg = cue_config(dir + "/runs");
  cfg["schemes"] = {"rope", "alibi"};
  cfg["seeds"] = {0, 1};
  cfg["out_dir"] = dir;
  cfg["test_sequences"] = 64;
  cfg["eval_lengths"] = {32};
  cfg["maps"] = json::array();
  cfg["reference"] = "";
  request_stop(SIGINT);
  try {
    run_experiment(find_task("cue"), cfg, RunControl{true, 2, false});
    FAIL("the experiment was not stopped");
  } catch (const Interrupted& i) {
    CHECK(!i.saved_state);
    CHECK(std::string(i.what()).find("0 of 4 runs complete, 0 stopped with their state saved") != std::string::npos);
  }
  clear_stop();
  CHECK(!file_exists(dir + "/results.json"));
  fs::remove_all(dir);
}

TEST_CASE("a training state is continued only by its own run, and an unreadable one is a CheckpointError") {
  const std::string dir = pe::test::fresh_scratch_dir("resume-state");
  const json cfg = cue_config(dir + "/runs");
  ExperimentConfig e = ExperimentConfig::from_json(cfg);
  const std::string run_dir = run_dir_for(e, "rope", 0);
  CHECK_THROWS_AS(train_cue(e, cfg, "rope", 0,
                            [](int step, int, double, double) {
                              if (step == 20) request_stop(SIGINT);
                            }),
                  Interrupted);
  clear_stop();
  const size_t n = CueHead<float>(cue_model_config(e, "rope")).layout().total();
  const json run_cfg = run_config(cfg, "rope", 0);
  const int steps = e.steps;
  const auto s = load_training_state(run_dir, run_cfg, n, steps);
  REQUIRE(s.has_value());
  CHECK(s->step == 20);
  CHECK(s->adam_steps == 20);
  json other = run_cfg;
  other["lr"] = 0.5;
  CHECK(!load_training_state(run_dir, other, n, steps).has_value());
  // a reading key does not make it another run's
  json read_other = run_cfg;
  read_other["test_sequences"] = 7;
  CHECK(load_training_state(run_dir, read_other, n, steps).has_value());
  CHECK_THROWS_AS(load_training_state(run_dir, run_cfg, n + 1, steps), CheckpointError);
  // a state is checked like a checkpoint: its step inside the run, the loop state of the right type
  const json saved = json::parse(read_file(training_state_path(run_dir)));
  json edited = saved;
  edited["step"] = edited["adam_steps"] = steps + 100;
  write_file_atomic(training_state_path(run_dir), edited.dump());
  CHECK_THROWS_WITH_AS(load_training_state(run_dir, run_cfg, n, steps), doctest::Contains("step must be an integer"),
                       CheckpointError);
  edited = saved;
  edited["loop"] = "x";
  write_file_atomic(training_state_path(run_dir), edited.dump());
  CHECK_THROWS_WITH_AS(load_training_state(run_dir, run_cfg, n, steps), doctest::Contains("'loop' must be an object"),
                       CheckpointError);
  edited = saved;
  edited["loop"]["metrics"] = "x";
  write_file_atomic(training_state_path(run_dir), edited.dump());
  e.resume = true;
  CHECK_THROWS_WITH_AS(train_cue(e, cfg, "rope", 0, nullptr), doctest::Contains("loop.metrics must be a list"),
                       CheckpointError);
  write_file_atomic(training_state_path(run_dir), "{\"format\": \"pe-bench-training-state\"");
  CHECK_THROWS_WITH_AS(load_training_state(run_dir, run_cfg, n, steps), doctest::Contains("unreadable"),
                       CheckpointError);
  fs::remove_all(dir);
}
