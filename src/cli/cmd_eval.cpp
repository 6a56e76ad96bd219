// pe-bench eval: evaluate every checkpoint under a runs directory (or the ones given) at some lengths.
#include <fmt/format.h>

#include <sstream>

#include "cli/common.h"
#include "core/files.h"
#include "core/parallel.h"
#include "experiments/charlm.h"
#include "experiments/config.h"
#include "schemes/frequency_plan.h"
#include "experiments/evaluate.h"

namespace pe::cli {

namespace {

// The character LM's reading: perplexity at each length; RoPE also through each --rescale map and
// the --band; fine-tuned checkpoints under their own plan.
template <class Opts>
void eval_charlm(const Opts& o) {
  std::string list;  // --lengths, checked here so that its error names the option
  if (!o.lengths.empty())
    for (int n : parse_length_list(o.lengths, "--lengths")) list += (list.empty() ? "" : ",") + std::to_string(n);
  const nlohmann::json cfg = Overrides{{"task=charlm"}}
                                 .add("eval_lengths", list)
                                 .add("rescale", o.rescale)
                                 .add("band", o.band, -1)
                                 .add("corpus", o.corpus)
                                 .resolve("", o.sets);
  const ExperimentConfig e = ExperimentConfig::from_json(cfg);
  set_threads(o.threads);
  const auto paths = o.checkpoints.empty() ? find_checkpoints(o.runs_dir, "charlm") : o.checkpoints;
  nlohmann::json results = evaluate_charlm(paths, e, !o.quiet);
  results["experiment"] = cfg;
  write_json_atomic(o.out, results);
  if (!o.markdown.empty()) write_file_atomic(o.markdown, format_charlm_markdown(results));
  fmt::print("{}", format_charlm_table(results));
  fmt::print("results: {}\n", o.out);
}

}  // namespace

void register_eval(CLI::App& app) {
  struct Opts {
    std::string task = "cue", lengths, runs_dir = "results/runs", out = "results/eval.json", markdown, rescale, corpus;
    std::vector<std::string> checkpoints, sets;
    int threads = 0, band = -1;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("eval", "Evaluate trained checkpoints at several lengths on the shared test stream; "
                                         "writes a results JSON and prints a table (mean over seeds and each seed)");
  sub->add_option("--task", o->task, "cue, or charlm (validation perplexity of character LMs)")->capture_default_str();
  sub->add_option("--lengths", o->lengths, "comma-separated test lengths (default: cue 32,64,128,256; charlm 128,256,512)");
  sub->add_option("--band", o->band, "charlm: also read RoPE with only this many recent keys visible (0: no)");
  sub->add_option("--runs-dir", o->runs_dir, "evaluate every checkpoint.json below this directory")->capture_default_str();
  sub->add_option("--checkpoint", o->checkpoints, "evaluate this checkpoint instead (repeatable)");
  sub->add_option("--rescale", o->rescale,
                  "also re-read every RoPE checkpoint with these context-extension maps (comma-separated: " +
                      known_maps() + "), at kappa = length / training length, without retraining");
  sub->add_option("--out", o->out, "results JSON to write (atomically)")->capture_default_str();
  sub->add_option("--markdown", o->markdown, "also write the table as Markdown to this file");
  sub->add_option("--set", o->sets, "test settings: --set test_size=N, --set test_seed=N (charlm: val_start, val_windows, eval_batch, corpus, ...)");
  sub->add_option("--corpus", o->corpus, "charlm: plain-text corpus read through the d2l pipeline (default data/timemachine.txt)");
  sub->add_option("--threads", o->threads, "OpenMP threads (0: all cores)");
  sub->add_flag("--quiet,-q", o->quiet, "no progress line");
  sub->callback([o] {
    if (o->task == "charlm") return eval_charlm(*o);
    if (o->task != "cue") throw UsageError(fmt::format("--task: unknown task '{}' (known: cue, charlm)", o->task));
    const auto lengths = parse_length_list(o->lengths.empty() ? "32,64,128,256" : o->lengths, "--lengths");
    for (int n : lengths)
      if (n < 2) throw UsageError(fmt::format("--lengths: {} is too short (a sequence needs content and a query)", n));
    const nlohmann::json cfg = resolve_config("", o->sets);
    set_threads(o->threads);
    const auto paths = o->checkpoints.empty() ? find_checkpoints(o->runs_dir, "cue") : o->checkpoints;
    EvalSettings s{lengths, cfg["test_size"], cfg["test_seed"], {}};
    if (!o->rescale.empty()) {
      std::string part;
      std::istringstream in(o->rescale);
      while (std::getline(in, part, ','))
        if (!is_known_map(part))
          throw UsageError(fmt::format("--rescale: unknown map '{}' (known: {})", part, known_maps()));
        else
          s.maps.push_back(part);
    }
    const nlohmann::json results = results_json(evaluate_checkpoints(paths, s, !o->quiet), s);
    write_json_atomic(o->out, results);
    if (!o->markdown.empty()) write_file_atomic(o->markdown, format_results_markdown(results, nullptr));
    fmt::print("{}", format_results_table(results));
    fmt::print("results: {}\n", o->out);
  });
}

}  // namespace pe::cli
