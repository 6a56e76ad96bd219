// pe-bench run: a whole experiment (every scheme x seed, trained and evaluated).
#include <fmt/format.h>

#include "cli/common.h"
#include "harness/config.h"
#include "harness/experiment.h"
#include "tasks/task.h"

namespace pe::cli {

void register_run(CLI::App& app) {
  struct Opts {
    std::string experiment;
    std::vector<std::string> sets;
    bool resume = false;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("run", "Run an experiment file: train every scheme x seed, evaluate at every length, "
                                        "write <out_dir>/results.json and table.md, print the table");
  sub->add_option("experiment", o->experiment, "experiment JSON file, e.g. experiments/tournament.json or experiments/charlm.json")->required();
  sub->add_option("--set", o->sets, "override a key: --set key=value (repeatable; lists comma-separated)");
  add_run_options(sub, o->run);
  add_resume_option(sub, o->resume);
  sub->footer(describe_keys());
  sub->callback([o] {
    const nlohmann::json cfg = resolve_config(o->experiment, o->sets);
    const ExperimentReport report =
        run_experiment(find_task(cfg.at("task")), cfg, RunControl{o->run.quiet, o->run.threads, o->resume});
    fmt::print("{}", report.text);
    const std::string dir = cfg["out_dir"];
    fmt::print("results: {}/results.json, {}/table.md\n", dir, dir);
  });
}

}  // namespace pe::cli
