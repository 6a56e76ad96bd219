// The character LM as a registry entry (tasks/task.h): TinyCharLM (tasks/charlm/model.h) on The
// Time Machine, validation perplexity at 128/256/512; RoPE also read through maps, fine-tuned and
// banded.
#include <fmt/format.h>

#include "core/parallel.h"
#include "tasks/charlm/training.h"
#include "tasks/task.h"

namespace pe {

namespace {

class CharLMTask final : public Task {
 public:
  std::string name() const override { return "charlm"; }
  std::string description() const override {
    return "a 2-block attention-only character LM on The Time Machine, perplexity at 128/256/512";
  }
  // tasks.md section 3: TinyCharLM on The Time Machine; the published table's schemes first.
  nlohmann::json defaults() const override {
    return {{"task", "charlm"},        {"seeds", {0}},          {"steps", 3000},
            {"batch_size", 64},        {"lr", 1e-3},            {"train_length", 128},
            {"eval_lengths", {128, 256, 512}}, {"d_model", 128}, {"n_heads", 4},
            {"n_layers", 2},           {"embed_init_std", 0.02}, {"learned_rows", 512},
            {"alibi_slopes", nlohmann::json::array()},         {"rescale", {"pi", "selective"}},
            {"finetune_steps", 300}};
  }
  std::vector<std::string> leading_schemes() const override {
    return {"learned", "sinusoidal", "rope", "alibi", "none"};
  }
  std::vector<std::string> own_keys() const override {
    return {"n_heads",         "n_layers",        "weight_decay",   "corpus",      "train_windows",
            "val_start",       "val_windows",     "eval_batch",     "finetune_steps", "finetune_length",
            "finetune_batch",  "finetune_lr",     "band",           "position_window"};
  }
  int n_heads(const ExperimentConfig& e) const override { return e.n_heads; }
  int n_layers(const ExperimentConfig& e) const override { return e.n_layers; }

  TaskRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                Progress& progress) const override {
    const auto out = train_charlm(e, resolved, scheme, seed, [&](int step, int steps, double loss) {
      progress.update(fmt::format("[train charlm {} seed {}] step {}/{} loss {:.4f}", scheme, seed, step, steps, loss));
    });
    return {out.run_dir, out.checkpoint,
            fmt::format("trained charlm {} seed {}: {} steps in {:.1f} s ({:.0f} ms/step), final training loss {:.4f}",
                        scheme, seed, out.steps, out.seconds, 1e3 * out.seconds / out.steps, out.final_loss)};
  }

  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    nlohmann::json results = evaluate_charlm(checkpoints, e, progress);
    results["experiment"] = e.resolved;
    return results;
  }

  ExperimentReport run(const nlohmann::json& resolved, const RunControl& c) const override {
    set_threads(c.threads);
    const auto results = run_charlm_experiment(resolved, !c.quiet, c.resume);
    return {results, format_charlm_table(results)};
  }

  std::string table(const nlohmann::json& results) const override { return format_charlm_table(results); }
  // The reference travels inside a charlm results file.
  std::string markdown(const nlohmann::json& results, const nlohmann::json&) const override {
    return format_charlm_markdown(results);
  }
};

}  // namespace

const Task& charlm_task() {
  static const CharLMTask t;
  return t;
}

}  // namespace pe
