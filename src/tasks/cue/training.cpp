#include "tasks/cue/training.h"

#include <fmt/format.h>

#include <chrono>

#include "core/adam.h"
#include "core/files.h"
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
  c.task.alphabet = e.alphabet;
  c.task.mark_prob = e.mark_prob;
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
                               const ProgressFn& progress, const Resumable& resumable) {
  const CueModelConfig mc = cue_model_config(e, scheme);
  return train_head(e, mc, seed, cue_batches(e, mc.task, seed), metrics_log, progress, resumable);
}

CueHead<float> train_head(const ExperimentConfig& e, const CueModelConfig& model_config, int seed,
                          const BatchSource& batches, json* metrics_log, const ProgressFn& progress,
                          const Resumable& resumable) {
  const ScopedFlushToZero ftz;
  CueHead<float> model(model_config);
  model.init(uint64_t(seed));
  model.prepare(e.train_length);
  const size_t n = model.layout().total();
  Adam<float> adam(n, AdamConfig{e.lr, e.beta1, e.beta2, e.eps, 0.0});
  int first = 1;
  if (resumable.start) {  // continue: the batches are named by (seed, step), so the step is the stream
    const TrainingState& s = *resumable.start;
    model.params() = s.params;
    adam.restore(s.adam_m, s.adam_v, s.adam_steps);
    const json& metrics = loop_field(s, "metrics", LoopField::Array);
    for (auto& line : metrics)  // the log so far: one object per logged step, all before this step
      if (!line.is_object() || !line.contains("step") || !line["step"].is_number_integer() ||
          line["step"].get<long long>() > s.step || !line.contains("loss") || !line["loss"].is_number() ||
          !line.contains("accuracy") || !line["accuracy"].is_number())
        throw CheckpointError(fmt::format("{}: loop.metrics holds {}, not a line of this run's log; remove the file "
                                          "to train that run from scratch",
                                          s.path, line.dump().substr(0, 60)));
    if (metrics_log) *metrics_log = metrics;
    first = s.step + 1;
  }
  const int B = e.batch_size;
  const int chunks = (B + kChunk - 1) / kChunk;
  std::vector<std::vector<float>> grads(chunks, std::vector<float>(n));
  std::vector<CueWorkspace<float>> ws(chunks);
  std::vector<BatchStats> stats(chunks);
  std::vector<float> grad(n);
  for (int step = first; step <= e.steps; ++step) {
    const CueBatch batch = batches(step);
    const int T = batch.T;
    const size_t per_row = batch.every_position ? size_t(T) : 1;  // targets per sequence
    const long queries = std::max(1L, batch.queries());
#pragma omp parallel for schedule(static) if (!in_parallel() && chunks > 1)
    for (int c = 0; c < chunks; ++c) {
      const ScopedFlushToZero ftz;
      const int b0 = c * kChunk, nb = std::min(kChunk, B - b0);
      std::fill(grads[c].begin(), grads[c].end(), 0.0f);
      stats[c] = model.forward_backward(&batch.tokens[size_t(b0) * T], &batch.targets[b0 * per_row], nb, T, queries,
                                        grads[c].data(), ws[c], 0, batch.every_position);
    }
    std::fill(grad.begin(), grad.end(), 0.0f);
    double loss = 0;
    int correct = 0;
    for (int c = 0; c < chunks; ++c) {
      for (size_t i = 0; i < n; ++i) grad[i] += grads[c][i];
      loss += stats[c].loss_sum;
      correct += stats[c].correct;
    }
    const double mean_loss = loss / queries, acc = double(correct) / queries;
    check_finite_step(step, mean_loss, model.layout(), model.params().data(), grad.data(), e.lr);
    adam.step(model.params().data(), grad.data());
    if (step % e.log_every == 0 || step == e.steps) {
      if (metrics_log) metrics_log->push_back({{"step", step}, {"loss", mean_loss}, {"accuracy", acc}});
      if (progress) progress(step, e.steps, mean_loss, acc);
    }
    if (resumable.checkpoints)
      resumable.checkpoints->after_step(step, [&] {
        return TrainingState{step, model.params(), adam.first_moment(), adam.second_moment(), adam.steps(),
                             json{{"metrics", metrics_log ? *metrics_log : json::array()}}, ""};
      });
  }
  check_finite_step<float>(e.steps, 0.0, model.layout(), model.params().data(), nullptr, e.lr);  // the last update
  return model;
}

