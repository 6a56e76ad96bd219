// The cue head's gradient check (the tournament's model on the cue task's sequences).
#include "tasks/cue/gradcheck.h"

#include "models/cue_head.h"
#include "tasks/cue/data.h"

namespace pe {

std::vector<GradCheckRow> gradcheck_cue(const std::string& scheme) {
  if (scheme_info(scheme).min_layers > 1) return {};  // the cue model has one layer
  CueModelConfig cfg;
  cfg.task.alphabet = 4;
  cfg.d_model = 8;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 10;  // tables of 10 rows (learned_rows 0: the training length)
  CueHead<double> model(cfg);
  model.init(7);
  const int B = 3, T = 9;
  // denser marks so several keys matter
  CueTaskConfig task = cfg.task;
  task.mark_prob = 0.4;
  const CueBatch batch = cue_train_batch(task, 11, 0, B, T);
  model.prepare(T);
  CueWorkspace<double> ws;
  std::vector<double> grad(model.layout().total(), 0.0);
  model.forward_backward(batch.tokens.data(), batch.targets.data(), B, T, B, grad.data(), ws);
  auto loss = [&] {
    CueWorkspace<double> w;
    return model.forward(batch.tokens.data(), batch.targets.data(), B, T, w).loss_sum / B;
  };
  return compare_all("cue/" + scheme, model.layout(), model.params(), grad, loss);
}

}  // namespace pe
