// pe-bench table: print (and optionally write as Markdown) the table of a results file, without
// reading any model: for re-rendering committed results or results from another machine. --restate
// recomputes the summary intervals of proportions from the per-seed values the file holds (the code a
// run ends with) and writes the file back, so a change of interval method needs no retraining.
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "core/files.h"
#include "harness/task.h"

namespace pe::cli {

void register_table(CLI::App& app) {
  struct Opts {
    std::string results, markdown, reference;
    bool restate = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("table",
                                 "Print the table of a results.json (of any task) without recomputing; "
                                 "optionally write it as Markdown");
  sub->add_option("results", o->results, "results file, e.g. results/charlm/results.json")->required();
  sub->add_option("--markdown", o->markdown, "also write the Markdown table to this file (atomically)");
  sub->add_option("--reference", o->reference,
                  "published figures to show beside ours (JSON; default: the reference the results file carries)");
  sub->add_flag("--restate", o->restate,
                "recompute the 95% intervals of proportions (accuracies, retrieval rates) from the per-seed values "
                "the file holds, as a run does at its end, and write the results file back (docs/results-format.md, "
                "\"Intervals\"); perplexity results are left as they are");
  sub->callback([o] {
    nlohmann::json r = read_results_file(o->results);
    const Task& task = find_task(r["task"]);
    std::string text, md;
    try {
      if (o->restate) {
        // the task the file names recomputes its intervals, if its results are proportions (written
        // back before --reference, which only shows figures beside them, joins the file in memory)
        if (task.reporter().restate_intervals(r)) write_json_atomic(o->results, r);
      }
      if (!o->reference.empty()) r["reference"] = parse_json(read_file(o->reference));
      text = task.reporter().table(r);
      md = task.reporter().markdown(r);
    } catch (const nlohmann::json::exception& e) {
      throw DataError(fmt::format("{} is malformed ({})", o->results, e.what()));
    }
    fmt::print("{}", text);
    if (!o->markdown.empty()) write_file_atomic(o->markdown, md);
  });
}

}  // namespace pe::cli
