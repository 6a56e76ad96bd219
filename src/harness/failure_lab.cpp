// The failure lab's run and its tables (harness/failure_lab.h).
#include "harness/failure_lab.h"

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/files.h"
#include "harness/doctor_twin.h"
#include "harness/faults.h"
#include "harness/statistics.h"
#include "harness/task.h"

namespace pe {

namespace {

// One fault read on one task's models: what the task's hosting says of it.
struct FaultCase {
  const FaultInfo& f;
  std::string task;
  const FaultHosting& hosting;
  const FaultHost& host;
};

std::string lab_checkpoint(const FailureSettings& s, const FaultCase& c, const std::string& scheme, int seed) {
  return fmt::format("{}/{}/runs/{}/{}/seed{}/checkpoint.json", s.results,
                     s.quick ? c.hosting.quick_runs : c.hosting.runs, c.task, scheme, seed);
}

// The invariants the doctor's table fails on a model, by name; `refused`: those whose reading the model refused
// (a position past a learned table), which fail without measuring anything.
std::vector<std::string> doctor_failures(DoctorModel& m, const DoctorSettings& d, std::vector<std::string>* refused) {
  std::vector<std::string> out;
  for (auto& r : run_doctor_invariants(m, d)) {
    if (r.verdict != "FAIL") continue;
    const bool no_reading = r.detail.rfind(kRefusedReading, 0) == 0;
    if (no_reading && refused) refused->push_back(r.name);
    if (!no_reading || !refused) out.push_back(r.name);
  }
  return out;
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// One fault on one scheme's seeds.
// The seeds 0 .. k-1 of a scheme that have a checkpoint (at most s.seeds).
int seeds_of(const FailureSettings& s, const FaultCase& f, const std::string& scheme) {
  int seeds = 0;
  while (seeds < s.seeds && file_exists(lab_checkpoint(s, f, scheme, seeds))) ++seeds;
  return seeds;
}

// One fault on one scheme's seeds, read at `lengths` by `probe`.
nlohmann::json fault_on_scheme(const FailureSettings& s, const FaultCase& c, const std::string& scheme, int seeds,
                               DamageProbe& probe, const std::vector<int>& lengths,
                               std::map<std::string, double>& correct_cache) {
  const Task& task = find_task(c.task);
  const FaultInfo& f = c.f;
  const size_t L = lengths.size();
  std::vector<std::vector<double>> correct(L), faulty(L);
  nlohmann::json per_seed = nlohmann::json::array();
  int train = 0;
  std::unique_ptr<DoctorModel> right0, broken0;  // seed 0's, kept for the doctor below
  for (int k = 0; k < seeds; ++k) {
    const std::string path = lab_checkpoint(s, c, scheme, k);
    std::unique_ptr<DoctorModel> right = task.reader().doctor_model(path);
    if (f.read_correctly) right = f.read_correctly(std::move(right));
    std::unique_ptr<DoctorModel> broken = f.apply(task.reader().doctor_model(path));
    train = right->train_length();
    nlohmann::json row{{"seed", k}, {"correct", nlohmann::json::array()}, {"faulty", nlohmann::json::array()}};
    for (size_t i = 0; i < L; ++i) {
      const std::string key = fmt::format("{}|{}|{}", path, lengths[i], f.correct);
      if (!correct_cache.count(key)) correct_cache[key] = probe.measure(*right, lengths[i]);
      const double c = correct_cache[key], b = probe.measure(*broken, lengths[i]);
      correct[i].push_back(c), faulty[i].push_back(b);
      row["correct"].push_back(finite_or_null(c)), row["faulty"].push_back(finite_or_null(b));
    }
    per_seed.push_back(row);
    if (k == 0) right0 = std::move(right), broken0 = std::move(broken);
  }
  nlohmann::json m{{"scheme", scheme}, {"seeds", seeds}, {"train_length", train}, {"per_seed", per_seed}};
  for (size_t i = 0; i < L; ++i) {
    std::vector<double> diff;
    double c = 0, b = 0;
    bool readable_c = true, readable_b = true;
    for (int k = 0; k < seeds; ++k) {
      readable_c = readable_c && std::isfinite(correct[i][size_t(k)]);
      readable_b = readable_b && std::isfinite(faulty[i][size_t(k)]);
      c += correct[i][size_t(k)], b += faulty[i][size_t(k)];
      diff.push_back(faulty[i][size_t(k)] - correct[i][size_t(k)]);
    }
    m["correct"].push_back(readable_c ? nlohmann::json(c / seeds) : nlohmann::json(nullptr));
    m["faulty"].push_back(readable_b ? nlohmann::json(b / seeds) : nlohmann::json(nullptr));
    if (readable_c && readable_b) {
      const stats::Summary d = stats::summarize(diff);
      m["damage"].push_back({{"mean", d.mean}, {"half_width", d.half_width}});
    } else {
      m["damage"].push_back(nullptr);
    }
  }
  // The doctor on seed 0's faulty model at the fault's length, and on its correct model at the training length
  // (where every committed model passes): what fails on the faulty one caught it.
  const std::string first = lab_checkpoint(s, c, scheme, 0);
  const int at = c.host.doctor_length > 0 ? c.host.doctor_length : train;
  std::vector<std::string> refused;
  DoctorSettings d;
  d.seed = s.doctor_seed, d.checkpoint = first, d.twin = s.twin;
  d.length = train;
  const std::vector<std::string> on_correct = doctor_failures(*right0, d, nullptr);
  d.length = at;
  const std::vector<std::string> on_faulty = doctor_failures(*broken0, d, &refused);
  const std::set<std::string> before(on_correct.begin(), on_correct.end());
  nlohmann::json caught = nlohmann::json::array();
  for (auto& n : on_faulty)
    if (!before.count(n)) caught.push_back(n);
  m["doctor"] = {{"length", at},
                 {"fails_correct", on_correct},
                 {"fails_faulty", on_faulty},
                 {"caught_by", caught},
                 {"refused", refused}};
  return m;
}

// An accuracy to three places, a perplexity to two; — where the model could not be read.
std::string score_cell(const nlohmann::json& v, bool accuracy) {
  if (v.is_null()) return "—";
  return accuracy ? fmt::format("{:.3f}", v.get<double>()) : fmt::format("{:.2f}", v.get<double>());
}

// s + separator + x, without the separator when s is empty.
void append_joined(std::string& s, const char* separator, const std::string& x) {
  if (!s.empty()) s += separator;
  s += x;
}

}  // namespace

nlohmann::json run_failures(const FailureSettings& s, const std::function<void(const std::string&)>& progress) {
  if (s.seeds < 1 || s.items < 0) throw UsageError("the failure lab needs at least one seed, and items >= 0");
  std::vector<const FaultInfo*> faults;
  if (s.only.empty())
    for (auto& f : fault_list()) faults.push_back(&f);
  else
    for (auto& n : s.only) faults.push_back(&find_fault(n));
  nlohmann::json out{{"results", s.results},
                     {"quick", s.quick},
                     {"seeds", s.seeds},
                     {"items", s.items},
                     {"test_seed", s.test_seed},
                     {"doctor_seed", s.doctor_seed},
                     {"twin", !s.twin                      ? "not asked for"
                              : twin_unavailable().empty() ? "read"
                                                           : "n/a: " + twin_unavailable()},
                     {"faults", nlohmann::json::array()}};
  nlohmann::json names = nlohmann::json::array();
  for (auto& [name, what] : doctor_invariants())
    if (name != "export") names.push_back(name);
  out["invariants"] = names;
  // what each task reads, and with which faults
  std::vector<std::pair<std::string, FaultHosting>> hostings;
  for (const Task* t : task_list()) {
    FaultHosting h = t->reader().fault_hosting();
    for (auto& host : h.faults) find_fault(host.fault);  // a task naming a fault there is not is a bug here
    if (!h.faults.empty()) hostings.emplace_back(t->name(), std::move(h));
  }
  std::map<std::string, double> correct_cache;
  for (const FaultInfo* f : faults)
    for (auto& [task, hosting] : hostings)
      for (auto& host : hosting.faults) {
        if (host.fault != f->name) continue;
        const FaultCase c{*f, task, hosting, host};
        nlohmann::json j{{"number", f->number},
                         {"name", f->name},
                         {"words", f->words},
                         {"injected", f->injected},
                         {"expected", f->caught_by},
                         {"fix", f->fix},
                         {"correct", f->correct.empty() ? std::string("the model as trained") : f->correct},
                         {"task", task},
                         {"models", nlohmann::json::array()},
                         {"skipped", nlohmann::json::array()}};
        std::vector<std::pair<std::string, bool>> read;  // (scheme, a control)
        for (auto& n : host.schemes) read.emplace_back(n, false);
        for (auto& n : host.controls) read.emplace_back(n, true);
        std::unique_ptr<DamageProbe> probe;
        std::vector<int> lengths;
        for (auto& [scheme, control] : read) {
          const int seeds = seeds_of(s, c, scheme);
          if (seeds == 0) {
            j["skipped"].push_back(scheme);
            continue;
          }
          if (!probe) {  // the task's measure, from the fault's first model: its lengths unless --lengths
            probe = find_task(task).reader().damage_probe(lab_checkpoint(s, c, scheme, 0), s.items, s.test_seed);
            lengths = s.lengths.empty() ? probe->lengths() : s.lengths;
            if (s.quick && s.lengths.empty() && lengths.size() > 3) lengths.resize(3);
            j["metric"] = probe->metric(), j["higher_is_better"] = probe->higher_is_better(), j["lengths"] = lengths;
          }
          nlohmann::json m = fault_on_scheme(s, c, scheme, seeds, *probe, lengths, correct_cache);
          m["control"] = control;
          j["models"].push_back(m);
          if (progress) progress(fmt::format("{} on the {} task's {}: done", f->name, task, scheme));
        }
        out["faults"].push_back(j);
      }
  bool any = false;
  for (auto& f : out["faults"]) any = any || !f["models"].empty();
  if (!any)
    throw UsageError(
        fmt::format("no checkpoint of any fault's schemes under {} (a fault reads <results>/<its task's runs>/runs/"
                    "<task>/<scheme>/seed<k>/checkpoint.json)",
                    s.results));
  return out;
}

std::string failures_markdown(const nlohmann::json& r) {
  std::string md = "# The failure lab\n\n";
  md += fmt::format(
      "Each fault applied to the committed models of its task as they are read (seeds 0 to {}), each model read "
      "at every length on {}. "
      "Each cell: the correct model's score, the faulty one's, and the damage (faulty minus correct, mean "
      "over the seeds ± the Student t 95% half-width over them; — where a model cannot be read at that length). "
      "A *control* is a scheme the fault should not touch. *Caught by*: the doctor's invariants that fail on "
      "seed 0's faulty model read at the length shown and hold on its correct model at the training length (the "
      "twin row: {}). docs/failures.md says what each fault is and how to fix it.\n\n",
      r.at("seeds").get<int>() - 1,
      r.at("items").get<int>() > 0 ? fmt::format("{} test items", r.at("items").get<int>())
                                   : std::string("its task's default test items (docs/failures.md)"),
      r.at("twin").get<std::string>());
  for (auto& f : r.at("faults")) {
    std::string head = "| fault | scheme |", rule = "|---|---|";
    if (f.contains("lengths"))
      for (auto& n : f.at("lengths")) head += fmt::format(" {} |", n.get<int>()), rule += "---|";
    head += " caught by (doctor at length) | expected |\n", rule += "---|---|\n";
    const bool accuracy = f.value("higher_is_better", true);
    md += fmt::format("## {}. {}\n\n{}. Injected: {}. Measure: {}. Correct reading: {}.\n\n", f.at("number").get<int>(),
                      f.at("name").get<std::string>(), f.at("words").get<std::string>(),
                      f.at("injected").get<std::string>(), f.value("metric", std::string("—")),
                      f.value("correct", std::string("the model as trained")));
    if (!f.at("models").empty()) md += head + rule;
    for (auto& m : f.at("models")) {
      std::string line = fmt::format("| {} | {}{} ({} seed{}) |", f.at("name").get<std::string>(),
                                     m.at("scheme").get<std::string>(), m.at("control").get<bool>() ? ", control" : "",
                                     m.at("seeds").get<int>(), m.at("seeds").get<int>() == 1 ? "" : "s");
      for (size_t i = 0; i < m.at("correct").size(); ++i) {
        const auto& d = m.at("damage")[i];
        line +=
            fmt::format(" {} → {}", score_cell(m.at("correct")[i], accuracy), score_cell(m.at("faulty")[i], accuracy));
        if (!d.is_null())
          line +=
              accuracy
                  ? fmt::format(" ({:+.3f} ± {:.3f})", d.at("mean").get<double>(), d.at("half_width").get<double>())
                  : fmt::format(" ({:+.2f} ± {:.2f})", d.at("mean").get<double>(), d.at("half_width").get<double>());
        line += " |";
      }
      std::string caught;
      for (auto& n : m.at("doctor").at("caught_by")) append_joined(caught, ", ", n.get<std::string>());
      std::string refused;
      for (auto& n : m.at("doctor").at("refused")) append_joined(refused, ", ", n.get<std::string>());
      if (!refused.empty()) refused = "; the reading refused by " + refused;
      line += fmt::format(" {}{} ({}) | {} |\n", caught.empty() ? "**none**" : caught, refused,
                          m.at("doctor").at("length").get<int>(),
                          f.at("expected").get<std::string>().empty() ? "—" : f.at("expected").get<std::string>());
      md += line;
    }
    if (!f.at("skipped").empty()) {
      std::string names;
      for (auto& n : f.at("skipped")) append_joined(names, ", ", n.get<std::string>());
      md += fmt::format("\nNot read (no checkpoint under the runs folder): {}.\n", names);
    }
    md += "\n";
  }
  // The matrix: a fault's row marks each invariant that caught it on any of its models.
  md +=
      "## Fault × invariant\n\nEach cell names the schemes (controls aside) on which the invariant failed for the "
      "faulty model and held for the correct one.\n\n| fault |";
  std::string sep = "|---|";
  for (auto& n : r.at("invariants")) md += fmt::format(" {} |", n.get<std::string>()), sep += "---|";
  md += "\n" + sep + "\n";
  for (auto& f : r.at("faults")) {
    md += fmt::format("| {}. {} |", f.at("number").get<int>(), f.at("name").get<std::string>());
    for (auto& n : r.at("invariants")) {
      std::string who;
      for (auto& m : f.at("models"))
        for (auto& c : m.at("doctor").at("caught_by"))
          if (!m.at("control").get<bool>() && c == n) append_joined(who, " ", m.at("scheme").get<std::string>());
      md += fmt::format(" {} |", who);
    }
    md += "\n";
  }
  return md;
}

}  // namespace pe
