#include "harness/head_loop.h"

#include <fmt/format.h>

#include <memory>

#include "core/adam.h"
#include "core/errors.h"
#include "core/params.h"
#include "harness/checkpoint.h"
#include "harness/task.h"
#include "harness/training_state.h"
#include "models/cue_head_trainer.h"

namespace pe {

using nlohmann::json;

namespace {

// The head's loop: the batches, the log and the run's records; the step itself is the model's trainer's.
class HeadLoop final : public TrainingLoop {
 public:
  HeadLoop(const ExperimentConfig& e, const CueModelConfig& model_config, int seed, BatchSource batches,
           HeadProgress progress)
      : e_(e),
        model_(model_config),
        trainer_(model_, AdamConfig{e.lr, e.beta1, e.beta2, e.eps, 0.0}),
        batches_(std::move(batches)),
        progress_(std::move(progress)),
        seed_(seed) {
    model_.init(uint64_t(seed));
  }
  size_t n_params() const override { return model_.layout().total(); }
  void resume(const TrainingState& s) override {
    // the batches are named by (seed, step), so the step is the stream
    model_.params() = s.params;
    trainer_.adam().restore(s.adam_m, s.adam_v, s.adam_steps);
    const json& metrics = loop_field(s, "metrics", LoopField::Array);
    for (auto& line : metrics)  // the log so far: one object per logged step, all before this step
      if (!line.is_object() || !line.contains("step") || !line["step"].is_number_integer() ||
          line["step"].get<long long>() > s.step || !line.contains("loss") || !line["loss"].is_number() ||
          !line.contains("accuracy") || !line["accuracy"].is_number())
        throw CheckpointError(
            fmt::format("{}: loop.metrics holds {}, not a line of this run's log; remove the file "
                        "to train that run from scratch",
                        s.path, line.dump().substr(0, 60)));
    log_ = metrics;
  }
  void step(int step) override {
    const bool logged = step % e_.log_every == 0 || step == e_.steps;
    // the loss only where it is logged (0 elsewhere)
    const CueStepStats st = trainer_.step(batches_(step), logged, step);
    if (logged) {
      log_.push_back({{"step", step}, {"loss", st.loss}, {"accuracy", st.accuracy}});
      if (progress_) progress_(step, e_.steps, st.loss, st.accuracy);
    }
    if (step == e_.steps)  // the last update
      check_finite_step<float>(e_.steps, 0.0, model_.layout(), model_.params().data(), nullptr, e_.lr);
  }
  TrainingState state(int step) const override {
    const Adam<float>& adam = trainer_.adam();
    return TrainingState{
        step, model_.params(), adam.first_moment(), adam.second_moment(), adam.steps(), json{{"metrics", log_}}, ""};
  }
  std::string metrics_lines() const override {
    std::string lines;
    for (auto& l : log_) lines += l.dump() + "\n";
    return lines;
  }
  json training() const override {
    json t = {{"seed", seed_},
              {"steps", e_.steps},
              {"batch_size", e_.batch_size},
              {"lr", e_.lr},
              {"train_length", e_.train_length},
              {"final_loss", log_.back()["loss"]},
              {"final_accuracy", log_.back()["accuracy"]}};
    // a task with randomised positions (harness/random_positions.h) records them: its readers draw them too
    if (e_.resolved.value("random_positions", 0) > 0) t["random_positions"] = e_.resolved.at("random_positions");
    return t;
  }
  std::string checkpoint_text(const json& training) const override {
    // the shared envelope around the head's own model section (CueModelConfig::to_json), for the run's task
    return pe::checkpoint_text(head_checkpoint(model_, training, e_.task));
  }
  CueHead<float>& model() { return model_; }
  const json& log() const { return log_; }

 private:
  const ExperimentConfig& e_;
  CueHead<float> model_;
  CueHeadTrainer trainer_;
  BatchSource batches_;
  HeadProgress progress_;
  int seed_;
  json log_ = json::array();
};

}  // namespace

json head_checkpoint(const CueHead<float>& model, const json& training, const std::string& task) {
  return checkpoint_envelope(task, model.config().to_json(), model.config().scheme, training, model.layout(),
                             model.params().data());
}

CueHead<float> train_head(const ExperimentConfig& e, const CueModelConfig& model_config, int seed,
                          const BatchSource& batches, json* metrics_log, const HeadProgress& progress) {
  HeadLoop loop(e, model_config, seed, batches, progress);
  for (int step = 1; step <= e.steps; ++step) loop.step(step);
  if (metrics_log) *metrics_log = loop.log();
  return std::move(loop.model());
}

TrainedRun head_task_run(TrainedRun out, const std::string& scheme, int seed, const std::string& batch) {
  const double final_accuracy = out.training.value("final_accuracy", 0.0);
  out.summary = out.kept ? fmt::format("kept {} (complete, same config): {} seed {}, final loss {:.4f}", out.run_dir,
                                       scheme, seed, out.final_loss())
                         : fmt::format(
                               "trained {} seed {}: {} steps{} in {:.2f} s ({:.0f} steps/s), final loss "
                               "{:.4f}, {} accuracy {:.3f}",
                               scheme, seed, out.trained(), resumed_note(out.resumed_at), out.seconds,
                               out.trained() / out.seconds, out.final_loss(), batch, final_accuracy);
  out.record = {{"scheme", scheme},
                {"seed", seed},
                {"steps", out.steps},
                {"final_loss", out.final_loss()},
                {"final_accuracy", final_accuracy}};
  return out;
}

TrainedRun train_head_run(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                          const CueModelConfig& model_config, const BatchSource& batches,
                          const HeadProgress& progress) {
  const RunSpec spec = experiment_run(e, resolved, scheme, seed, fmt::format("{} seed {}", scheme, seed));
  return train_run(spec, [&] { return std::make_unique<HeadLoop>(e, model_config, seed, batches, progress); });
}

}  // namespace pe
