#include "harness/checkpoint.h"

#include <fmt/format.h>

#include "core/build_info.h"
#include "core/errors.h"
#include "core/files.h"
#include "harness/config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

namespace pe {

using nlohmann::json;

// The scheme section: its name and shape, and the settings the scheme declares (resolved: e.g.
// learned_rows as the rows of the table). Checkpoints written before schemes declared their own
// settings carry the five published schemes' settings in every scheme's section; a scheme that does
// not declare one of them ignores it, so those checkpoints still load.
namespace {
const std::set<std::string> kShape = {"name", "d_model", "n_heads", "d_head", "visibility"};
const std::set<std::string> kLegacySettings = {"base", "learned_rows", "learned_init_std", "alibi_slopes",
                                               "rotary_fraction"};
}  // namespace

json scheme_config_to_json(const SchemeConfig& c) {
  json j = {{"name", c.name}, {"d_model", c.d_model}, {"n_heads", c.n_heads}, {"d_head", c.d_head}};
  SchemeConfig filled = c;
  fill_scheme_settings(filled);
  for (auto& [k, v] : filled.settings.items()) j[k] = v;
  // a model made for keys on both sides of its queries (a causal one's section says nothing: as before)
  if (c.bidirectional) j["visibility"] = "bidirectional";
  return j;
}

SchemeConfig scheme_config_from_json(const json& j) {
  SchemeConfig c;
  c.name = j.at("name").get<std::string>();
  c.d_model = checked_int32(j.at("d_model"), "scheme.d_model", 2, 1024);
  c.n_heads = checked_int32(j.at("n_heads"), "scheme.n_heads", 1, 64);
  c.d_head = checked_int32(j.at("d_head"), "scheme.d_head", 1, 1024);
  if (j.contains("visibility")) {
    const json& v = j["visibility"];
    if (v != "causal" && v != "bidirectional")
      throw ConfigError(fmt::format("scheme.visibility is {}, not \"causal\" or \"bidirectional\"", v.dump()));
    c.bidirectional = v == "bidirectional";
  }
  if (!scheme_exists(c.name)) return c;  // the reader names the unknown scheme
  const SchemeInfo& info = scheme_info(c.name);
  auto declared = [&](const std::string& key) {
    for (auto& k : info.keys)
      if (k.key == key) return true;
    return false;
  };
  // The legacy layout carries all five published settings in every scheme's section; only there
  // may a setting the scheme does not declare stand, and it must still lie in its key's domain.
  // Anywhere else an undeclared setting is refused by fill_scheme_settings, as in an experiment.
  bool legacy = true;
  for (auto& k : kLegacySettings) legacy = legacy && j.contains(k);
  for (auto& [k, v] : j.items()) {
    if (kShape.count(k)) continue;
    if (declared(k) || !legacy || !kLegacySettings.count(k)) {
      c.settings[k] = v;
      continue;
    }
    for (auto& spec : config_keys())
      if (spec.key == k) {
        if (!has_type(v, spec.type))
          throw ConfigError(fmt::format("scheme setting '{}' must be {} (got {})", k, type_name(spec.type), v.dump()));
        check_key_value(spec, v, "scheme");
      }
  }
  return c;
}

namespace {

// Every tensor of a layout by name, with shape and row-major data.
json params_json(const ParamLayout& layout, const float* values) {
  json params = json::array();
  for (auto& t : layout.tensors()) {
    json data = json::array();
    const float* p = values + t.offset;
    for (size_t i = 0; i < t.size(); ++i) data.push_back(shortest_float(p[i]));
    params.push_back({{"name", t.name}, {"shape", {t.rows, t.cols}}, {"data", std::move(data)}});
  }
  return params;
}

}  // namespace

json checkpoint_envelope(const std::string& task, const json& model, const SchemeConfig& scheme, const json& training,
                         const ParamLayout& layout, const float* values, const json& extra) {
  json cp = {{"format", kCheckpointFormat},
             {"version", kCheckpointVersion},
             {"task", task},
             {"model", model},
             {"scheme", scheme_config_to_json(scheme)},
             {"training", training},
             {"build", build_info_json()}};
  for (auto& [k, v] : extra.items()) cp[k] = v;
  cp["params"] = params_json(layout, values);
  return cp;
}

CheckpointError CheckpointReader::fail(const std::string& why) const {
  return CheckpointError(
      fmt::format("checkpoint {}: {}; retrain it with `pe-bench train` or pass another file", path_, why), why);
}

CheckpointError CheckpointReader::mismatch(const std::string& why) const {
  return CheckpointError(fmt::format("checkpoint {}: {}", path_, why), why);
}

CheckpointReader::CheckpointReader(const std::string& path, const std::string& task) : path_(path) {
  if (!file_exists(path))
    throw CheckpointError(fmt::format("checkpoint {} not found; train one with `pe-bench train` first", path));
  try {
    j_ = parse_json(read_file(path));
  } catch (const json::exception& e) {
    throw fail(fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j_.is_object() || !j_.contains("format") || j_["format"] != kCheckpointFormat)
    throw fail("not a pe-bench checkpoint (format field missing or different)");
  if (!j_.contains("version") || !j_["version"].is_number_integer()) throw fail("no format version");
  // compared as a 64-bit value, never cut to 32 bits first (4294967297 is not version 1)
  if (j_["version"] != kCheckpointVersion)
    throw fail(
        fmt::format("format version {} but this pe-bench reads version {}", j_["version"].dump(), kCheckpointVersion));
  const json t = j_.value("task", json());
  if (!task.empty() && t != task)  // a sound checkpoint of another task: no advice to retrain it
    throw mismatch(
        fmt::format("it holds a model of task {}, not {}; read it as its own task (eval and analyze take "
                    "the task from the checkpoint when --task is left out)",
                    t.dump(), task));
  for (auto s : {"model", "scheme", "training"})
    if (!j_.contains(s) || !j_[s].is_object()) throw fail(fmt::format("no '{}' section", s));
  if (!j_.contains("params") || !j_["params"].is_array()) throw fail("no 'params' list");
  // the training section's facts that readers use, in the domains of their keys
  const json& tr = j_["training"];
  for (auto [field, key] : {std::pair{"train_length", "train_length"}, {"seed", "seeds"}, {"steps", "steps"}}) {
    if (!tr.contains(field) || !tr[field].is_number_integer())
      throw fail(fmt::format("training.{} is missing or not an integer", field));
    try {
      check_key_value(key_spec(key), tr[field], "training");
    } catch (const ConfigError& e) {
      throw fail(fmt::format("training.{} is out of range: {}", field, e.what()));
    }
  }
  // the model's shape, stated in both sections, must agree
  const json &m = j_["model"], &s = j_["scheme"];
  if (m.contains("d_model") && s.contains("d_model") && m["d_model"] != s["d_model"])
    throw fail(fmt::format("model.d_model {} and scheme.d_model {} differ", m["d_model"].dump(), s["d_model"].dump()));
  for (auto key : {"d_model", "n_heads", "n_layers", "alphabet", "mark_prob", "embed_init_std"})
    if (m.contains(key)) {
      try {
        check_key_value(key_spec(key), m[key], "model");
      } catch (const ConfigError& e) {
        throw fail(e.what());
      }
    }
}

SchemeConfig CheckpointReader::scheme() const {
  SchemeConfig s = scheme_config_from_json(j_.at("scheme"));
  if (!scheme_exists(s.name)) throw fail(fmt::format("unknown scheme '{}'", s.name));
  // the context its "0: the training length" settings resolved to (a hybrid's layers keep theirs
  // unresolved: a tupe layer's table has train_length rows)
  s.train_length = checked_int32(j_.at("training").at("train_length"), "training.train_length", 2);
  return s;
}

// Fills values (laid out by `layout`) from the params array; every tensor must be there with its
// shape and only numbers.
void CheckpointReader::params(const ParamLayout& layout, float* values) const {
  const json& params = j_.at("params");
  if (params.size() != layout.tensors().size())
    throw fail(fmt::format("{} parameter tensors but the model has {}", params.size(), layout.tensors().size()));
  for (auto& t : layout.tensors()) {
    const json* found = nullptr;
    for (auto& p : params)
      if (p.at("name") == t.name) found = &p;
    if (!found) throw fail(fmt::format("parameter '{}' is missing", t.name));
    const auto shape = found->at("shape").get<std::vector<int>>();
    if (shape != std::vector<int>{t.rows, t.cols})
      throw fail(fmt::format("parameter '{}' has shape {} but the model expects [{}, {}]", t.name,
                             found->at("shape").dump(), t.rows, t.cols));
    const json& data = found->at("data");
    if (!data.is_array() || data.size() != t.size())
      throw fail(fmt::format("parameter '{}' holds {} values, expected {}", t.name, data.size(), t.size()));
    float* dst = values + t.offset;
    for (size_t i = 0; i < t.size(); ++i) {
      if (!data[i].is_number()) throw fail(fmt::format("parameter '{}' value {} is not a number", t.name, i));
      dst[i] = float(data[i].get<double>());
      if (!std::isfinite(dst[i]))
        throw fail(fmt::format("parameter '{}' value {} ({}) is not a finite float", t.name, i, data[i].dump()));
    }
  }
}

json CheckpointReader::meta() {
  json m = std::move(j_);
  m.erase("params");
  return m;
}

std::string checkpoint_task(const std::string& path) {
  CheckpointReader r(path, "");
  if (!r.json_().contains("task") || !r.json_()["task"].is_string()) throw r.fail("no task field");
  return r.json_()["task"];
}

std::string common_checkpoint_task(const std::vector<std::string>& paths, const std::string& verb) {
  if (paths.empty()) throw UsageError("give at least one checkpoint");
  const std::string task = checkpoint_task(paths.front());
  for (auto& c : paths)
    if (checkpoint_task(c) != task)
      throw UsageError(fmt::format("{} holds a {} model but {} a {} model; {} one task at a time", c,
                                   checkpoint_task(c), paths.front(), task, verb));
  return task;
}

CheckpointsToRead checkpoints_to_read(const std::string& task, const std::vector<std::string>& checkpoints,
                                      const std::string& runs_dir, const std::string& verb) {
  CheckpointsToRead out;
  if (!checkpoints.empty()) {
    out.paths = checkpoints;
    out.task = common_checkpoint_task(checkpoints, verb);
    if (!task.empty() && out.task != task)  // exit code 3 as the loader's: the file cannot be read as asked
      throw CheckpointError(fmt::format("{} holds a {} model, not {}; leave --task out to {} it as the {} model it is",
                                        checkpoints.front(), out.task, task, verb, out.task));
    return out;
  }
  if (runs_dir.empty())
    throw UsageError("--runs-dir must not be empty; give a directory of runs (default results/runs)");
  out.paths = find_checkpoints(runs_dir, task);
  if (!task.empty()) {
    out.task = task;
    return out;
  }
  // no task given: the runs' one task, else one line naming two
  std::map<std::string, std::string> first_of;  // task -> its first checkpoint
  for (auto& p : out.paths) {
    std::string t;
    try {
      t = checkpoint_task(p);
    } catch (const CheckpointError&) {  // unreadable: the task's own loader reports it
      continue;
    }
    first_of.emplace(t, p);
  }
  if (first_of.size() > 1) {
    auto a = first_of.begin(), b = std::next(a);
    throw UsageError(fmt::format("{} holds models of {} tasks ({} in {}, {} in {}); pass --task to {} one of them",
                                 runs_dir, first_of.size(), a->first, a->second, b->first, b->second, verb));
  }
  out.task = first_of.empty() ? checkpoint_task(out.paths.front()) : first_of.begin()->first;
  return out;
}

std::string checkpoint_text(const json& cp) {
  json head = cp;
  head.erase("params");
  std::string text = head.dump(2);
  text.resize(text.size() - 2);  // "\n}"
  text += ",\n  \"params\": [";
  bool first = true;
  for (auto& p : cp.at("params")) {
    text += fmt::format("{}\n    {{\"name\": {}, \"shape\": {},\n     \"data\": {}}}", first ? "" : ",",
                        p.at("name").dump(), p.at("shape").dump(), p.at("data").dump());
    first = false;
  }
  text += "\n  ]\n}\n";
  return text;
}

std::vector<std::string> find_checkpoints(const std::string& dir, const std::string& task) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir))
    throw UsageError(fmt::format("runs directory {} not found; train first (pe-bench train) or pass --runs-dir", dir));
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const auto& entry = *it;
    const std::string path = entry.path().string(), name = entry.path().filename().string();
    // a temporary: a live process's is a run being written (wait for it); a dead one's is what a
    // killed pe-bench left (not a run: skipped; training that run again removes it)
    if (const int pid = temp_owner(name)) {
      if (process_alive(pid))
        throw UsageError(
            fmt::format("{} is being written by pe-bench process {} (a run in progress); wait for it to "
                        "finish, then read the runs",
                        path, pid));
      if (entry.is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (entry.is_directory() && fs::exists(entry.path() / "config.json") &&
        !fs::exists(entry.path() / "checkpoint.json"))
      throw DataError(
          fmt::format("run directory {} is incomplete (config.json but no checkpoint.json); remove it "
                      "and train that run again",
                      path));
    const std::string state_suffix = ".state.json";
    if (name.size() > state_suffix.size() && name.ends_with(state_suffix)) {
      const std::string run = path.substr(0, path.size() - state_suffix.size());
      if (!fs::exists(run + "/checkpoint.json"))
        throw DataError(
            fmt::format("run {} was interrupted before it finished (its state is saved in {}); finish it "
                        "with the same command and --resume, or remove the state file",
                        run, path));
    }
    if (!entry.is_regular_file() || name != "checkpoint.json") continue;
    bool keep = true;
    try {
      const json cp = parse_json(read_file(path));
      keep = task.empty() || cp.value("task", json()) == task;
      // the run's config.json must describe this checkpoint
      const fs::path cfg = entry.path().parent_path() / "config.json";
      if (keep && fs::exists(cfg)) {
        const json c = parse_json(read_file(cfg.string()));
        const json scheme = cp.at("scheme").at("name"), seed = cp.at("training").at("seed");
        if (c.value("scheme", scheme) != scheme || c.value("seed", seed) != seed)
          throw DataError(
              fmt::format("run directory {} mixes runs: config.json is {} seed {} but checkpoint.json "
                          "holds {} seed {}; remove it and train that run again",
                          entry.path().parent_path().string(), c.value("scheme", json()).dump(),
                          c.value("seed", json()).dump(), scheme.dump(), seed.dump()));
      }
    } catch (const json::exception&) {  // unreadable: kept, so loading it reports the problem
    }
    if (keep) out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  if (out.empty())
    throw UsageError(fmt::format("no {}checkpoint.json under {}; train first (pe-bench train{})",
                                 task.empty() ? "" : task + " ", dir, task.empty() ? "" : " --task " + task));
  return out;
}

void check_distinct_runs(const std::vector<std::string>& checkpoints) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> seen;  // identity -> first path
  for (auto& path : checkpoints) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(path, ec);
    const std::string file_key = "file " + (ec ? path : canonical.string());
    if (auto it = seen.find(file_key); it != seen.end())
      throw UsageError(
          fmt::format("checkpoint {} is given twice; each run may be read once (its seed would count "
                      "twice in the mean and the interval)",
                      path));
    seen[file_key] = path;
    json cp;
    try {
      cp = parse_json(read_file(path));
    } catch (const std::exception&) {
      continue;  // the loader names the problem
    }
    if (!cp.is_object() || !cp.contains("scheme") || !cp["scheme"].is_object() || !cp.contains("training") ||
        !cp["training"].is_object())
      continue;
    const json plan = cp.value("frequency_plan", json());
    const std::string map = plan.is_object() && plan.contains("map") ? " map " + plan["map"].dump() : "";
    // a run trained at randomised positions is another run than the one at 0 .. n-1 (its rows are labelled apart)
    const std::string drawn = cp["training"].contains("random_positions")
                                  ? " random_positions " + cp["training"]["random_positions"].dump()
                                  : "";
    const std::string run =
        fmt::format("{} {} seed {}{}{}", cp.value("task", json()).dump(), cp["scheme"].value("name", json()).dump(),
                    cp["training"].value("seed", json()).dump(), map, drawn);
    if (auto it = seen.find(run); it != seen.end())
      throw UsageError(
          fmt::format("checkpoints {} and {} are the same run ({}): its seed would count twice in the "
                      "mean and the interval; read each run once (remove the copy, or give another seed)",
                      it->second, path, run));
    seen[run] = path;
  }
}

}  // namespace pe
