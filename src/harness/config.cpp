#include "harness/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "core/errors.h"
#include "core/files.h"
#include "core/text.h"
#include "harness/task.h"
#include "schemes/frequency_maps.h"
#include "schemes/rope_scaling.h"
#include "schemes/scheme.h"

namespace pe {

using nlohmann::json;

namespace {
// Every registered scheme a model of n_layers can hold, in registry order, after `first`.
json registered_schemes(int n_layers, std::vector<std::string> first = {}) {
  json list = json::array();
  for (auto& f : first) list.push_back(f);
  for (auto& s : scheme_list())
    if (s.min_layers <= n_layers && std::find(first.begin(), first.end(), s.name) == first.end())
      list.push_back(s.name);
  return list;
}
}  // namespace

const std::vector<KeySpec>& common_keys() {
  // limits on sizes, chosen so that one run fits this class of machine (2 cores, a few GB) in hours
  // at most; lengths are also bounded by the exact no-position baseline of the cue task, whose cost
  // grows as n^3 (46 s at 2,048)
  static const std::vector<KeySpec> keys = [] {
    std::string tasks;
    for (auto* t : task_list()) tasks += (tasks.empty() ? "" : "; ") + t->name() + " (" + t->description() + ")";
    return std::vector<KeySpec>{
        for_reading({"name", KeyType::String, "experiment", "experiment name (used in output file names)", 1}),
        {"task", KeyType::String, task_list().front()->name(), "task, each with its own defaults and keys: " + tasks,
         1},
        {"schemes", KeyType::StringList, registered_schemes(1),
         "positional schemes to train (default: every registered scheme the task's model can hold)"},
        {"seeds", KeyType::IntList, json::array({0, 1, 2}), "training seeds", 0, kMaxSeed},
        {"steps", KeyType::Int, 1500, "Adam steps per training run", 1, kMaxSteps},
        {"batch_size", KeyType::Int, 256, "sequences per step", 1, kMaxBatch},
        {"lr", KeyType::Float, 1e-2, "Adam learning rate", 0, 1, true},
        {"adam_beta1", KeyType::Float, 0.9, "Adam beta1", 0, 0.999999},
        {"adam_beta2", KeyType::Float, 0.999, "Adam beta2", 0, 0.999999999},
        {"adam_eps", KeyType::Float, 1e-8, "Adam epsilon (added in float: below 1e-30 it would vanish)", 1e-30, 1},
        {"train_length", KeyType::Int, 32, "sequence length during training", 2, kMaxLength},
        for_reading({"eval_lengths", KeyType::IntList, json::array({32, 64, 128, 256}), "lengths to evaluate at", 2,
                     kMaxLength}),
        {"d_model", KeyType::Int, 16, "model width (the head width of a one-head model)", 2, 1024},
        {"embed_init_std", KeyType::Float, 0.3, "std of the token embedding and of the schemes' trained tables at init",
         0, 10},
        for_reading(
            {"maps", KeyType::StringList, json::array(),
             "context-extension maps to re-read RoPE with (also fine-tuned with, by a task that fine-tunes; logn, "
             "which rescales no frequency, re-reads every scheme and is never fine-tuned with): " +
                 known_maps()}),
        for_reading(
            {"rope_scaling", KeyType::String, "",
             "a model's RoPE scaling as Transformers configures it: a config.json path, or JSON (the config or its "
             "rope_scaling / rope_parameters dictionary); read as one more map after `maps` (docs/schemes.md)"}),
        {"log_every", KeyType::Int, 50, "steps between metrics-log lines", 1, kMaxSteps},
        for_reading({"runs_dir", KeyType::String, "results/runs", "where run directories go", 1}),
        for_reading({"out_dir", KeyType::String, "results", "where experiment results go", 1}),
        for_reading({"reference", KeyType::String, "", "JSON file of published figures shown beside ours (optional)"}),
    };
  }();
  return keys;
}

const std::vector<KeySpec>& config_keys() {
  static const std::vector<KeySpec> keys = [] {
    std::vector<KeySpec> keys = common_keys();
    // each task's own keys (a key two tasks declare, e.g. the block stack's n_layers, appears once:
    // the first declaration's type and domain, which the others must share)
    for (auto* t : task_list())
      for (auto& k : t->keys()) {
        auto same = std::find_if(keys.begin(), keys.end(), [&](const KeySpec& o) { return o.key == k.key; });
        if (same == keys.end())
          keys.push_back(k);
        else if (same->type != k.type || same->min != k.min || same->max != k.max ||
                 same->reading_only != k.reading_only)
          throw Error(
              fmt::format("task {} declares key '{}' with another type, domain or role (reading only or not) "
                          "than an earlier task",
                          t->name(), k.key));
      }
    // the settings the schemes declare themselves (registry)
    for (auto& k : scheme_keys()) keys.push_back(k);
    return keys;
  }();
  return keys;
}

namespace {
bool is_scheme_key(const std::string& key) {
  for (auto& k : scheme_keys())
    if (k.key == key) return true;
  return false;
}
}  // namespace

json default_config(const std::string& task) {
  json j = json::object();
  // the keys the task reads; a scheme's own settings join the config when one of its schemes does
  // (complete_config)
  const Task& t = task.empty() ? *task_list().front() : find_task(task);
  for (auto& k : config_keys())
    if (!is_scheme_key(k.key) && t.reads(k.key)) j[k.key] = k.default_value;
  // the task's own keys at the defaults it declares (a key two tasks declare has the first one's
  // default in the table), then the task's defaults over the common keys, then its default schemes:
  // every registered scheme its model can hold, the task's published order first
  for (auto& k : t.keys()) j[k.key] = k.default_value;
  const json own = t.defaults();
  for (auto& [k, v] : own.items())
    if (!is_scheme_key(k)) j[k] = v;
  j["schemes"] = registered_schemes(j.value("n_layers", 1), t.leading_schemes());
  return j;
}

std::string task_of(const json& file, const std::vector<std::string>& sets) {
  std::string task = file.is_object() && file.contains("task") && file["task"].is_string()
                         ? file["task"].get<std::string>()
                         : task_list().front()->name();
  for (auto& s : sets)
    if (s.rfind("task=", 0) == 0) task = s.substr(5);
  return task;
}

namespace {

// Keys renamed: the old name is refused with the new one (so an old experiment file fails loudly).
const KeySpec* renamed_to(const std::string& key, const std::string& origin) {
  static const std::vector<std::pair<std::string, std::string>> renamed = {{"rescale", "maps"}};
  for (auto& [old_name, new_name] : renamed)
    if (key == old_name)
      throw ConfigError(
          fmt::format("{}: key '{}' was renamed '{}'; write {} instead", origin, old_name, new_name, new_name));
  return nullptr;
}

const KeySpec* find_key(const std::string& key) {
  for (auto& k : config_keys())
    if (k.key == key) return &k;
  return nullptr;
}
}  // namespace

const KeySpec& key_spec(const std::string& key) {
  const KeySpec* k = find_key(key);
  if (!k) throw Error("no key '" + key + "' in the key table");
  return *k;
}

namespace {

std::string known_keys() {
  std::string s;
  for (auto& k : config_keys()) s += (s.empty() ? "" : ", ") + k.key;
  return s;
}

}  // namespace

void merge_config(json& cfg, const json& overrides, const std::string& origin) {
  if (!overrides.is_object()) throw ConfigError(origin + ": expected a JSON object of settings");
  for (auto& [key, value] : overrides.items()) {
    if (key == "description") continue;  // free text for readers of the file
    const KeySpec* spec = find_key(key);
    if (!spec) renamed_to(key, origin);
    if (!spec) throw ConfigError(fmt::format("{}: unknown key '{}' (known keys: {})", origin, key, known_keys()));
    if (!has_type(value, spec->type))
      throw ConfigError(
          fmt::format("{}: key '{}' must be {} (got {})", origin, key, type_name(spec->type), value.dump()));
    check_key_value(*spec, value, origin);
    cfg[key] = value;
  }
}

json read_experiment_file(const std::string& path) {
  if (!file_exists(path)) throw ConfigError("experiment file not found: " + path);
  try {
    return parse_json(read_file(path));
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("{} is not valid JSON: {}", path, e.what()));
  }
}

