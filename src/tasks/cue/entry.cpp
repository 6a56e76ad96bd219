// The cue task as a registry entry (tasks/task.h): the tournament's task — which marked token came
// last? — read by one attention head (tasks/cue/model.h), trained at 32 and read at 32..256.
#include <fmt/format.h>

#include "core/errors.h"
#include "core/parallel.h"
#include "tasks/cue/evaluation.h"
#include "tasks/cue/experiment.h"
#include "tasks/cue/training.h"
#include "tasks/task.h"

namespace pe {

namespace {

class CueTask final : public Task {
 public:
  std::string name() const override { return "cue"; }
  std::string description() const override {
    return "which marked token came last? one attention head per scheme (the tournament)";
  }
  // The shared key table's defaults are the cue task's, but for ALiBi's one slope (the reference
  // rule's 2^-8 for one head is too shallow to read a 32-token window).
  nlohmann::json defaults() const override { return {{"task", "cue"}, {"alibi_slopes", {0.5}}}; }
  std::vector<std::string> own_keys() const override {
    return {"alphabet", "mark_prob", "test_size", "test_seed", "analyze"};
  }
  void validate(const nlohmann::json& cfg) const override {
    if (cfg.value("n_heads", 1) != 1) throw ConfigError("the cue task's model has one head: n_heads must be 1");
  }
  int n_heads(const ExperimentConfig&) const override { return 1; }
  int n_layers(const ExperimentConfig&) const override { return 1; }

  TaskRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                Progress& progress) const override {
    const auto out = train_cue(e, resolved, scheme, seed, [&](int step, int steps, double loss, double acc) {
      progress.update(fmt::format("[train {} seed {}] step {}/{} loss {:.4f} acc {:.3f}", scheme, seed, step, steps,
                                  loss, acc));
    });
    return {out.run_dir, out.checkpoint,
            fmt::format("trained {} seed {}: {} steps in {:.2f} s ({:.0f} steps/s), final loss {:.4f}, batch accuracy "
                        "{:.3f}",
                        scheme, seed, out.steps, out.seconds, out.steps / out.seconds, out.final_loss,
                        out.final_accuracy)};
  }

  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    const EvalSettings s{e.eval_lengths, e.test_size, e.test_seed, e.rescale};
    return results_json(evaluate_checkpoints(checkpoints, s, progress), s);
  }

  ExperimentReport run(const nlohmann::json& resolved, const RunControl& c) const override {
    if (c.resume) throw UsageError("--resume applies to charlm experiments (the cue task trains in seconds)");
    const auto out = run_experiment(resolved, c.quiet, c.threads);
    std::string text = out.table;
    if (!out.geometry.empty()) text += "\n" + out.geometry + "\n";
    text += fmt::format("{} runs x {} steps trained in {:.2f} s ({:.0f} training steps/s overall); evaluation {:.2f} s\n",
                        out.runs, out.total_steps / std::max(1, out.runs), out.train_seconds,
                        out.total_steps / out.train_seconds, out.eval_seconds);
    return {out.results, text};
  }

  std::string table(const nlohmann::json& results) const override { return format_results_table(results); }
  std::string markdown(const nlohmann::json& results, const nlohmann::json& reference) const override {
    return format_results_markdown(results, reference);
  }
};

}  // namespace

const Task& cue_task() {
  static const CueTask t;
  return t;
}

}  // namespace pe
