#include "tasks/cue/training.h"

#include <fmt/format.h>

#include <memory>

#include "core/adam.h"
#include "core/files.h"
#include "harness/run.h"
#include "harness/run_dir.h"
#include "core/fpenv.h"
#include "core/interrupt.h"
#include "core/parallel.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/data.h"

namespace pe {

using nlohmann::json;

namespace {
constexpr int kChunk = 64;  // sequences per gradient chunk (fixed: results do not depend on threads)
}

CueModelConfig cue_model_config(const ExperimentConfig& e, const std::string& scheme) {
  CueModelConfig c;
  c.task.alphabet = e.value("alphabet");
  c.task.mark_prob = e.value("mark_prob");
  c.d_model = e.d_model;
  c.embed_init_std = e.embed_init_std;
  c.scheme = scheme_config(e, scheme);
  return c;
}

std::string run_dir_for(const ExperimentConfig& e, const std::string& scheme, int seed) {
  return run_dir_path(e.runs_dir, e.task, scheme, seed);
}

namespace {
BatchSource cue_batches(const ExperimentConfig& e, const CueTaskConfig& task, int seed) {
  return [=](int step) { return cue_train_batch(task, uint64_t(seed), step, e.batch_size, e.train_length); };
}
}  // namespace

CueHead<float> train_cue_model(const ExperimentConfig& e, const std::string& scheme, int seed, json* metrics_log,
                               const ProgressFn& progress) {
  const CueModelConfig mc = cue_model_config(e, scheme);
  return train_head(e, mc, seed, cue_batches(e, mc.task, seed), metrics_log, progress);
}

namespace {

// The single head's training loop (harness/run.h): Adam over fixed chunks of kChunk sequences.
class HeadLoop final : public TrainingLoop {
 public:
  HeadLoop(const ExperimentConfig& e, const CueModelConfig& model_config, int seed, BatchSource batches,
           ProgressFn progress, std::string task)
      : e_(e), model_(model_config), batches_(std::move(batches)), progress_(std::move(progress)),
        task_(std::move(task)), seed_(seed) {
    model_.init(uint64_t(seed));
    model_.prepare(e.train_length);
    n_ = model_.layout().total();
    adam_ = std::make_unique<Adam<float>>(n_, AdamConfig{e.lr, e.beta1, e.beta2, e.eps, 0.0});
    chunks_ = (e.batch_size + kChunk - 1) / kChunk;
    grads_.assign(chunks_, std::vector<float>(n_));
    ws_.resize(chunks_);
    stats_.resize(chunks_);
    grad_.resize(n_);
  }
  size_t n_params() const override { return n_; }
  void resume(const TrainingState& s) override {
    // the batches are named by (seed, step), so the step is the stream
    model_.params() = s.params;
    adam_->restore(s.adam_m, s.adam_v, s.adam_steps);
    const json& metrics = loop_field(s, "metrics", LoopField::Array);
    for (auto& line : metrics)  // the log so far: one object per logged step, all before this step
      if (!line.is_object() || !line.contains("step") || !line["step"].is_number_integer() ||
          line["step"].get<long long>() > s.step || !line.contains("loss") || !line["loss"].is_number() ||
          !line.contains("accuracy") || !line["accuracy"].is_number())
        throw CheckpointError(fmt::format("{}: loop.metrics holds {}, not a line of this run's log; remove the file "
                                          "to train that run from scratch",
                                          s.path, line.dump().substr(0, 60)));
    log_ = metrics;
  }
  void step(int step) override {
    const ScopedFlushToZero ftz;
    const int B = e_.batch_size;
    const CueBatch batch = batches_(step);
    const int T = batch.T;
    const size_t per_row = batch.every_position ? size_t(T) : 1;  // targets per sequence
    const long queries = std::max(1L, batch.queries());
    model_.prepare_tables(T, 0, batch.every_position, tables_);  // once for the step's chunks
    const bool logged = step % e_.log_every == 0 || step == e_.steps;
    for (auto& w : ws_) w.shared = &tables_, w.loss = logged;  // the loss only where it is logged
#pragma omp parallel for schedule(static) if (!in_parallel() && chunks_ > 1)
    for (int c = 0; c < chunks_; ++c) {
      const ScopedFlushToZero ftz_thread;
      const int b0 = c * kChunk, nb = std::min(kChunk, B - b0);
      std::fill(grads_[c].begin(), grads_[c].end(), 0.0f);
      stats_[c] = model_.chunk_backward(&batch.tokens[size_t(b0) * T], &batch.targets[b0 * per_row], nb, T, queries,
                                        grads_[c].data(), ws_[c], 0, batch.every_position);
    }
    std::fill(grad_.begin(), grad_.end(), 0.0f);
    double loss = 0;
    int correct = 0;
    for (int c = 0; c < chunks_; ++c) {
      for (size_t i = 0; i < n_; ++i) grad_[i] += grads_[c][i];
      if (c > 0) model_.add_table_grads(ws_[0], ws_[c]);
      loss += stats_[c].loss_sum;
      correct += stats_[c].correct;
    }
    model_.shared_tables_backward(ws_[0], grad_.data());  // once for the step's chunks
    const double mean_loss = loss / queries, acc = double(correct) / queries;  // the loss: 0 where not logged
    check_finite_step(step, mean_loss, model_.layout(), model_.params().data(), grad_.data(), e_.lr);
    adam_->step(model_.params().data(), grad_.data());
    if (logged) {
      log_.push_back({{"step", step}, {"loss", mean_loss}, {"accuracy", acc}});
      if (progress_) progress_(step, e_.steps, mean_loss, acc);
    }
    if (step == e_.steps)  // the last update
      check_finite_step<float>(e_.steps, 0.0, model_.layout(), model_.params().data(), nullptr, e_.lr);
  }
  TrainingState state(int step) const override {
    return TrainingState{step, model_.params(), adam_->first_moment(), adam_->second_moment(), adam_->steps(),
                         json{{"metrics", log_}}, ""};
  }
  std::string metrics_lines() const override {
    std::string lines;
    for (auto& l : log_) lines += l.dump() + "\n";
    return lines;
  }
  json training() const override {
    return {{"seed", seed_},
            {"steps", e_.steps},
            {"batch_size", e_.batch_size},
            {"lr", e_.lr},
            {"train_length", e_.train_length},
            {"final_loss", log_.back()["loss"]},
            {"final_accuracy", log_.back()["accuracy"]}};
  }
  std::string checkpoint_text(const json& training) const override {
    return pe::checkpoint_text(make_checkpoint(model_, training, task_));
  }
  CueHead<float>& model() { return model_; }
  const json& log() const { return log_; }

