#include "harness/training_state.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "core/errors.h"
#include "core/files.h"
#include "core/interrupt.h"
#include "core/keys.h"
#include "harness/config.h"

namespace pe {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "pe-bench-training-state";
constexpr int kVersion = 1;

json floats(const std::vector<float>& v) {
  json a = json::array();
  a.get_ref<json::array_t&>().reserve(v.size());
  for (float f : v) a.push_back(shortest_float(f));  // reads back as the same float
  return a;
}

std::vector<float> floats_of(const json& a, size_t n, const std::string& field, const std::string& path) {
  if (!a.is_array() || a.size() != n)
    throw CheckpointError(
        fmt::format("{}: '{}' must hold {} numbers; remove the file to train from scratch", path, field, n));
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    if (!a[i].is_number()) throw CheckpointError(fmt::format("{}: '{}' holds a non-number", path, field));
    v[i] = float(a[i].get<double>());
    if (!std::isfinite(v[i])) throw CheckpointError(fmt::format("{}: '{}' holds a non-finite value", path, field));
  }
  return v;
}

}  // namespace

std::string training_state_path(const std::string& run_dir) { return run_dir + ".state.json"; }

std::optional<TrainingState> load_training_state(const std::string& run_dir, const json& config, size_t n_params,
                                                 int steps) {
  const std::string path = training_state_path(run_dir);
  if (!file_exists(path)) return std::nullopt;
  try {
    const json j = parse_json(read_file(path));
    if (j.value("format", json()) != kFormat || j.value("version", json()) != kVersion)
      throw CheckpointError(
          fmt::format("{} is not a pe-bench training state of version {}; remove it to train "
                      "from scratch",
                      path, kVersion));
    if (!same_run(j.at("config"), config)) return std::nullopt;  // another run's: training from scratch replaces it
    TrainingState s;
    s.path = path;
    auto step_field = [&](const char* field) {
      try {
        return checked_int32(j.at(field), field, 1, steps - 1);
      } catch (const UsageError& e) {
        throw CheckpointError(
            fmt::format("{}: {} (a run of {} steps saves its state between steps 1 and {}); "
                        "remove the file to train from scratch",
                        path, e.what(), steps, steps - 1));
      }
    };
    s.step = step_field("step");
    s.adam_steps = step_field("adam_steps");
    if (j.contains("steps") && j["steps"] != steps)
      throw CheckpointError(fmt::format("{}: saved by a run of {} steps, not {}; remove the file to train from scratch",
                                        path, j["steps"].dump(), steps));
    s.params = floats_of(j.at("params"), n_params, "params", path);
    s.adam_m = floats_of(j.at("adam_m"), n_params, "adam_m", path);
    s.adam_v = floats_of(j.at("adam_v"), n_params, "adam_v", path);
    for (float v : s.adam_v)
      if (v < 0) throw CheckpointError(fmt::format("{}: 'adam_v' holds a negative second moment", path));
    s.loop = j.at("loop");
    if (!s.loop.is_object()) throw CheckpointError(fmt::format("{}: 'loop' must be an object", path));
    if (s.adam_steps != s.step)
      throw CheckpointError(fmt::format("{}: step {} and adam_steps {} do not agree", path, s.step, s.adam_steps));
    return s;
  } catch (const json::exception& e) {
    throw CheckpointError(
        fmt::format("{} is unreadable ({}); remove it to train that run from scratch", path, e.what()));
  }
}

const json& loop_field(const TrainingState& s, const std::string& key, LoopField type) {
  static const char* names[] = {"a list", "a string", "a number", "an object", "a non-negative integer"};
  const json* v = s.loop.contains(key) ? &s.loop.at(key) : nullptr;
  auto is_count = [](const json& x) {
    try {
      checked_int32(x, "");
      return true;
    } catch (const UsageError&) {
      return false;
    }
  };
  const bool ok = v && (type == LoopField::Array    ? v->is_array()
                        : type == LoopField::String ? v->is_string()
                        : type == LoopField::Number ? v->is_number() && std::isfinite(v->get<double>())
                        : type == LoopField::Object ? v->is_object()
                                                    : is_count(*v));
  if (!ok)
    throw CheckpointError(fmt::format("{}: loop.{} must be {}; remove the file to train that run from scratch", s.path,
                                      key, names[int(type)]));
  return *v;
}

void remove_training_state(const std::string& run_dir) { std::remove(training_state_path(run_dir).c_str()); }

StepCheckpoints::StepCheckpoints(std::string run_dir, json config, int steps, int every, std::string what)
    : run_dir_(std::move(run_dir)), what_(std::move(what)), config_(std::move(config)), steps_(steps), every_(every) {}

void StepCheckpoints::before_start() const {
  if (const int sig = stop_signal())
    throw Interrupted(fmt::format("interrupted by {} before {} started; run the same command with --resume to "
                                  "continue",
                                  signal_name(sig), what_),
                      false);
}

void StepCheckpoints::after_step(int step, const std::function<TrainingState()>& state) const {
  if (step >= steps_) return;  // the run directory comes next
  const int sig = stop_signal();
  if (!sig && !(every_ > 0 && step % every_ == 0)) return;
  const TrainingState s = state();
  const json j = {{"format", kFormat},
                  {"version", kVersion},
                  {"config", config_},
                  {"step", s.step},
                  {"steps", steps_},
                  {"adam_steps", s.adam_steps},
                  {"loop", s.loop},
                  {"params", floats(s.params)},
                  {"adam_m", floats(s.adam_m)},
                  {"adam_v", floats(s.adam_v)}};
  write_file_atomic(training_state_path(run_dir_), j.dump() + "\n");
  if (sig)
    throw Interrupted(fmt::format("interrupted by {} at step {} of {} ({}); its state is saved in {}; run the same "
                                  "command with --resume to continue",
                                  signal_name(sig), step, steps_, what_, training_state_path(run_dir_)),
                      true);
}

}  // namespace pe
