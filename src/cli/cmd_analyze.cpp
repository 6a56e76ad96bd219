// pe-bench analyze: the geometry behind the results.
//   pe-bench analyze theory   everything in docs/analyses.md that needs no trained model
#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <set>

#include <chrono>

#include "cli/common.h"
#include "core/errors.h"
#include "core/files.h"
#include "core/parallel.h"
#include "harness/checkpoint.h"
#include "harness/config.h"
#include "harness/task.h"
#include "models/attention_stats.h"
#include "schemes/frequency_maps.h"
#include "schemes/rope_scaling.h"
#include "theory/theory.h"

namespace pe::cli {

namespace {
// pe-bench analyze attention: what attention does at each length, plainly and through each map.
void register_analyze_attention(CLI::App* parent) {
  struct Opts {
    std::vector<std::string> checkpoints, sets;
    std::string lengths, maps, rope_scaling, out = "results/attention.json";
    int sequences = 8;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = parent->add_subcommand(
      "attention",
      "What attention does inside and past the training length: per layer and head, the mass by distance, on the "
      "first token (sink), each row's entropy against ln(visible keys), the mass beyond the training length; for "
      "plain reads and each map (a task with attention maps: the char LM, passkey and the probes on their own "
      "sequences, the cue task on the query row of its test sequences)");
  sub->add_option("--checkpoint", o->checkpoints, "checkpoint.json to read (repeatable)")->required();
  sub->add_option("--lengths", o->lengths, "comma-separated lengths to read at (default: the task's eval_lengths)");
  sub->add_option(
      "--maps", o->maps,
      fmt::format("also read RoPE checkpoints with these maps (comma-separated; logn: every checkpoint): {}",
                  known_maps()));
  sub->add_option("--rope-scaling", o->rope_scaling,
                  "also read RoPE checkpoints as a Transformers config says (a config.json path or JSON)");
  sub->add_option("--sequences", o->sequences,
                  "sequences read per checkpoint, map and length (the task's own: validation windows, test sequences)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  sub->add_option("--out", o->out, "JSON file to write (atomically)")->capture_default_str();
  sub->add_option("--set", o->sets, "task settings, e.g. --set corpus=FILE, --set val_start=N");
  add_run_options(sub, o->run);
  sub->callback([o] {
    const std::string task_name = common_checkpoint_task(o->checkpoints, "analyse");
    const Task& task = find_task(task_name);
    std::vector<MapSpec> maps = {identity_spec()};
    if (!o->maps.empty())
      for (auto& m : parse_map_list(o->maps, "--maps")) maps.push_back(m);
    if (!o->rope_scaling.empty()) maps.push_back(parse_rope_scaling(o->rope_scaling, "--rope-scaling").map);
    std::string list;
    if (!o->lengths.empty())
      for (int n : parse_length_list(o->lengths, "--lengths")) list += fmt::format("{}{}", list.empty() ? "" : ",", n);
    const ExperimentConfig e =
        ExperimentConfig::from_json(Overrides{{"task=" + task.name()}}.add("eval_lengths", list).resolve("", o->sets));
    set_threads(o->run.threads);
    Progress progress(o->run.quiet);
    nlohmann::json readings = nlohmann::json::array();
    for (auto& cp : o->checkpoints)
      for (auto& map : maps)
        for (int n : e.eval_lengths) {
          progress.update(fmt::format("[attention] {} {} at {}", cp, map, n));
          nlohmann::json st;
          try {
            st = task.reader().attention_stats(cp, map, n, o->sequences, e);
          } catch (const UsageError& err) {
            // a map a scheme cannot read with (no frequencies): not a reading of it
            if (!map.is_identity() && std::string(err.what()).find("no frequencies") != std::string::npos) break;
            throw;
          }
          if (st.is_null())
            throw UsageError(fmt::format("analyze attention: the {} task has no attention maps to read", task.name()));
          if (!st.value("readable", true)) continue;  // past what the model can read
          const std::string label =
              fmt::format("{} s{}", map.label(st["scheme"].get<std::string>()), st["seed"].get<int>());
          readings.push_back({{"label", label},
                              {"checkpoint", cp},
                              {"scheme", st["scheme"]},
                              {"seed", st["seed"]},
                              {"map", map},
                              {"length", n},
                              {"stats", st}});
        }
    progress.done();
    if (readings.empty())
      throw UsageError(
          "analyze attention: no checkpoint can read any of --lengths (a learned table has no row "
          "that far); give shorter lengths");
    // two checkpoints of the same scheme and seed (e.g. trained on other window orders): their labels
    // name the checkpoint's place on the command line, #1, #2, ...
    std::map<std::string, std::set<std::string>> paths_of;
    for (auto& r : readings) paths_of[r["label"].get<std::string>()].insert(r["checkpoint"].get<std::string>());
    for (auto& r : readings)
      if (paths_of[r["label"].get<std::string>()].size() > 1) {
        const auto at = std::find(o->checkpoints.begin(), o->checkpoints.end(), r["checkpoint"].get<std::string>());
        r["label"] = fmt::format("{} #{}", r["label"].get<std::string>(), at - o->checkpoints.begin() + 1);
      }
    const nlohmann::json out = {
        {"task", task.name()}, {"sequences", o->sequences}, {"lengths", e.eval_lengths}, {"readings", readings}};
    write_json_atomic(o->out, out);
    fmt::print("{}", format_attention_table(out));
    fmt::print("written to {}\n", o->out);
  });
}
}  // namespace

void register_analyze(CLI::App& app) {
  struct Opts {
    std::string task, runs, out = "results/geometry.json", lengths = "64,128,256";
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
  sub->add_option("--task", o->task,
                  "the task whose models to read (default: the one the checkpoints below --runs-dir record; with "
                  "several, only this task's): " +
                      known_tasks());
  sub->add_option("--runs-dir", o->runs,
                  "analyse every checkpoint.json of the task below this directory, e.g. results/tournament/runs");
  sub->add_option("--out", o->out, "JSON file to write (atomically)")->capture_default_str();
  sub->add_option("--lengths", o->lengths, "test lengths for the accuracies")->capture_default_str();
  sub->add_option("--set", o->sets, "test settings: --set test_sequences=N, --set test_seed=N");
  add_run_options(sub, o->run);
  check_option_values(app);  // empty values, non-finite numbers: harness/cli_options.h
  sub->callback([o, sub] {
    if (sub->got_subcommand("theory") || sub->got_subcommand("attention") || sub->got_subcommand("probe")) return;
    if (!o->task.empty()) find_task(o->task);  // an unknown name first, whatever the files
    if (o->runs.empty()) throw UsageError("analyze: give --runs-dir DIR (trained models) or the subcommand `theory`");
    const CheckpointsToRead read = checkpoints_to_read(o->task, {}, o->runs, "analyse");
    const Task& task = find_task(read.task);
    std::string list;
    for (int n : parse_length_list(o->lengths, "--lengths")) list += (list.empty() ? "" : ",") + std::to_string(n);
    Overrides keys{{"task=" + task.name()}};
    keys.add("eval_lengths", list);
    if (task.reads("analyze")) keys.add("analyze", std::string("true"));
    const ExperimentConfig e = ExperimentConfig::from_json(keys.resolve("", o->sets));
    set_threads(o->run.threads);
    const std::vector<std::string>& paths = read.paths;
    check_distinct_runs(paths);
    const TaskReporter::Analysis a = task.reporter().analyze(paths, e);
    if (a.files.empty())
      throw UsageError(fmt::format("analyze: the {} task has no analyses of trained models", task.name()));
    if (a.files.size() != 1)
      throw Error(fmt::format("analyze: the {} task writes {} files; --out names one", task.name(), a.files.size()));
    write_file_atomic(o->out, a.files.front().second);
    fmt::print("{}", a.text);
    fmt::print("written to {}\n", o->out);
  });
  register_analyze_attention(sub);
  register_analyze_probe(sub);
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