 private:
  const ExperimentConfig& e_;
  CueHead<float> model_;
  BatchSource batches_;
  ProgressFn progress_;
  std::string task_;
  int seed_;
  size_t n_ = 0;
  std::unique_ptr<Adam<float>> adam_;
  int chunks_ = 0;
  std::vector<std::vector<float>> grads_;
  CueTables<float> tables_;
  std::vector<CueWorkspace<float>> ws_;
  std::vector<BatchStats> stats_;
  std::vector<float> grad_;
  json log_ = json::array();
};

}  // namespace

CueHead<float> train_head(const ExperimentConfig& e, const CueModelConfig& model_config, int seed,
                          const BatchSource& batches, json* metrics_log, const ProgressFn& progress) {
  HeadLoop loop(e, model_config, seed, batches, progress, e.task);
  for (int step = 1; step <= e.steps; ++step) loop.step(step);
  if (metrics_log) *metrics_log = loop.log();
  return std::move(loop.model());
}

TrainedRun head_task_run(TrainedRun out, const std::string& scheme, int seed, const std::string& batch) {
  const double final_accuracy = out.training.value("final_accuracy", 0.0);
  out.summary = out.kept ? fmt::format("kept {} (complete, same config): {} seed {}, final loss {:.4f}", out.run_dir,
                                       scheme, seed, out.final_loss())
                         : fmt::format("trained {} seed {}: {} steps{} in {:.2f} s ({:.0f} steps/s), final loss "
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

TrainedRun train_cue(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                     const ProgressFn& progress) {
  const CueModelConfig mc = cue_model_config(e, scheme);
  return train_head_run(e, resolved, scheme, seed, mc, cue_batches(e, mc.task, seed), progress);
}

TrainedRun train_head_run(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                          const CueModelConfig& model_config, const BatchSource& batches, const ProgressFn& progress) {
  const RunSpec spec{run_dir_for(e, scheme, seed), run_config(resolved, scheme, seed), e.steps, e.checkpoint_every,
                     fmt::format("{} seed {}", scheme, seed), e.resume};
  return train_run(spec, [&] { return std::make_unique<HeadLoop>(e, model_config, seed, batches, progress, e.task); });
}

}  // namespace pe
