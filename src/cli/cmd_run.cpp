// pe-bench run: a whole experiment (every scheme x seed, trained and evaluated).
#include <fmt/format.h>

#include "cli/common.h"
#include "harness/config.h"
#include "harness/experiment.h"
#include "harness/task.h"

namespace pe::cli {

void register_run(CLI::App& app) {
  struct Opts {
    std::string experiment;
    std::vector<std::string> sets;
    bool resume = false, train_only = false, print_config = false;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("run",
                                 "Run an experiment file: train every scheme x seed, evaluate at every length, "
                                 "write <out_dir>/results.json and table.md, print the table");
  sub->add_option("experiment", o->experiment,
                  "experiment JSON file, e.g. experiments/tournament.json or experiments/charlm.json")
      ->required();
  sub->add_option("--set", o->sets, "override a key: --set key=value (repeatable; lists comma-separated)");
  add_run_options(sub, o->run);
  add_resume_option(sub, o->resume);
  sub->add_flag("--train-only", o->train_only,
                "train every run (and its follow-ups) and stop, without evaluating or writing results (one job of "
                "a sweep: scripts/sweep.sh)");
  sub->add_flag("--print-config", o->print_config,
                "print the resolved config (the experiment file, the task's defaults, --set) as JSON and stop");
  sub->footer(describe_keys());
  check_option_values(app);  // empty values, non-finite numbers: harness/cli_options.h
  sub->callback([o] {
    const nlohmann::json cfg = resolve_config(o->experiment, o->sets);
    if (o->print_config) {
      fmt::print("{}\n", cfg.dump(2));
      return;
    }
    const ExperimentReport report = run_experiment(find_task(cfg.at("task")), cfg,
                                                   RunControl{o->run.quiet, o->run.threads, o->resume, o->train_only});
    fmt::print("{}", report.text);
    if (o->train_only) return;
    const std::string dir = cfg["out_dir"];
    fmt::print("results: {}/results.json, {}/table.md\n", dir, dir);
  });
}

}  // namespace pe::cli
