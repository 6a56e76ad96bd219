// pe-bench compare: two readers of a results file at one length, with intervals — across seeds
// (paired t) and, for the cue task, over the test sequences both read (paired bootstrap, McNemar).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "core/parallel.h"
#include "harness/task.h"

namespace pe::cli {

void register_compare(CLI::App& app) {
  struct Opts {
    std::string results, a, b;
    int length = 0;
    CompareSettings settings;
    RunOptions run;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand(
      "compare",
      "Compare two readers of a results.json at one length (filings: on all queries and on the far ones): the mean "
      "difference a - b with its 95% interval "
      "across seeds (paired t) and, for the cue task, within each seed's checkpoints over the shared test "
      "sequences (paired bootstrap; exact McNemar test); and each reader's own accuracy with the 95% interval of a "
      "proportion (logit scale, docs/results-format.md). E.g. pe-bench compare results/tournament/results.json "
      "rope+ntk rope+yarn --length 256");
  sub->add_option("results", o->results, "results file (pe-bench run or eval)")->required();
  sub->add_option("a", o->a, "first reader, as the table labels it: a scheme (rope) or scheme+map (rope+ntk)")
      ->required();
  sub->add_option("b", o->b, "second reader")->required();
  sub->add_option("--length", o->length,
                  "the length to compare at (one the results were read at; cue and charlm results; filings results "
                  "are read on whole documents and compare both of their columns)")
      ->check(CLI::Range(1, 1 << 30));
  sub->add_option("--resamples", o->settings.resamples, "cue: paired-bootstrap resamples")
      ->capture_default_str()
      ->check(CLI::Range(100, 100000));
  sub->add_option("--bootstrap-seed", o->settings.seed, "cue: seed of the bootstrap's resampling stream")
      ->capture_default_str();
  add_run_options(sub, o->run);
  sub->callback([o] {
    const nlohmann::json r = read_results_file(o->results);
    set_threads(o->run.threads);
    try {
      fmt::print("{}", find_task(r["task"]).reporter().compare(r, o->a, o->b, o->length, o->settings));
    } catch (const nlohmann::json::exception& e) {
      throw DataError(fmt::format("{} is malformed ({})", o->results, e.what()));
    }
  });
}

}  // namespace pe::cli