json load_experiment(const std::string& path, const std::vector<std::string>& sets) {
  const json file = read_experiment_file(path);
  json cfg = default_config(task_of(file, sets));
  merge_config(cfg, file, path);
  return cfg;
}

std::vector<int> parse_length_list(const std::string& text, const std::string& what) {
  std::vector<int> out;
  const KeySpec& spec = *find_key("eval_lengths");
  for (auto& part : split(text, ',')) {
    long long v;
    const std::string t = trim(part);
    if (!parse_int(t, v) || v < spec.min || v > spec.max)
      throw UsageError(fmt::format("{}: '{}' in the list '{}' is not a length from {} to {} (write e.g. 32,64,128)",
                                   what, t, text, spec.min, spec.max));
    out.push_back(int(v));
  }
  if (out.empty()) throw UsageError(what + ": empty list (write e.g. 32,64,128)");
  return out;
}

void apply_override(json& cfg, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw ConfigError(fmt::format("--set '{}': expected key=value", assignment));
  const std::string key = trim(assignment.substr(0, eq)), text = trim(assignment.substr(eq + 1));
  const KeySpec* spec = find_key(key);
  if (!spec) renamed_to(key, "--set");
  if (!spec) throw ConfigError(fmt::format("--set: unknown key '{}' (known keys: {})", key, known_keys()));
  const std::optional<json> v = parse_key_text(spec->type, text);
  if (!v) throw ConfigError(fmt::format("--set {}: '{}' is not {}", key, text, type_name(spec->type)));
  check_key_value(*spec, *v, "--set");
  cfg[key] = *v;
}

