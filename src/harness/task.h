// A task is one entry: its identity (name, defaults over the shared key table, the keys only it
// reads, the shape of its model) and four roles: training (a run, the runs that start from it, the
// gradient check), reading (its checkpoints into results), reporting (tables, compare, analyses) and
// tools (its own subcommands). The experiment runner (harness/experiment.h), the CLI and the config
// code call the role they use; nothing outside a task's folder tests its name. Adding a task: a folder
// under src/tasks/, one Task with its roles, one line in src/tasks/registry.cpp (docs/architecture.md,
// "How to add a task").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/keys.h"
#include "core/progress.h"
#include "harness/config.h"
#include "harness/damage_probe.h"
#include "harness/doctor.h"
#include "harness/run.h"
#include "models/check_batch.h"
#include "models/gradcheck.h"
#include "schemes/frequency_maps.h"

namespace CLI {
class App;
}

namespace pe {

// " (resumed after step N)" for a run continued from a saved state, else "".
inline std::string resumed_note(int resumed_at) {
  return resumed_at > 0 ? " (resumed after step " + std::to_string(resumed_at) + ")" : "";
}

// A results row's reader as the tables label it: "rope", or "rope<sep>pi" when read with a map.
inline std::string reader_label(const nlohmann::json& row, const std::string& sep = "+") {
  const std::string scheme = row.at("scheme").get<std::string>(), map = row.at("map").get<std::string>();
  return is_identity_map(map) ? scheme : scheme + sep + map;
}

// The row of `reader` (reader_label) in a results file; UsageError listing the readers it holds.
inline const nlohmann::json& find_reader_row(const nlohmann::json& results, const std::string& reader) {
  std::string known;
  for (auto& row : results.at("rows")) {
    if (reader_label(row) == reader) return row;
    known += (known.empty() ? "" : ", ") + reader_label(row);
  }
  throw UsageError("no reader '" + reader + "' in these results (they hold: " + known + ")");
}

// The index of `length` in a results file's "lengths" (what compare reads at); UsageError listing them.
inline size_t length_index(const nlohmann::json& results, int length) {
  const nlohmann::json& lengths = results.at("lengths");
  if (length == 0) throw UsageError("these results need --length: one of " + lengths.dump());
  for (size_t i = 0; i < lengths.size(); ++i)
    if (lengths[i] == length) return i;
  throw UsageError("--length " + std::to_string(length) + ": these results were read at " + lengths.dump());
}

// How an experiment is run (never part of its results).
struct RunControl {
  bool quiet = false;
  int threads = 0;          // 0: every core
  bool resume = false;      // keep complete run directories whose config.json is the run's
  bool train_only = false;  // train the runs (and their follow-ups) and stop: no evaluation, no results
};

// How `pe-bench compare` resamples the shared test sequences.
struct CompareSettings {
  int resamples = 2000;
  uint64_t seed = 1;
};

// What an experiment leaves: the results, the text it prints (the table, analyses, timings), and
// how long it took.
struct ExperimentReport {
  nlohmann::json results;
  std::string text;
  double train_seconds = 0, eval_seconds = 0;
  int runs = 0, kept = 0, resumed = 0;  // runs; of them kept whole and continued from a state (--resume)
  long long total_steps = 0;
};

// A task's port is four roles and its identity. Each role is a small interface with defaults for what
// a task may leave out; a task overrides what has no default. Callers ask for the role they use
// (task.trainer().train(...), task.reader().evaluate(...)), so each sees only its part.

// Training: one run from scratch, the runs that start from it, and the model's gradients.
class TaskTrainer {
 public:
  virtual ~TaskTrainer() = default;
  // How the runner schedules an experiment's runs: true when one run is small enough that the
  // fastest way is one run per thread (each trained on one thread); false when one run uses every
  // thread and the runs go one after another.
  virtual bool parallel_runs() const = 0;
  // Trains one (scheme, seed) run from scratch and writes its run directory; with e.resume, keeps a
  // complete run directory whose config.json is this run's instead.
  virtual TrainedRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme,
                           int seed, Progress& progress) const = 0;
  // Runs that start from a trained one (e.g. a fine-tune per map), in the order they are read.
  // Keys that configure the follow-up runs only (a fine-tune's steps, ...): a run directory trained
  // under other values of them is still this run. A follow-up's own directory records them in its
  // config and is compared on them (is_follow_up tells its config apart).
  virtual std::vector<std::string> follow_up_keys() const { return {}; }
  virtual bool is_follow_up(const nlohmann::json& run_config) const { return false; }
  virtual std::vector<TrainedRun> follow_ups(const ExperimentConfig& e, const nlohmann::json& resolved,
                                             const TrainedRun& run, Progress& progress) const {
    return {};
  }
  // The task's model with `scheme` against central differences in double (models/gradcheck.h): one
  // row per tensor; empty when its model cannot hold the scheme.
  virtual std::vector<GradCheckRow> gradcheck(const std::string& scheme) const = 0;
};

