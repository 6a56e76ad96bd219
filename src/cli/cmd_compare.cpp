// pe-bench compare: two readers of a results file at one length, with intervals — across seeds
// (paired t) and, for the cue task, over the test sequences both read (paired bootstrap, McNemar).
#include <fmt/format.h>

#include <filesystem>
#include <tuple>

#include "cli/common.h"
#include "core/errors.h"
#include "core/parallel.h"
#include "harness/task.h"

namespace pe::cli {

namespace {

// The folder a results file is in ("passkey-packed" for results/packing/passkey-packed/results.json).
std::string results_folder(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string f = p.parent_path().filename().string();
  return f.empty() ? p.stem().string() : f;
}

// Reader a of results r and reader b of results r2 as one results file of their rows (one each, or
// one per seed where the task writes so), each labelled with its folder (scheme "rope@passkey-packed"):
// what a task's compare reads. UsageError when the two were not read alike (another task, lengths or
// test set) or a reader is not in its file.
template <class Opts>
std::tuple<nlohmann::json, std::string, std::string> pair_across(const nlohmann::json& r, const nlohmann::json& r2,
                                                                 const Opts& o) {
  if (r.at("task") != r2.at("task"))
    throw UsageError(fmt::format("--against: {} holds {} results but {} holds {}", o.against, r2.at("task").dump(),
                                 o.results, r.at("task").dump()));
  for (const char* key : {"lengths", "test_seed", "test_sequences", "cell_sequences", "depths", "validation"})
    if (r.value(key, nlohmann::json()) != r2.value(key, nlohmann::json()))
      throw UsageError(fmt::format(
          "--against: {} and {} were not read alike ({}: {} and {}); compare readers of one "
          "test set",
          o.results, o.against, key, r.value(key, nlohmann::json()).dump(), r2.value(key, nlohmann::json()).dump()));
  std::string ta = results_folder(o.results), tb = results_folder(o.against);
  if (ta == tb) ta += "-1", tb += "-2";
  const TaskReporter& reporter = find_task(r.at("task")).reporter();
  nlohmann::json merged = r;
  merged["rows"] = nlohmann::json::array();
  std::string la, lb;
  for (auto [from, reader, folder, label] : {std::tuple{&r, &o.a, &ta, &la}, std::tuple{&r2, &o.b, &tb, &lb}}) {
    std::string known;
    for (const nlohmann::json& row : from->at("rows")) {
      const std::string l = reporter.reader_of(row);
      if (l != *reader) {
        if (known.find("'" + l + "'") == std::string::npos) known += (known.empty() ? "'" : ", '") + l + "'";
        continue;
      }
      nlohmann::json renamed = row;
      renamed["scheme"] = row.at("scheme").get<std::string>() + "@" + *folder;
      *label = reporter.reader_of(renamed);
      merged["rows"].push_back(std::move(renamed));
    }
    if (label->empty())
      throw UsageError(
          fmt::format("no reader '{}' in {} (it holds: {})", *reader, from == &r ? o.results : o.against, known));
  }
  return {merged, la, lb};
}

}  // namespace

void register_compare(CLI::App& app) {
  struct Opts {
    std::string results, a, b, against;
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
  sub->add_option("--against", o->against,
                  "read b from this second results file of the same task, lengths and test set (another experiment's "
                  "models of the same seeds, e.g. another packing policy: pe-bench compare "
                  "results/packing/passkey-packed/results.json rope rope --against "
                  "results/packing/passkey-isolated-reset/results.json --length 256); each reader is then labelled "
                  "with its results folder");
  sub->add_option("--resamples", o->settings.resamples, "cue: paired-bootstrap resamples")
      ->capture_default_str()
      ->check(CLI::Range(100, 100000));
  sub->add_option("--bootstrap-seed", o->settings.seed, "cue: seed of the bootstrap's resampling stream")
      ->capture_default_str();
  add_run_options(sub, o->run);
  sub->callback([o] {
    nlohmann::json r = read_results_file(o->results);
    set_threads(o->run.threads);
    std::string a = o->a, b = o->b;
    try {
      if (!o->against.empty()) std::tie(r, a, b) = pair_across(r, read_results_file(o->against), *o);
      fmt::print("{}", find_task(r["task"]).reporter().compare(r, a, b, o->length, o->settings));
    } catch (const nlohmann::json::exception& e) {
      throw DataError(fmt::format("{} is malformed ({})", o->results, e.what()));
    }
  });
}

}  // namespace pe::cli
