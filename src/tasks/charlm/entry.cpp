// The character LM as a registry entry (tasks/task.h): TinyCharLM (tasks/charlm/model.h) on The
// Time Machine, validation perplexity at 128/256/512; RoPE also read through maps, fine-tuned and
// banded.
#include <fmt/format.h>

#include "tasks/charlm/checkpoint.h"
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
            {"finetune_steps", 300},   {"checkpoint_every", 500}};
  }
  std::vector<std::string> leading_schemes() const override {
    return {"learned", "sinusoidal", "rope", "alibi", "none"};
  }
  std::vector<std::string> own_keys() const override {
    return {"n_heads",         "n_layers",        "weight_decay",   "corpus",      "train_windows",
            "val_start",       "val_windows",     "eval_batch",     "finetune_steps", "finetune_length",
            "finetune_batch",  "finetune_lr",     "band",           "position_window", "checkpoint_every"};
  }
  int n_heads(const ExperimentConfig& e) const override { return e.n_heads; }
  int n_layers(const ExperimentConfig& e) const override { return e.n_layers; }

  bool parallel_runs() const override { return false; }  // a run takes minutes and uses every thread

  TaskRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                Progress& progress) const override {
    const auto out = train_charlm(e, resolved, scheme, seed, [&](int step, int steps, double loss) {
      progress.update(fmt::format("[charlm] training {} seed {}: step {}/{} loss {:.4f}", scheme, seed, step, steps, loss));
    });
    TaskRun run{out.run_dir, out.checkpoint, "", {}, out.reused ? 0 : out.steps - out.resumed_at, out.reused,
                out.resumed_at};
    run.summary = out.reused ? fmt::format("kept {} (complete, same config): {} seed {}, final loss {:.3f}",
                                           out.run_dir, scheme, seed, out.final_loss)
                             : fmt::format("trained {} seed {}: {} steps{} in {:.0f} s ({:.0f} ms/step), final loss {:.3f}",
                                           scheme, seed, out.steps - out.resumed_at, resumed_note(out.resumed_at),
                                           out.seconds, 1e3 * out.seconds / (out.steps - out.resumed_at),
                                           out.final_loss);
    run.record = {{"scheme", scheme}, {"seed", seed}, {"steps", out.steps}, {"final_loss", out.final_loss}};
    return run;
  }

  // A scheme that reads its angles from a frequency plan is fine-tuned with each map (finetune_steps
  // steps at finetune_length), one run each, read after the map's reading of the run it started from.
  std::vector<TaskRun> follow_ups(const ExperimentConfig& e, const nlohmann::json& resolved, const TaskRun& run,
                                  Progress& progress) const override {
    std::vector<TaskRun> out;
    if (e.finetune_steps <= 0 || !load_charlm_checkpoint(run.checkpoint).model->scheme().accepts_frequency_plan())
      return out;
    const std::string scheme = run.record.at("scheme");
    const int seed = run.record.at("seed");
    for (auto& map : e.rescale) {
      const CharLMRun ft = finetune_charlm(e, resolved, run.checkpoint, map, [&](int step, int steps, double loss) {
        progress.update(fmt::format("[charlm] fine-tuning {}+{} seed {} at {}: step {}/{} loss {:.4f}", scheme, map,
                                    seed, e.finetune_length, step, steps, loss));
      });
      TaskRun r{ft.run_dir, ft.checkpoint, "", {}, ft.reused ? 0 : ft.steps - ft.resumed_at, ft.reused, ft.resumed_at};
      r.summary = fmt::format("{} {}+{} seed {} at {}: {} steps{} in {:.0f} s, final loss {:.3f}",
                              ft.reused ? "kept fine-tune" : "fine-tuned", scheme, map, seed, e.finetune_length,
                              ft.steps - ft.resumed_at, resumed_note(ft.resumed_at), ft.seconds, ft.final_loss);
      r.record = {{"scheme", scheme},
                  {"seed", seed},
                  {"finetune_map", map},
                  {"steps", ft.steps},
                  {"final_loss", ft.final_loss}};
      out.push_back(std::move(r));
    }
    return out;
  }

  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    nlohmann::json results = evaluate_charlm(checkpoints, e, progress);
    results["experiment"] = e.resolved;
    return results;
  }

  std::string compare(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                      const CompareSettings&) const override {
    return compare_charlm_readers(results, a, b, length);
  }

  std::string table(const nlohmann::json& results) const override { return format_charlm_table(results); }
  std::string markdown(const nlohmann::json& results) const override { return format_charlm_markdown(results); }
};

}  // namespace

const Task& charlm_task() {
  static const CharLMTask t;
  return t;
}

}  // namespace pe