TaskRun head_task_run(const TrainOutcome& out, const std::string& scheme, int seed, const std::string& batch) {
  const int trained = out.reused ? 0 : out.steps - out.resumed_at;
  TaskRun run{out.run_dir, out.checkpoint, "", {}, trained, out.reused, out.resumed_at};
  run.summary = out.reused ? fmt::format("kept {} (complete, same config): {} seed {}, final loss {:.4f}", out.run_dir,
                                         scheme, seed, out.final_loss)
                           : fmt::format("trained {} seed {}: {} steps{} in {:.2f} s ({:.0f} steps/s), final loss "
                                         "{:.4f}, {} accuracy {:.3f}",
                                         scheme, seed, trained, resumed_note(out.resumed_at), out.seconds,
                                         trained / out.seconds, out.final_loss, batch, out.final_accuracy);
  run.record = {{"scheme", scheme},
                {"seed", seed},
                {"steps", out.steps},
                {"final_loss", out.final_loss},
                {"final_accuracy", out.final_accuracy}};
  return run;
}

TrainOutcome train_cue(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                       const ProgressFn& progress) {
  const CueModelConfig mc = cue_model_config(e, scheme);
  return train_head_run(e, resolved, scheme, seed, mc, cue_batches(e, mc.task, seed), progress);
}

TrainOutcome train_head_run(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                            const CueModelConfig& model_config, const BatchSource& batches,
                            const ProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dir = run_dir_for(e, scheme, seed);
  const RunDirLock lock(dir);  // no other process writes this run meanwhile
  if (e.resume) {
    const json kept = complete_run_training(dir, run_config(resolved, scheme, seed));
    if (!kept.is_null()) {
      TrainOutcome out;
      out.run_dir = dir;
      out.checkpoint = dir + "/checkpoint.json";
      out.steps = kept.at("steps");
      out.final_loss = kept.at("final_loss");
      out.final_accuracy = kept.at("final_accuracy");
      out.reused = true;
      return out;
    }
  }
  const json cfg = run_config(resolved, scheme, seed);
  const std::string what = fmt::format("{} seed {}", scheme, seed);
  const StopScope stoppable;
  const StepCheckpoints checkpoints(dir, cfg, e.steps, e.checkpoint_every, what);
  checkpoints.before_start();
  Resumable resumable{&checkpoints, std::nullopt};
  if (e.resume)
    resumable.start = load_training_state(dir, cfg, CueHead<float>(model_config).layout().total(), e.steps);
  json log = json::array();
  const CueHead<float> model = train_head(e, model_config, seed, batches, &log, progress, resumable);
  TrainOutcome out;
  out.run_dir = dir;
  out.checkpoint = out.run_dir + "/checkpoint.json";
  out.steps = e.steps;
  out.resumed_at = resumable.start ? resumable.start->step : 0;
  out.final_loss = log.back()["loss"];
  out.final_accuracy = log.back()["accuracy"];
  std::string lines;
  for (auto& l : log) lines += l.dump() + "\n";
  const json training = {{"seed", seed},
                         {"steps", e.steps},
                         {"batch_size", e.batch_size},
                         {"lr", e.lr},
                         {"train_length", e.train_length},
                         {"final_loss", out.final_loss},
                         {"final_accuracy", out.final_accuracy}};
  write_run_dir(out.run_dir, cfg, lines, checkpoint_text(make_checkpoint(model, training, e.task)));
  remove_training_state(out.run_dir);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace pe
