// pe-bench analyze: the geometry behind the results.
//   pe-bench analyze theory   everything in docs/analyses.md that needs no trained model
#include <fmt/format.h>

#include <chrono>

#include "cli/common.h"
#include "harness/checkpoint.h"
#include "core/files.h"
#include "theory/theory.h"
#include "core/errors.h"
#include "harness/config.h"
#include "core/parallel.h"
#include "harness/task.h"

namespace pe::cli {

void register_analyze(CLI::App& app) {
  struct Opts {
    std::string task = task_list().front()->name(), runs, out = "results/geometry.json", lengths = "64,128,256";
    std::vector<std::string> sets;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "analyze",
      "Read a task's trained models (--runs-dir DIR) into its analyses (the tournament's heads: RoPE offset curves, "
      "the sinusoidal relativity defect and its offset-only projection, ALiBi widths and horizons); or `analyze "
      "theory` for the analyses that need no model");
  sub->require_subcommand(0, 1);
  sub->add_option("--task", o->task, "the task whose models to read: " + known_tasks())->capture_default_str();
  sub->add_option("--runs-dir", o->runs, "analyse every checkpoint.json of the task below this directory, e.g. results/tournament/runs");
  sub->add_option("--out", o->out, "JSON file to write (atomically)")->capture_default_str();
  sub->add_option("--lengths", o->lengths, "test lengths for the accuracies")->capture_default_str();
  sub->add_option("--set", o->sets, "test settings: --set test_sequences=N, --set test_seed=N");
  add_run_options(sub, o->run);
  sub->callback([o, sub] {
    if (sub->got_subcommand("theory")) return;
    const Task& task = find_task(o->task);
    if (o->runs.empty()) throw UsageError("analyze: give --runs-dir DIR (trained models) or the subcommand `theory`");
    std::string list;
    for (int n : parse_length_list(o->lengths, "--lengths")) list += (list.empty() ? "" : ",") + std::to_string(n);
    Overrides keys{{"task=" + task.name()}};
    keys.add("eval_lengths", list);
    if (task.reads("analyze")) keys.add("analyze", std::string("true"));
    const ExperimentConfig e = ExperimentConfig::from_json(keys.resolve("", o->sets));
    set_threads(o->run.threads);
    const auto paths = find_checkpoints(o->runs, task.name());
    check_distinct_runs(paths);
    const Task::Analysis a = task.analyze(paths, e);
    if (a.files.empty()) throw UsageError(fmt::format("analyze: the {} task has no analyses of trained models", task.name()));
    if (a.files.size() != 1)
      throw Error(fmt::format("analyze: the {} task writes {} files; --out names one", task.name(), a.files.size()));
    write_file_atomic(o->out, a.files.front().second);
    fmt::print("{}", a.text);
    fmt::print("written to {}\n", o->out);
  });
  auto out = std::make_shared<std::string>("results/theory.json");
  auto* th = sub->add_subcommand(
      "theory",
      "The analyses that need no trained model (exact baselines, the sinusoidal kernel and log ruler, window "
      "conditioning in 700-bit arithmetic, relativity defect, T5 buckets, ALiBi bound, RoPE identities and decay, "
      "the wavelength census, the interpolation bound, finite precision); writes JSON and prints tables");
  th->add_option("--out", *out, "JSON file to write (atomically)")->capture_default_str();
  th->callback([out] {
    const auto t0 = std::chrono::steady_clock::now();
    const nlohmann::json all = theory::compute_all();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    write_json_atomic(*out, all);
    fmt::print("{}", theory::format_tables(all));
    fmt::print("computed in {:.1f} s; written to {}\n", secs, *out);
  });
}

}  // namespace pe::cli
