// A task is one entry: its name, its defaults over the shared key table and the keys only it reads,
// the shape of its model, one training run, the reading of its checkpoints, the whole experiment
// and its tables. The CLI and the config code call these; nothing outside a task's folder tests
// its name. Adding a task: a folder under src/tasks/, one Task implementation, one line in
// src/tasks/registry.cpp (docs/architecture.md, "How to add a task").
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/progress.h"
#include "harness/config.h"

namespace pe {

// What one training run left behind.
struct TaskRun {
  std::string run_dir, checkpoint;
  std::string summary;  // one line for the terminal
};

// How an experiment is run (never part of its results).
struct RunControl {
  bool quiet = false;
  int threads = 0;      // 0: every core
  bool resume = false;  // keep complete run directories with the same config (tasks that support it)
};

// What an experiment prints when it is done: the table, and anything after it (analyses, timings).
struct ExperimentReport {
  nlohmann::json results;
  std::string text;
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
  // Keys that only this task reads; another task's config refuses them through its options.
  virtual std::vector<std::string> own_keys() const = 0;
  // Checks that only make sense for this task (throws ConfigError naming the key).
  virtual void validate(const nlohmann::json& cfg) const {}
  // The attention shape of the task's model for an experiment: heads per layer and layers.
  virtual int n_heads(const ExperimentConfig& e) const = 0;
  virtual int n_layers(const ExperimentConfig& e) const = 0;
  // Trains one (scheme, seed) run from scratch and writes its run directory.
  virtual TaskRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                        Progress& progress) const = 0;
  // Reads checkpoints with e's settings (lengths, maps, test or validation data) into a results JSON.
  virtual nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                                  bool progress) const = 0;
  // The whole experiment: every scheme and seed, results.json and table.md in e.out_dir.
  virtual ExperimentReport run(const nlohmann::json& resolved, const RunControl& control) const = 0;
  // A results file as a plain-text table, and as Markdown (reference: published figures, may be null).
  virtual std::string table(const nlohmann::json& results) const = 0;
  virtual std::string markdown(const nlohmann::json& results, const nlohmann::json& reference) const = 0;

  // Whether this task reads `key` (a shared key, or one of its own).
  bool reads(const std::string& key) const;
};

// The registry (src/tasks/registry.cpp).
const std::vector<const Task*>& task_list();
bool task_exists(const std::string& name);
const Task& find_task(const std::string& name);  // UsageError listing the known tasks
std::string known_tasks();

}  // namespace pe
