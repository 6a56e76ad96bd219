// The direction task as a registry entry (harness/task.h): the tournament's question asked of an encoder
// — which marked token is nearest before the query (signed), or nearest on either side (unsigned)? — read
// by one bidirectional attention head (models/cue_head.h) per scheme, in its scheme's encoder form,
// trained at 32 and read at 32..256 (docs/tasks.md, "Direction"). The head, its loop, its evaluation and its
// comparisons are the cue task's (tasks/cue/), fed this task's sequences with a query row each.
#include <fmt/format.h>

#include "core/errors.h"
#include "harness/head_loop.h"
#include "harness/task.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/compare.h"
#include "tasks/cue/training.h"
#include "tasks/direction/data.h"
#include "tasks/direction/evaluation.h"
#include "tasks/direction/gradcheck.h"

namespace pe {

namespace {

CueModelConfig direction_model_config(const ExperimentConfig& e, const std::string& scheme) {
  CueModelConfig c = head_model_config(e, scheme, true);  // keys on both sides: always the encoder form
  c.task.rule = e.value("direction_rule");
  return c;
}

// A direction checkpoint: a bidirectional head with a rule.
LoadedCheckpoint load_direction(const std::string& path) {
  LoadedCheckpoint cp = load_checkpoint(path, "direction");
  const std::string& rule = cp.model->config().task.rule;
  if (rule != "before" && rule != "nearest")
    throw CheckpointError(fmt::format("checkpoint {}: model.rule must be before or nearest", path));
  if (!cp.model->config().scheme.bidirectional)
    throw CheckpointError(fmt::format("checkpoint {}: a direction head is bidirectional; this one is not", path));
  return cp;
}

class DirectionTrainer final : public TaskTrainer {
 public:
  bool parallel_runs() const override { return true; }  // a run takes seconds on one thread

  TrainedRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                   Progress& progress) const override {
    const CueModelConfig mc = direction_model_config(e, scheme);
    const BatchSource batches = [&e, task = mc.task, seed](int step) {
      return direction_train_batch(task, uint64_t(seed), step, e.batch_size, e.train_length);
    };
    const auto out =
        train_head_run(e, resolved, scheme, seed, mc, batches, [&](int step, int steps, double loss, double acc) {
          progress.update(fmt::format("[train {} seed {}] step {}/{} loss {:.4f} acc {:.3f}", scheme, seed, step, steps,
                                      loss, acc));
        });
    return head_task_run(out, scheme, seed, "batch");
  }
  std::vector<GradCheckRow> gradcheck(const std::string& scheme) const override { return gradcheck_direction(scheme); }
};

class DirectionReader final : public TaskReader {
 public:
  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    for (auto& c : checkpoints) load_direction(c);
    return evaluate_direction(checkpoints, e, progress);
  }
  void check_checkpoint(const std::string& checkpoint) const override { load_direction(checkpoint); }
  std::unique_ptr<DoctorModel> doctor_model(const std::string& checkpoint) const override {
    return doctor_head(load_direction(checkpoint));
  }
  // The cue head's check batch: read at the last row (positions 0 .. T-1, keys on one side only), or, under
  // --coordinates query-rows, at a row of each sequence's own with keys on both sides, as the task reads it.
  CheckBatch check_batch(const std::string& checkpoint, const MapSpec& map, int length, uint64_t seed,
                         const std::string& mode) const override {
    load_direction(checkpoint);
    return check_head_checkpoint(checkpoint, "direction", HeadInput{}, map, length, seed, false, mode);
  }
};

class DirectionReporter final : public TaskReporter {
 public:
  std::string compare(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                      const CompareSettings& settings) const override {
    return compare_cue_readers(results, a, b, length, settings, direction_stream());
  }
  std::string table(const nlohmann::json& results) const override { return format_direction_table(results); }
  // the cue head's results format: per-seed accuracies on test_sequences items
  bool restate_intervals(nlohmann::json& results) const override {
    add_cue_intervals(results);
    return true;
  }
  std::string markdown(const nlohmann::json& results) const override { return format_direction_markdown(results); }
};

class DirectionTask final : public TaskOf<DirectionTrainer, DirectionReader, DirectionReporter> {
 public:
  std::string name() const override { return "direction"; }
  std::string description() const override {
    return "which marked token is nearest before the query (or on either side)? one bidirectional head per scheme";
  }
  nlohmann::json defaults() const override { return {{"task", "direction"}, {"alibi_slopes", {0.5}}}; }
  std::vector<KeySpec> keys() const override {
    std::vector<KeySpec> keys = cue_stream_keys();
    keys.push_back({"direction_rule", KeyType::String, "before",
                    "the answer: before (the symbol of the nearest marked token before the query; signed) or nearest "
                    "(the nearest marked token on either side; unsigned). The heads are always bidirectional",
                    1});
    return keys;
  }
  void validate(const nlohmann::json& cfg) const override {
    const nlohmann::json v = cfg.value("direction_rule", nlohmann::json("before"));
    if (v != "before" && v != "nearest")
      throw ConfigError(fmt::format("key 'direction_rule': {} is not before or nearest", v.dump()));
    auto check = [](const std::string& key, const nlohmann::json& n) {
      if (n.is_number_integer() && n.get<int>() < kDirectionMinLength)
        throw ConfigError(
            fmt::format("key '{}': the direction task needs at least {} tokens (a query with two "
                        "content tokens on each side), not {}",
                        key, kDirectionMinLength, n.get<int>()));
    };
    check("train_length", cfg.value("train_length", nlohmann::json(32)));
    for (auto& n : cfg.value("eval_lengths", nlohmann::json::array())) check("eval_lengths", n);
  }
  int n_heads(const ExperimentConfig&) const override { return 1; }
  int n_layers(const ExperimentConfig&) const override { return 1; }
};

}  // namespace

const Task& direction_task() {
  static const DirectionTask t;
  return t;
}

}  // namespace pe