// Reading: checkpoints read with an experiment's settings, checked, and looked into.
class TaskReader {
 public:
  virtual ~TaskReader() = default;
  // Reads checkpoints with e's settings (lengths, maps, test or validation data) into a results JSON
  // with the experiment that read them ("experiment").
  virtual nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                                  bool progress) const = 0;
  // Reads a checkpoint of this task exactly as eval and sample do (the model built from its sections,
  // every tensor checked against the model's layout and filled) and drops it: CheckpointError naming
  // the file and the problem. Export checks a checkpoint with it before converting anything, and
  // import checks the checkpoint it is about to write.
  virtual void check_checkpoint(const std::string& checkpoint) const = 0;
  // A check batch (models/check_batch.h) of one of this task's checkpoints read with `map` at `length`
  // tokens (0: its training length) under the batch mode `mode` (check_modes), for `pe-bench export
  // --check`. UsageError when the model cannot be read so (a map for a scheme without frequencies, a
  // length past a learned table, a mode its model does not take).
  virtual CheckBatch check_batch(const std::string& checkpoint, const MapSpec& map, int length, uint64_t seed,
                                 const std::string& mode) const {
    throw UsageError("this task has no check batch");
  }
  // The model of one of this task's checkpoints as `pe-bench doctor` reads it (harness/doctor.h), loaded as
  // check_checkpoint loads it. UsageError for a task whose model the doctor does not read.
  virtual std::unique_ptr<DoctorModel> doctor_model(const std::string& checkpoint) const {
    throw UsageError("pe-bench doctor does not read this task's checkpoints");
  }
  // The failure lab's measure of damage on this task (harness/faults.h): `items` test items per length from
  // the test stream `test_seed`, read as the checkpoint's task reads them. UsageError for a task the lab does
  // not measure.
  virtual std::unique_ptr<DamageProbe> damage_probe(const std::string& checkpoint, int items,
                                                    uint64_t test_seed) const {
    throw UsageError("the failure lab does not measure this task");
  }
  // The failure lab's faults read on this task's committed models, and where those are (none: the lab skips it).
  virtual FaultHosting fault_hosting() const { return {}; }
  // What attention does at `length` (pe-bench analyze attention): the checkpoint read with `map` on
  // `sequences` of the task's own sequences, every query row fed to an AttentionStats
  // (models/attention_stats.h); its JSON with "scheme", "seed", "train_length". {"readable": false}:
  // the model has no position that far (a learned table). null: the task has no attention maps to read.
  virtual nlohmann::json attention_stats(const std::string& checkpoint, const MapSpec& map, int length, int sequences,
                                         const ExperimentConfig& e) const {
    return nullptr;
  }
  // The position probe (models/position_probe.h, pe-bench analyze probe): a ridge regression of each token's
  // position from each residual state of the checkpoint read at `length` (0: its training length), fitted on `windows`
  // of the task's sequences and scored on as many held out; initial: the model at the weights its training started
  // from. null: the task has no probe.
  virtual nlohmann::json position_probe(const std::string& checkpoint, int length, int windows, bool initial,
                                        const ExperimentConfig& e) const {
    return nullptr;
  }
};

