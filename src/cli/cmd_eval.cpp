// pe-bench eval: evaluate every checkpoint under a runs directory (or the ones given) at some lengths.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "cli/common.h"
#include "core/errors.h"
#include "core/files.h"
#include "core/parallel.h"
#include "harness/checkpoint.h"
#include "harness/config.h"
#include "harness/task.h"
#include "schemes/frequency_maps.h"

namespace pe::cli {

namespace {
// A map no checkpoint took (a map of frequencies, and no RoPE checkpoint among them) adds no row: say so
// rather than leave the user looking for it.
void note_unread_maps(const std::vector<MapSpec>& maps, const nlohmann::json& results) {
  std::vector<std::string> schemes;
  for (auto& row : results.value("rows", nlohmann::json::array()))
    if (row.contains("scheme") && std::find(schemes.begin(), schemes.end(), row["scheme"]) == schemes.end())
      schemes.push_back(row["scheme"]);
  for (const MapSpec& map : maps) {
    bool read = false;
    for (auto& row : results.value("rows", nlohmann::json::array()))
      read = read || (row.contains("map") && row["map"] == nlohmann::json(map));
    if (!read && !schemes.empty())
      fmt::print(stderr,
                 "note: no '+{}' rows: {} rescales RoPE's frequencies, and none of the schemes read ({}) has "
                 "them (logn re-reads every scheme)\n",
                 map.written, map.written, fmt::join(schemes, ", "));
  }
}
}  // namespace

void register_eval(CLI::App& app) {
  struct Opts {
    std::string task, lengths, runs_dir = "results/runs", out = "results/eval.json", markdown, maps, corpus,
                               rope_scaling, decode;
    std::vector<std::string> checkpoints, sets;
    std::optional<int> band;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("eval",
                                 "Evaluate trained checkpoints at several lengths on the shared test stream; "
                                 "writes a results JSON and prints a table (mean over seeds and each seed)");
  sub->add_option("--task", o->task,
                  "the task whose checkpoints to read (default: the one the checkpoints record; with --runs-dir, only "
                  "that task's runs): " +
                      known_tasks());
  sub->add_option("--lengths", o->lengths, "comma-separated test lengths (default: the task's eval_lengths)");
  sub->add_option("--band", o->band,
                  "also read RoPE with only this many recent keys visible (0: no; key band, for a task that reads it)");
  sub->add_option("--runs-dir", o->runs_dir, "evaluate every checkpoint.json below this directory")
      ->capture_default_str();
  sub->add_option("--checkpoint", o->checkpoints, "evaluate this checkpoint instead (repeatable)");
  sub->add_option(
      "--maps", o->maps,
      "also re-read every RoPE checkpoint with these context-extension maps (comma-separated: " + known_maps() +
          "), at kappa = length / training length, without retraining; logn re-reads every scheme");
  sub->add_option(
      "--rope-scaling", o->rope_scaling,
      "also re-read every RoPE checkpoint as a Transformers config says: a config.json path or JSON (the "
      "config, or its rope_scaling dictionary such as '{\"rope_type\":\"yarn\",\"factor\":4}'); key rope_scaling");
  sub->add_option("--decode", o->decode,
                  "full (a forward over each window) or cached (token by token through a key/value cache; key decode, "
                  "for a task that reads it; leave it out for the task's default: an empty value is an error)");
  sub->add_option("--out", o->out, "results JSON to write (atomically)")->capture_default_str();
  sub->add_option("--markdown", o->markdown, "also write the table as Markdown to this file");
  sub->add_option("--set", o->sets,
                  "test settings, e.g. --set test_seed=N (pe-bench train --help lists each task's keys)");
  sub->add_option("--corpus", o->corpus, "plain-text corpus (key corpus, for a task that reads one)");
  add_run_options(sub, o->run);
  check_option_values(app);  // empty values, non-finite numbers: harness/cli_options.h
  sub->callback([o] {
    // the task: --task's (its options are checked before any file is read), or the one the checkpoints record
    std::optional<CheckpointsToRead> read;
    if (o->task.empty()) read = checkpoints_to_read("", o->checkpoints, o->runs_dir, "evaluate");
    const Task& task = find_task(read ? read->task : o->task);
    reject_unread(o->band.has_value(), "--band", "band", task.name());
    reject_unread(!o->corpus.empty(), "--corpus", "corpus", task.name());
    reject_unread(!o->decode.empty(), "--decode", "decode", task.name());
    reject_unread(!o->lengths.empty(), "--lengths", "eval_lengths", task.name());
    // options checked here, so that their errors name them
    std::string list;
    if (!o->lengths.empty())
      for (int n : parse_length_list(o->lengths, "--lengths")) list += (list.empty() ? "" : ",") + std::to_string(n);
    if (!o->maps.empty()) parse_map_list(o->maps, "--maps");
    const nlohmann::json cfg = Overrides{{"task=" + task.name()}}
                                   .add("eval_lengths", list)
                                   .add("maps", o->maps)
                                   .add("band", o->band)
                                   .add("rope_scaling", o->rope_scaling)
                                   .add("decode", o->decode)
                                   .add("corpus", o->corpus)
                                   .resolve("", o->sets);
    const ExperimentConfig e = ExperimentConfig::from_json(cfg);
    set_threads(o->run.threads);
    if (!read) read = checkpoints_to_read(task.name(), o->checkpoints, o->runs_dir, "evaluate");
    const std::vector<std::string>& paths = read->paths;
    check_distinct_runs(paths);
    const nlohmann::json results = task.reader().evaluate(paths, e, !o->run.quiet);
    write_json_atomic(o->out, results);
    if (!o->markdown.empty()) write_file_atomic(o->markdown, task.reporter().markdown(results));
    fmt::print("{}", task.reporter().table(results));
    fmt::print("results: {}\n", o->out);
    note_unread_maps(e.maps, results);
  });
}

}  // namespace pe::cli
