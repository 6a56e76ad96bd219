// pe-bench exercise: the chapter's exercises pe-bench answers by a computation (docs/exercises.md).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/files.h"
#include "exercises/exercises.h"

namespace pe::cli {

void register_exercise(CLI::App& app) {
  struct Opts {
    std::vector<std::string> ids;
    std::string out_dir = "results/exercises";
    bool list = false;
  };
  auto o = std::make_shared<Opts>();
  std::string ids;
  for (auto& e : exercises::exercise_list()) ids += (ids.empty() ? "" : ", ") + e.id;
  auto* sub = app.add_subcommand(
      "exercise",
      "Answer the d2l chapter's exercises by a computation (" + ids +
          "): each prints its question and its numbers and writes <out-dir>/<ID>.json; nothing is trained (4 "
          "reads the committed char LMs of `make learned-rows`; run from the repository's root). Exercises 10 "
          "and 11.4 are `analyze probe` and `analyze attention`: docs/exercises.md");
  sub->add_option("ids", o->ids, "exercise ids (default: every one): " + ids);
  sub->add_flag("--list", o->list, "list the exercises and their questions, compute nothing");
  sub->add_option("--out-dir", o->out_dir, "where the answers go, one JSON per exercise")->capture_default_str();
  sub->callback([o] {
    std::vector<const exercises::Exercise*> chosen;
    if (o->ids.empty())
      for (auto& e : exercises::exercise_list()) chosen.push_back(&e);
    for (auto& id : o->ids) chosen.push_back(&exercises::find_exercise(id));
    if (o->list) {
      for (auto* e : chosen) fmt::print("{:<6} {}: {}\n", e->id, e->title, e->question);
      return;
    }
    // every answer first, then the files: a run that fails writes none
    std::vector<nlohmann::json> answers;
    for (auto* e : chosen) answers.push_back(e->compute());
    make_dirs(o->out_dir);
    for (size_t i = 0; i < chosen.size(); ++i) {
      const auto* e = chosen[i];
      const std::string path = o->out_dir + "/" + e->id + ".json";
      write_json_atomic(path, {{"exercise", e->id},
                               {"title", e->title},
                               {"question", e->question},
                               {"method", e->method},
                               {"command", "pe-bench exercise " + e->id},
                               {"answer", answers[i]}});
      fmt::print("Exercise {}: {}\n{}\n\n{}written to {}\n\n", e->id, e->title, e->question, e->print(answers[i]),
                 path);
    }
  });
}

}  // namespace pe::cli