// Reporting: a results file as tables, two of its readers compared, and the analyses an experiment asks for.
class TaskReporter {
 public:
  virtual ~TaskReporter() = default;
  // A results file as a plain-text table, and as Markdown (with the published figures of its
  // "reference", when it has one).
  virtual std::string table(const nlohmann::json& results) const = 0;
  virtual std::string markdown(const nlohmann::json& results) const = 0;
  // Two readers of a results file (a scheme, or scheme+map, as the table labels them) compared at
  // one length: across seeds (paired t) and, where the task can re-read the checkpoints, over the
  // shared test sequences. The text to print; UsageError naming an unknown reader or length.
  virtual std::string compare(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                              const CompareSettings& settings) const = 0;
  // The analyses e asks for of an experiment's checkpoints: the text to print and the files for
  // e.out_dir (name, text), which the runner writes with results.json and table.md as one set.
  struct Analysis {
    std::string text;
    std::vector<std::pair<std::string, std::string>> files;
  };
  virtual Analysis analyze(const std::vector<std::string>& checkpoints, const ExperimentConfig& e) const { return {}; }
  // Every file name analyze() can write into out_dir: a run that does not write one removes an
  // earlier run's copy, so an output set never mixes two runs.
  virtual std::vector<std::string> analysis_files() const { return {}; }
  // Recomputes the 95% intervals of proportions (accuracies, retrieval rates) from the per-seed values
  // a results file holds, as a run does at its end (pe-bench table --restate); false, leaving the
  // file as it is, for a task whose results are not proportions (perplexities).
  virtual bool restate_intervals(nlohmann::json& results) const { return false; }
  // The reader a results row belongs to, as the tables and compare name it (a task whose rows carry
  // more than a scheme and a map, or one row per seed, labels them its own way).
  virtual std::string reader_of(const nlohmann::json& row) const { return reader_label(row); }
};

// Tools: the task's own subcommands (e.g. the char LM's finetune and sample), added to the command
// line beside the core ones (src/cli/); the option helpers are harness/cli_options.h. None by default.
class TaskTools {
 public:
  virtual ~TaskTools() = default;
  virtual void add_tools(CLI::App& app) const {}
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // The task's defaults where they differ from the shared key table (the "task" key included).
  virtual nlohmann::json defaults() const = 0;
  // Schemes its default list starts with (a published table's order); every other registered scheme
  // its model can hold follows in registry order.
  virtual std::vector<std::string> leading_schemes() const { return {}; }
  // The keys this task declares (name, type, default, help, domain): the key table holds them
  // (harness/config.h) and another task's config refuses them. The task reads them from
  // ExperimentConfig::value into its own settings.
  virtual std::vector<KeySpec> keys() const = 0;
  // Shared keys this task does not read (its config refuses them by name rather than ignoring them).
  virtual std::vector<std::string> unread_keys() const { return {}; }
  // Why this task cannot honour another task's key (one clause, said with the refusal), or "" (the
  // refusal then names the key and the task alone).
  virtual std::string why_not(const std::string& key) const { return ""; }
  // Checks that only make sense for this task (throws ConfigError naming the key).
  virtual void validate(const nlohmann::json& cfg) const {}
  // The attention shape of the task's model for an experiment: heads per layer and layers.
  virtual int n_heads(const ExperimentConfig& e) const = 0;
  virtual int n_layers(const ExperimentConfig& e) const = 0;

  // The roles (above).
  virtual const TaskTrainer& trainer() const = 0;
  virtual const TaskReader& reader() const = 0;
  virtual const TaskReporter& reporter() const = 0;
  virtual const TaskTools& tools() const {
    static const TaskTools none;
    return none;
  }

  // Whether this task reads `key` (a shared key, or one of its own).
  bool reads(const std::string& key) const;
};

// The refusal of a key `task` does not read, in one line: "key 'K' does not apply to the T task (why;)
// its keys: pe-bench run --help; drop it or set task".
std::string not_for_task(const Task& task, const std::string& key);

// A task whose roles are classes with default constructors: each role one static object, handed out
// by the accessors (a task's entry.cpp: class CueTask final : public TaskOf<CueTrainer, CueReader, CueReporter>).
template <class Trainer, class Reader, class Reporter, class Tools = TaskTools>
class TaskOf : public Task {
 public:
  const TaskTrainer& trainer() const final { return role<Trainer>(); }
  const TaskReader& reader() const final { return role<Reader>(); }
  const TaskReporter& reporter() const final { return role<Reporter>(); }
  const TaskTools& tools() const final { return role<Tools>(); }

 private:
  template <class Role>
  static const Role& role() {
    static const Role r;
    return r;
  }
};

// The registry (src/tasks/registry.cpp).
const std::vector<const Task*>& task_list();
bool task_exists(const std::string& name);
const Task& find_task(const std::string& name);  // UsageError listing the known tasks
std::string known_tasks();

}  // namespace pe