void complete_config(json& cfg) {
  if (!cfg.contains("schemes") || !cfg["schemes"].is_array()) return;
  // a setting's default for this task (the task may differ from the scheme's declared default)
  json task_defaults = json::object();
  if (cfg.contains("task") && cfg["task"].is_string() && task_exists(cfg["task"].get<std::string>()))
    task_defaults = find_task(cfg["task"].get<std::string>()).defaults();
  std::vector<std::string> schemes;
  for (auto& s : cfg["schemes"])
    if (s.is_string() && scheme_exists(s.get<std::string>())) schemes.push_back(s.get<std::string>());
  for (auto& k : scheme_keys()) {
    std::string users;
    bool used = false;
    for (auto& info : scheme_list())
      for (auto& own : info.keys)
        if (own.key == k.key) {
          users += (users.empty() ? "" : ", ") + info.name;
          for (auto& s : schemes) used = used || s == info.name;
        }
    if (used && !cfg.contains(k.key)) cfg[k.key] = task_defaults.value(k.key, k.default_value);
    if (!used && cfg.contains(k.key))
      throw ConfigError(
          fmt::format("key '{}' is a setting of {}, and no scheme of this experiment uses it "
                      "(schemes: {}); add one of them to schemes or drop the key",
                      k.key, users, cfg["schemes"].dump()));
  }
}

