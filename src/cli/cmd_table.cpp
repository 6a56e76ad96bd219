// pe-bench table: print (and optionally write as Markdown) the table of a results file, without
// recomputing anything: for re-rendering committed results or results from another machine.
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "core/files.h"
#include "tasks/task.h"

namespace pe::cli {

void register_table(CLI::App& app) {
  struct Opts {
    std::string results, markdown, reference;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("table", "Print the table of a results.json (cue or charlm) without recomputing; "
                                          "optionally write it as Markdown");
  sub->add_option("results", o->results, "results file, e.g. results/charlm/results.json")->required();
  sub->add_option("--markdown", o->markdown, "also write the Markdown table to this file (atomically)");
  sub->add_option("--reference", o->reference,
                  "published figures to show beside ours (JSON; default: the reference the results file carries)");
  sub->callback([o] {
    nlohmann::json r;
    try {
      r = nlohmann::json::parse(read_file(o->results));
    } catch (const nlohmann::json::exception& e) {
      throw DataError(fmt::format("{} is not valid JSON ({})", o->results, e.what()));
    }
    if (!r.is_object() || !r.contains("task") || !r.contains("rows"))
      throw DataError(fmt::format("{} is not a pe-bench results file (no task or rows)", o->results));
    bool lengths_ok = r.contains("lengths") && r["lengths"].is_array() && !r["lengths"].empty();
    if (lengths_ok)
      for (auto& n : r["lengths"]) lengths_ok = lengths_ok && n.is_number_integer();
    if (!lengths_ok || !r["rows"].is_array())
      throw DataError(fmt::format("{} is malformed: 'lengths' must be a non-empty list of integers and 'rows' a list",
                                  o->results));
    if (!r["task"].is_string() || !task_exists(r["task"]))
      throw DataError(fmt::format("{} holds results of task {}, which this build does not know (known: {})", o->results,
                                  r["task"].dump(), known_tasks()));
    const Task& task = find_task(r["task"]);
    std::string text, md;
    try {
      if (!o->reference.empty()) r["reference"] = nlohmann::json::parse(read_file(o->reference));
      text = task.table(r);
      md = task.markdown(r);
    } catch (const nlohmann::json::exception& e) {
      throw DataError(fmt::format("{} is malformed ({})", o->results, e.what()));
    }
    fmt::print("{}", text);
    if (!o->markdown.empty()) write_file_atomic(o->markdown, md);
  });
}

}  // namespace pe::cli
