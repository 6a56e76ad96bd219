// pe-bench doctor: the invariants of a correct positional implementation run on trained models
// (harness/doctor.h, docs/doctor.md).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/errors.h"
#include "core/files.h"
#include "harness/checkpoint.h"
#include "harness/doctor.h"
#include "harness/interop.h"
#include "harness/task.h"

namespace pe::cli {

namespace {

struct Checked {
  nlohmann::json json;
  std::string table;
  int failed = 0;
};

Checked check_one(const std::string& path, const std::string& label, const DoctorSettings& base) {
  const CheckpointReader reader(path, "");
  const nlohmann::json& named = reader.json_().contains("task") ? reader.json_().at("task") : nlohmann::json();
  if (!named.is_string() || !task_exists(named.get<std::string>()))
    throw reader.fail(fmt::format("task {} is not one pe-bench knows ({})", named.dump(), known_tasks()));
  const std::string task = named;
  std::unique_ptr<DoctorModel> model = find_task(task).reader().doctor_model(path);
  DoctorSettings s = base;
  s.checkpoint = path;
  const std::string scheme = model->scheme().name(), kind = model->kind();
  const int length = s.length > 0 ? s.length : model->train_length();
  const std::vector<DoctorRow> rows = run_doctor(*model, s);
  Checked c;
  c.json = doctor_json(rows);
  c.failed = c.json.at("failed");
  c.json["checkpoint"] = label, c.json["task"] = task, c.json["scheme"] = scheme, c.json["model"] = kind;
  c.json["length"] = length, c.json["seed"] = s.seed;
  c.table = fmt::format("{}: the {} task's {} ({}), read at {} tokens\n{}", label, task, kind, scheme, length,
                        doctor_table(rows));
  return c;
}

}  // namespace

void register_doctor(CLI::App& app) {
  struct Opts {
    std::vector<std::string> checkpoints;
    std::string from;
    int length = 0;
    uint64_t seed = 0;
    bool json = false, brief = false, twin = false;
  };
  auto o = std::make_shared<Opts>();
  std::string list;
  for (auto& [name, what] : doctor_invariants()) list += fmt::format("\n  {}: {}", name, what);
  auto* sub = app.add_subcommand(
      "doctor",
      "Run the invariants that define a correct positional implementation on trained models (any task, any "
      "scheme) and print one row per invariant: what this model is expected to do (holds; moves, where the "
      "opposite is expected: an encoder's future rows, an absolute scheme's shift; n/a, with why), the measured "
      "value (max |difference of logits| unless said), the tolerance and the verdict. Exit 0 when every expected "
      "invariant holds, 9 when one does not (docs/doctor.md). The invariants:" +
          list);
  sub->add_option("--checkpoint", o->checkpoints, "checkpoint.json files to examine (one or more)");
  sub->add_option("--from", o->from, "an export's directory (model.safetensors and config.json), imported first");
  sub->add_option("--length", o->length,
                  "the length the model is read at (0: its training length); the reading invariants read "
                  "sequences of at most 96 tokens of it")
      ->check(CLI::Range(0, 1 << 16))
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "the random sequences' seed")->capture_default_str();
  sub->add_flag("--twin", o->twin,
                "also read each checkpoint's export with the PyTorch twin (python/pebench_torch; needs Debian's "
                "python3-torch, else the row is n/a and says why): the twin row");
  sub->add_flag("--json", o->json, "print the rows as JSON instead of tables");
  sub->add_flag("--brief", o->brief, "one line per checkpoint, and the rows only of one that fails");
  sub->callback([o] {
    if (o->checkpoints.empty() == o->from.empty())
      throw UsageError("give --checkpoint FILE ... or --from DIR (an export), not both and not neither");
    DoctorSettings base;
    base.length = o->length, base.seed = o->seed, base.twin = o->twin;
    std::vector<Checked> done;
    if (!o->from.empty()) {  // the export imported into a temporary checkpoint, examined, removed
      const ScratchPath tmp("pe-bench-doctor-import.json");
      import_checkpoint(o->from, tmp.path());
      done.push_back(check_one(tmp.path(), o->from, base));
    }
    int failed = 0, broken = 0;
    const auto report = [&](const Checked& c) {
      failed += c.failed, broken += c.failed > 0;
      if (o->json) return;
      if (!o->brief || c.failed > 0)
        fmt::print("{}\n", c.table);
      else
        fmt::print("ok {} ({} {})\n", c.json.at("checkpoint").get<std::string>(), c.json.at("task").get<std::string>(),
                   c.json.at("scheme").get<std::string>());
      std::fflush(stdout);
    };
    for (auto& c : done) report(c);
    for (auto& path : o->checkpoints) {
      done.push_back(check_one(path, path, base));
      report(done.back());
    }
    if (o->json) {
      nlohmann::json all = nlohmann::json::array();
      for (auto& c : done) all.push_back(c.json);
      fmt::print("{}", json_text(done.size() == 1 ? done.front().json : nlohmann::json{{"models", all}}));
    }
    if (broken > 0)
      throw InvariantBroken(
          fmt::format("doctor: {} invariant{} expected of {} of {} model{} did not hold (the FAIL "
                      "rows above; docs/doctor.md says what each means)",
                      failed, failed == 1 ? "" : "s", broken, done.size(), done.size() == 1 ? "" : "s"));
  });
}

}  // namespace pe::cli