namespace {
// A key's value in a resolved config, or its default in the key table when the config's task does
// not read it (a config lists only the keys its task reads).
json value_of(const json& cfg, const std::string& key) {
  return cfg.contains(key) ? cfg.at(key) : key_spec(key).default_value;
}

// The config's maps, each parsed once: `maps`, then the map `rope_scaling` reads as (one more map,
// as written: it records every field), unless `maps` holds it already.
std::vector<MapSpec> config_maps(const json& cfg) {
  try {
    std::vector<MapSpec> maps = parse_maps(value_of(cfg, "maps").get<std::vector<std::string>>(), "maps");
    const std::string rs = value_of(cfg, "rope_scaling").get<std::string>();
    if (!rs.empty()) {
      MapSpec map = parse_rope_scaling(rs, "rope_scaling").map;
      if (std::find(maps.begin(), maps.end(), map) == maps.end()) maps.push_back(std::move(map));
    }
    return maps;
  } catch (const ConfigError&) {
    throw;
  } catch (const UsageError& e) {
    throw ConfigError(e.what());
  }
}

// validate_config, returning the config's maps as config_maps reads them.
std::vector<MapSpec> validated_maps(const json& cfg) {
  // every value in its declared domain (files and --set were checked as they came in; a config
  // assembled elsewhere, e.g. a run's config.json, is checked here)
  for (auto& [key, value] : cfg.items())
    if (const KeySpec* spec = find_key(key)) {
      if (!has_type(value, spec->type))
        throw ConfigError(
            fmt::format("config: key '{}' must be {} (got {})", key, type_name(spec->type), value.dump()));
      check_key_value(*spec, value, "config");
    }
  auto positive = [&](const char* key) {
    if (value_of(cfg, key).get<long long>() <= 0) throw ConfigError(fmt::format("{} must be positive", key));
  };
  for (auto k : {"steps", "batch_size", "train_length", "d_model", "log_every"}) positive(k);
  const std::string task = cfg.at("task");
  if (!task_exists(task)) throw ConfigError(fmt::format("unknown task '{}' (known tasks: {})", task, known_tasks()));
  // another task's key is refused by name, wherever the config came from
  for (auto& [key, value] : cfg.items())
    if (find_key(key) && !is_scheme_key(key) && !find_task(task).reads(key))
      throw ConfigError(fmt::format("config: {}", not_for_task(find_task(task), key)));
  find_task(task).validate(cfg);
  if (cfg.at("d_model").get<int>() % 2) throw ConfigError("d_model must be even (planes are coordinate pairs)");
  if (cfg.at("train_length").get<int>() < 2) throw ConfigError("train_length must be at least 2");
  if (cfg.at("lr").get<double>() <= 0) throw ConfigError("lr must be positive");
  for (auto& s : cfg.at("schemes")) {
    std::string known;
    for (auto& i : scheme_list()) known += (known.empty() ? "" : ", ") + i.name;
    if (!scheme_exists(s.get<std::string>()))
      throw UsageError(fmt::format("unknown scheme '{}' (known: {})", s.get<std::string>(), known));
  }
  if (cfg.at("schemes").empty()) throw ConfigError("schemes: the list is empty");
  for (auto list : {"schemes", "seeds"}) {
    const json& l = cfg.at(list);
    for (size_t i = 0; i < l.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (l[i] == l[j])
          throw ConfigError(
              fmt::format("{}: {} appears twice (each run directory is one scheme and seed); drop "
                          "the repeat",
                          list, l[i].dump()));
  }
  if (cfg.at("seeds").empty()) throw ConfigError("seeds: the list is empty");
  for (auto& n : value_of(cfg, "eval_lengths"))
    if (n.get<long long>() < 2) throw ConfigError(fmt::format("eval_lengths: {} is not a length >= 2", n.dump()));
  std::vector<MapSpec> maps = config_maps(cfg);
  for (auto& n : cfg.at("seeds"))
    if (n.get<long long>() < 0) throw ConfigError(fmt::format("seeds: {} is negative", n.dump()));
  return maps;
}
}  // namespace

void validate_config(const json& cfg) { validated_maps(cfg); }

std::string describe_keys() {
  std::string s =
      "Experiment keys (defaults in brackets; out-of-domain values are refused, exit 2; a key marked \"reading "
      "only\" changes how trained models are read or where results go, never a trained bit: --resume keeps runs "
      "that differ only in such keys):\n";
  auto line = [](const KeySpec& k, const json& dflt) {
    const std::string d = domain_of(k);
    return fmt::format("  {:<16} {} [{}]{}{}\n", k.key, k.help, dflt.dump(), d.empty() ? "" : "; " + d,
                       k.reading_only ? "; reading only" : "");
  };
  for (auto& k : common_keys()) s += line(k, k.default_value);
  for (auto* t : task_list()) {
    s += fmt::format("Keys of the {} task (other tasks refuse them):\n", t->name());
    const json own = t->defaults();
    for (auto& k : t->keys()) s += line(k, own.value(k.key, k.default_value));
  }
  s += "Scheme settings (only with a scheme that declares them; pe-bench schemes lists them)\n";
  for (auto& k : scheme_keys()) s += line(k, k.default_value);
  s += fmt::format(
      "Limits: lengths (train_length, eval_lengths, finetune_length) at most {}; steps at most {}; "
      "batches at most {}; cue test_sequences at most {}.\n"
      "Exit codes: 0 done, 2 usage or config, 3 checkpoint, 4 data, 5 file I/O, 6 diff found a "
      "difference, 7 training diverged, 8 interrupted (state saved: rerun with --resume), 70 internal error (a bug: "
      "please report it).\n",
      kMaxLength, kMaxSteps, kMaxBatch, kMaxTestSequences);
  return s;
}

SchemeConfig scheme_config(const ExperimentConfig& e, const std::string& scheme) {
  return scheme_config(e, find_task(e.task), scheme);
}

SchemeConfig scheme_config(const ExperimentConfig& e, const Task& task, const std::string& scheme) {
  SchemeConfig s;
  s.name = scheme;
  s.train_length = e.train_length;
  s.init_std = e.embed_init_std;
  // the scheme's own settings, and the model's shape (the model sets these again; they are here so
  // that a scheme can be built, and its settings checked, before any training)
  const json task_defaults = task.defaults();
  for (auto& k : scheme_info(scheme).keys)
    if (e.resolved.contains(k.key))
      s.settings[k.key] = e.resolved.at(k.key);
    else if (task_defaults.contains(k.key))  // a config not completed (complete_config) takes the task's default
      s.settings[k.key] = task_defaults.at(k.key);
  s.d_model = e.d_model;
  s.n_heads = task.n_heads(e);
  s.d_head = s.d_model / s.n_heads;
  s.n_layers = task.n_layers(e);
  return s;
}

const std::vector<std::string>& reading_keys() {
  static const std::vector<std::string> keys = [] {
    // free text for readers of the file, and maps' name before it was renamed (run directories written
    // then); then every key declared for_reading (the common keys', each task's and each scheme's)
    std::vector<std::string> out = {"description", "rescale"};
    for (auto& k : config_keys())
      if (k.reading_only) out.push_back(k.key);
    return out;
  }();
  return keys;
}

bool same_run(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object()) return a == b;
  json x = a, y = b;
  for (auto& k : reading_keys()) x.erase(k), y.erase(k);
  // a run (not a follow-up) does not depend on how its follow-ups are configured
  if (a.contains("task") && a["task"].is_string() && a["task"] == b.value("task", json())) {
    for (const Task* t : task_list())
      if (t->name() == a["task"] && !t->trainer().is_follow_up(a) && !t->trainer().is_follow_up(b))
        for (auto& k : t->trainer().follow_up_keys()) x.erase(k), y.erase(k);
    // a key added after a run was written is absent from its config: that run took the key's default
    if (std::any_of(task_list().begin(), task_list().end(), [&](const Task* t) { return t->name() == a["task"]; })) {
      json defaults = default_config(a["task"].get<std::string>());
      // and a scheme's own settings, at the default this task gives them (its own, else the declared one)
      const json task_defaults = find_task(a["task"].get<std::string>()).defaults();
      for (auto& k : scheme_keys())
        defaults[k.key] = task_defaults.contains(k.key) ? task_defaults[k.key] : k.default_value;
      auto drop_defaults = [&](json& have, const json& lacks) {
        for (auto it = have.begin(); it != have.end();) {
          const bool implicit =
              !lacks.contains(it.key()) && defaults.contains(it.key()) && defaults[it.key()] == it.value();
          it = implicit ? have.erase(it) : std::next(it);
        }
      };
      drop_defaults(x, y), drop_defaults(y, x);
    }
  }
  return x == y;
}

