// pe-bench analyze probe: a linear probe of the absolute position from each residual state (models/position_probe.h).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "core/files.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "harness/checkpoint.h"
#include "harness/cli_options.h"
#include "harness/config.h"
#include "harness/task.h"

namespace pe::cli {

namespace {
// The readings as a table: per reading and state, R^2 and RMSE over every held-out token, and the RMSE of
// the first and last position range.
std::string format_probe_table(const nlohmann::json& out) {
  std::string s = fmt::format("{:<34} {:>6} {:>8} {:>8} {:>12} {:>12}\n", "reading", "state", "R2", "RMSE",
                              "RMSE first", "RMSE last");
  for (auto& r : out.at("readings"))
    for (auto& st : r.at("states")) {
      const auto& ranges = st.at("ranges");
      s += fmt::format("{:<34} {:>6} {:>8.3f} {:>8.2f} {:>12.2f} {:>12.2f}\n", r.at("label").get<std::string>(),
                       st.at("state").get<int>(), st.at("r2").get<double>(), st.at("rmse").get<double>(),
                       ranges.front().at("rmse").get<double>(), ranges.back().at("rmse").get<double>());
    }
  s += "state 0: the embedding (block 1's input); state l: block l's output. R2 and RMSE (in positions) on the "
       "held-out windows; first/last: the RMSE on positions 0-7 and on the last range\n";
  return s;
}
}  // namespace

void register_analyze_probe(CLI::App* parent) {
  struct Opts {
    std::vector<std::string> checkpoints, sets;
    std::string out = "results/probe.json";
    int length = 0, windows = 256;
    bool initial = false;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = parent->add_subcommand(
      "probe",
      "Does the model know where it is? A ridge regression of each token's position from each residual state "
      "(the embedding, then every block's output), fitted on windows of the training text and scored on as many "
      "held-out validation windows: R^2 and RMSE overall and by position range (a task with a probe: charlm)");
  sub->add_option("--checkpoint", o->checkpoints, "checkpoint.json to read (repeatable)")->required();
  sub->add_option("--length", o->length, "window length (default: the checkpoint's training length)")
      ->check(CLI::Range(2, 1 << 16));
  sub->add_option("--windows", o->windows, "windows fitted on, and as many scored")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  sub->add_flag("--initial", o->initial,
                "also read each checkpoint at the weights its training started from (its seed's initialisation)");
  sub->add_option("--out", o->out, "JSON file to write (atomically)")->capture_default_str();
  sub->add_option("--set", o->sets, "task settings, e.g. --set corpus=FILE, --set val_start=N");
  add_run_options(sub, o->run);
  sub->callback([o] {
    const std::string task_name = common_checkpoint_task(o->checkpoints, "probe");
    const Task& task = find_task(task_name);
    const ExperimentConfig e = ExperimentConfig::from_json(Overrides{{"task=" + task.name()}}.resolve("", o->sets));
    set_threads(o->run.threads);
    Progress progress(o->run.quiet);
    nlohmann::json readings = nlohmann::json::array();
    for (auto& cp : o->checkpoints)
      for (const bool initial : {false, true}) {
        if (initial && !o->initial) continue;
        progress.update(fmt::format("[probe] {}{}", cp, initial ? " (initial weights)" : ""));
        nlohmann::json r = task.reader().position_probe(cp, o->length, o->windows, initial, e);
        if (r.is_null()) throw UsageError(fmt::format("analyze probe: the {} task has no position probe", task.name()));
        r["label"] = fmt::format("{} s{}{}", r.at("scheme").get<std::string>(), r.at("seed").get<int>(),
                                 initial ? " (initial)" : "");
        readings.push_back(std::move(r));
      }
    progress.done();
    const nlohmann::json out = {{"task", task.name()}, {"windows", o->windows}, {"readings", readings}};
    write_json_atomic(o->out, out);
    fmt::print("{}", format_probe_table(out));
    fmt::print("written to {}\n", o->out);
  });
}

}  // namespace pe::cli
