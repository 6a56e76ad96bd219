// pe-bench run: a whole experiment (every scheme x seed, trained and evaluated).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/parallel.h"
#include "experiments/charlm.h"
#include "experiments/config.h"
#include "experiments/experiment.h"

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
  sub->add_flag("--resume", o->resume,
                "charlm: keep every complete run directory (checkpoint written) whose config.json is this run's, "
                "and train only the others; the table is always recomputed");
  sub->footer(describe_keys());
  sub->callback([o] {
    const nlohmann::json cfg = resolve_config(o->experiment, o->sets);
    if (cfg["task"] == "charlm") {
      set_threads(o->run.threads);
      const auto results = run_charlm_experiment(cfg, !o->run.quiet, o->resume);
      fmt::print("{}", format_charlm_table(results));
      const std::string dir = cfg["out_dir"];
      fmt::print("results: {}/results.json, {}/table.md\n", dir, dir);
      return;
    }
    if (o->resume) throw UsageError("--resume applies to charlm experiments (the cue task trains in seconds)");
    const auto out = run_experiment(cfg, o->run.quiet, o->run.threads);
    fmt::print("{}", out.table);
    if (!out.geometry.empty()) fmt::print("\n{}\n", out.geometry);
    fmt::print("{} runs x {} steps trained in {:.2f} s ({:.0f} training steps/s overall); evaluation {:.2f} s\n",
               out.runs, out.total_steps / std::max(1, out.runs), out.train_seconds,
               out.total_steps / out.train_seconds, out.eval_seconds);
    const std::string dir = cfg["out_dir"];
    fmt::print("results: {}/results.json, {}/table.md\n", dir, dir);
  });
}

}  // namespace pe::cli
