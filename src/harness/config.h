// Experiment configuration: a table of known keys with types and defaults. Experiment files list
// only what differs from the defaults; `--set key=value` overrides apply last. An unknown key or a
// value of the wrong type is a ConfigError naming the key.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/keys.h"
#include "schemes/frequency_maps.h"

namespace pe {

// Limits on sizes (the key table's domains use them; --help prints them).
inline constexpr int kMaxLength = 2048;           // any sequence length: training, reading, fine-tuning
inline constexpr int kMaxSteps = 1000000;         // optimiser steps of one run
inline constexpr int kMaxBatch = 4096;            // sequences per step or per evaluation batch
inline constexpr int kMaxTestSequences = 100000;  // cue test sequences per length
inline constexpr int kMaxSeed = 2147483647;

// The keys every task reads (or refuses by name: Task::unread_keys).
const std::vector<KeySpec>& common_keys();
// The whole table: the common keys, every task's own keys (Task::keys) and every scheme's settings.
const std::vector<KeySpec>& config_keys();
const KeySpec& key_spec(const std::string& key);  // the table's entry (Error if there is none)
// The defaults of a task (empty: the registry's first, the tournament's cue task).
nlohmann::json default_config(const std::string& task = "");
// The task a file and --set overrides select (the last task=... of sets wins; default: the registry's first).
std::string task_of(const nlohmann::json& file, const std::vector<std::string>& sets);
// Checks and merges `overrides` (a JSON object) into cfg; `origin` names the source in errors.
void merge_config(nlohmann::json& cfg, const nlohmann::json& overrides, const std::string& origin);
// Reads an experiment file and merges it over the defaults of its task (or the task sets selects).
nlohmann::json read_experiment_file(const std::string& path);
nlohmann::json load_experiment(const std::string& path, const std::vector<std::string>& sets = {});
// Applies one "key=value" override (lists are comma-separated).
void apply_override(nlohmann::json& cfg, const std::string& assignment);
// Adds the declared defaults of the settings of the config's schemes; a scheme setting that no
// scheme of the config uses is a ConfigError naming it. Call after the last override.
void complete_config(nlohmann::json& cfg);
// Checks values that must make sense together (positive lengths, known schemes, ...).
void validate_config(const nlohmann::json& cfg);
// Parses a comma-separated list of lengths ("32,64,128") in the domain of eval_lengths; throws
// UsageError naming `what`.
std::vector<int> parse_length_list(const std::string& text, const std::string& what);
std::string describe_keys();  // for --help

// The typed view of a resolved config's common keys, used by the runners; each task reads its own
// keys into its own settings (through value()).
struct ExperimentConfig {
  std::string name, task, runs_dir, out_dir, reference;
  std::vector<std::string> schemes;
  std::vector<MapSpec> maps;  // the key maps, then the map rope_scaling reads as: each parsed once, here
  std::vector<int> seeds, eval_lengths;
  int steps = 0, batch_size = 0, train_length = 0, d_model = 0, log_every = 0;
  int checkpoint_every = 0;  // a resumable state every this many steps (0: only when stopped)
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, embed_init_std = 0;
  nlohmann::json resolved;  // every key, as resolved (the task's and the schemes' own settings are read from here)
  // Not a key (it does not change results): keep a complete run directory whose config.json
  // matches the run's, instead of training it again, and continue a run from the state it saved
  // when it was stopped (--resume).
  bool resume = false;
  // A key's resolved value, or its default in the key table when the config does not hold it.
  nlohmann::json value(const std::string& key) const;
  static ExperimentConfig from_json(const nlohmann::json& cfg);
};

// The config of one run: the resolved experiment with its scheme and seed in place of the lists,
// and without the other schemes' own settings.
nlohmann::json run_config(nlohmann::json resolved, const std::string& scheme, int seed);

// Keys that change how runs are read or where results go, never a trained bit: test and validation
// sets, lengths, maps, analyses, output places, the name. Each is declared so where it is declared
// (KeySpec::reading_only, for_reading in core/keys.h); the harness names no task's key here.
const std::vector<std::string>& reading_keys();
// Whether two run configs train the same run: equal apart from the reading keys (--resume keeps a
// complete run, or continues a saved state, whose config differs only in those).
bool same_run(const nlohmann::json& a, const nlohmann::json& b);

// The settings of one scheme for this experiment: its model shape and context (the task's), and the
// keys the scheme declares. The first form finds e's task.
struct SchemeConfig;
class Task;
SchemeConfig scheme_config(const ExperimentConfig& e, const std::string& scheme);
SchemeConfig scheme_config(const ExperimentConfig& e, const Task& task, const std::string& scheme);

}  // namespace pe
