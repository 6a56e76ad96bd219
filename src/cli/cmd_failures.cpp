// pe-bench failures: the failure lab (harness/failure_lab.h, docs/failures.md).
#include <fmt/format.h>

#include "cli/common.h"
#include "core/files.h"
#include "core/progress.h"
#include "harness/failure_lab.h"
#include "harness/faults.h"
#include "harness/task.h"

namespace pe::cli {

void register_failures(CLI::App& app) {
  struct Opts {
    FailureSettings s;
    std::string out = "results/failures";
    bool quiet = false, list = false, no_twin = false;
  };
  auto o = std::make_shared<Opts>();
  std::string faults;
  for (auto& f : fault_list())
    faults += fmt::format("\n  {} ({}): {}; expected to be caught by {}", f.name, f.number, f.words,
                          f.caught_by.empty() ? "no invariant of the doctor" : f.caught_by);
  auto* sub = app.add_subcommand(
      "failures",
      "The failure lab: each positional bug that keeps every shape valid (a fault) applied to the committed models "
      "of its task as they are read; its damage by length against the correct model (faulty minus correct per "
      "seed, a Student t 95% interval over the seeds) and the `pe-bench doctor` invariants that fail on the faulty "
      "model and hold on the correct one. Writes <out>/results.json and <out>/table.md together (docs/failures.md). "
      "The faults:" +
          faults);
  sub->add_option("--results", o->s.results,
                  "the results directory: a fault reads <results>/<its runs>/runs/<task>/<scheme>/seed<k>/")
      ->capture_default_str();
  sub->add_flag("--quick", o->s.quick,
                "read each fault's quick runs (passkey-quick, charlm-quick) at its task's first three lengths");
  sub->add_option("--out", o->out, "directory to write results.json and table.md into")->capture_default_str();
  sub->add_option("--lengths", o->s.lengths,
                  "the lengths every fault is read at (default: its task's: passkey 64-1024, char LM 128-2048)")
      ->delimiter(',')
      ->check(CLI::Range(2, 1 << 16));
  sub->add_option("--seeds", o->s.seeds, "seeds 0 .. N-1 of every model (fewer where fewer are there)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sub->add_option("--items", o->s.items,
                  "test items per length (0: the task's: 220 passkey sequences, 8 char-LM windows)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  sub->add_option("--only", o->s.only, "only these faults (names, comma-separated)")->delimiter(',');
  sub->add_flag("--no-twin", o->no_twin,
                "leave out the doctor's twin row (the PyTorch twin reading each export, about 2 s a model; without "
                "python3-torch it is n/a anyway)");
  sub->add_flag("--list", o->list, "list the faults and exit");
  sub->add_flag("--quiet", o->quiet, "no progress line");
  sub->callback([o] {
    if (o->list) {
      for (auto& f : fault_list()) {
        std::vector<std::string> where;
        for (const Task* t : task_list()) {
          const FaultHosting h = t->reader().fault_hosting();
          for (auto& host : h.faults)
            if (host.fault == f.name)
              where.push_back(fmt::format("{} ({}): {}", t->name(), h.runs, fmt::join(host.schemes, ", ")));
        }
        fmt::print("{:<24} {:>2}  {} [{}]\n", f.name, f.number, f.words, fmt::join(where, "; "));
      }
      return;
    }
    o->s.twin = !o->no_twin;
    Progress progress(o->quiet);
    const nlohmann::json r = run_failures(o->s, [&](const std::string& line) { progress.update(line); });
    progress.done();
    const std::string md = failures_markdown(r);
    write_file_set(o->out, {{"results.json", json_text(r)}, {"table.md", md}});
    fmt::print("{}wrote {}/results.json and {}/table.md\n", md, o->out, o->out);
  });
}

}  // namespace pe::cli