json run_config(json resolved, const std::string& scheme, int seed) {
  resolved["scheme"] = scheme;
  resolved["seed"] = seed;
  resolved.erase("schemes");
  resolved.erase("seeds");
  resolved.erase("checkpoint_every");  // how often a state is saved does not change the run
  // the other schemes' own settings do not describe this run
  const SchemeInfo& own = scheme_info(scheme);
  for (auto& k : scheme_keys()) {
    bool mine = false;
    for (auto& o : own.keys) mine = mine || o.key == k.key;
    if (!mine) resolved.erase(k.key);
  }
  return resolved;
}

json ExperimentConfig::value(const std::string& key) const { return value_of(resolved, key); }

ExperimentConfig ExperimentConfig::from_json(const json& resolved) {
  std::vector<MapSpec> maps = validated_maps(resolved);
  // every common key; a key of the task is read through value() by the task's own settings
  json c = resolved;
  for (auto& k : common_keys())
    if (!c.contains(k.key)) c[k.key] = k.default_value;
  ExperimentConfig e;
  e.name = c["name"];
  e.task = c["task"];
  e.runs_dir = c["runs_dir"];
  e.out_dir = c["out_dir"];
  e.reference = c["reference"];
  e.schemes = c["schemes"].get<std::vector<std::string>>();
  e.seeds = c["seeds"].get<std::vector<int>>();
  e.eval_lengths = c["eval_lengths"].get<std::vector<int>>();
  e.steps = c["steps"];
  e.batch_size = c["batch_size"];
  e.train_length = c["train_length"];
  e.d_model = c["d_model"];
  e.log_every = c["log_every"];
  e.checkpoint_every = value_of(c, "checkpoint_every");
  e.lr = c["lr"];
  e.beta1 = c["adam_beta1"];
  e.beta2 = c["adam_beta2"];
  e.eps = c["adam_eps"];
  e.embed_init_std = c["embed_init_std"];
  e.maps = std::move(maps);
  e.resolved = resolved;
  // Build every scheme once, so that a setting out of its domain stops the run before it starts.
  const Task& task = find_task(e.task);
  for (auto& name : e.schemes) make_scheme<float>(scheme_config(e, task, name));
  return e;
}

}  // namespace pe
