#include "harness/run.h"

#include <chrono>

#include "core/errors.h"
#include "core/interrupt.h"
#include "harness/config.h"
#include "harness/run_dir.h"

namespace pe {

using nlohmann::json;

RunSpec experiment_run(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                       const std::string& what) {
  return RunSpec{run_dir_path(e.runs_dir, e.task, scheme, seed),
                 run_config(resolved, scheme, seed),
                 e.steps,
                 e.checkpoint_every,
                 what,
                 e.resume};
}

TrainedRun train_run(const RunSpec& spec, const std::function<std::unique_ptr<TrainingLoop>()>& make_loop) {
  const auto t0 = std::chrono::steady_clock::now();
  TrainedRun out;
  out.run_dir = spec.dir;
  out.checkpoint = spec.dir + "/checkpoint.json";
  out.steps = spec.steps;
  const RunDirLock lock(spec.dir);  // no other process writes this run meanwhile
  if (spec.resume) {
    const json kept = complete_run_training(spec.dir, spec.config);
    if (kept.is_object() && kept.contains("steps") && kept["steps"].is_number_integer() &&
        kept.contains("final_loss")) {
      out.training = kept;
      out.steps = kept["steps"].get<int>();
      out.kept = true;
      return out;
    }
  }
  const StopScope stoppable;
  const StepCheckpoints checkpoints(spec.dir, spec.config, spec.steps, spec.checkpoint_every, spec.what);
  checkpoints.before_start();
  const std::unique_ptr<TrainingLoop> loop = make_loop();
  int first = 1;
  if (spec.resume)
    if (auto s = load_training_state(spec.dir, spec.config, loop->n_params(), spec.steps)) {
      loop->resume(*s);
      first = s->step + 1;
    }
  out.resumed_at = first - 1;
  for (int step = first; step <= spec.steps; ++step) {
    loop->step(step);
    checkpoints.after_step(step, [&] { return loop->state(step); });
  }
  out.training = loop->training();
  write_run_dir(spec.dir, spec.config, loop->metrics_lines(), loop->checkpoint_text(out.training));
  remove_training_state(spec.dir);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace pe
