// pe-bench train: train one model and write its run directory.
#include <fmt/format.h>

#include "cli/common.h"
#include "core/parallel.h"
#include "harness/config.h"
#include "harness/task.h"

namespace pe::cli {

void register_train(CLI::App& app) {
  struct Opts {
    std::string scheme, task, experiment, corpus;
    std::optional<std::string> runs_dir;
    int seed = 0;
    std::optional<int> steps;
    std::vector<std::string> sets;
    bool resume = false;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("train",
                                 "Train one model; writes <runs-dir>/<task>/<scheme>/seed<N>/ "
                                 "(config.json, metrics.jsonl, checkpoint.json)");
  sub->add_option("--scheme", o->scheme, "positional scheme (see `pe-bench schemes`)")->required();
  sub->add_option("--task", o->task,
                  "task to train on, each with its own defaults and keys: " + known_tasks() +
                      "; default: the experiment file's, else the first");
  sub->add_option("--seed", o->seed, "training seed (initialisation and data stream)")
      ->capture_default_str()
      ->check(CLI::Range(0, kMaxSeed));
  sub->add_option("--steps", o->steps, "Adam steps (default: the experiment's, else the task's)");
  sub->add_option("--experiment", o->experiment,
                  "experiment JSON file whose settings to use (default: built-in defaults)");
  sub->add_option("--runs-dir", o->runs_dir, "root of run directories (default: results/runs)");
  sub->add_option("--set", o->sets, "override an experiment key: --set key=value (repeatable; lists comma-separated)");
  sub->add_option("--corpus", o->corpus, "plain-text corpus (key corpus, for a task that reads one)");
  add_run_options(sub, o->run);
  add_resume_option(sub, o->resume);
  sub->footer(describe_keys());
  check_option_values(app);  // empty values, non-finite numbers: harness/cli_options.h
  sub->callback([o] {
    nlohmann::json cfg = Overrides{}
                             .add("task", o->task)
                             .add("schemes", o->scheme)
                             .add("steps", o->steps)
                             .add("runs_dir", o->runs_dir)
                             .add("corpus", o->corpus)
                             .resolve(o->experiment, o->sets);
    cfg["schemes"] = {o->scheme};
    cfg["seeds"] = {o->seed};
    ExperimentConfig e = ExperimentConfig::from_json(cfg);
    e.resume = o->resume;
    set_threads(o->run.threads);
    Progress progress(o->run.quiet);
    const TrainedRun out = find_task(e.task).trainer().train(e, cfg, o->scheme, o->seed, progress);
    progress.done();
    fmt::print("{}\nrun directory: {}\n", out.summary, out.run_dir);
  });
}

}  // namespace pe::cli
