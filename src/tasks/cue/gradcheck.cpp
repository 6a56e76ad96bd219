// The cue head's gradient check (the tournament's model on the cue task's sequences).
#include "tasks/cue/gradcheck.h"

#include <algorithm>

#include "tasks/cue/data.h"

namespace pe {

std::vector<GradCheckRow> gradcheck_head(const std::string& name, const CueModelConfig& cfg, const CueBatch& batch) {
  CueHead<double> model(cfg);
  model.init(7);
  const int B = batch.B, T = batch.T;
  const int* rows = batch.query_rows.empty() ? nullptr : batch.query_rows.data();
  const int* positions = batch.position_range > 0 ? batch.positions.data() : nullptr;  // (0 .. T-1 when none)
  model.prepare(std::max(T, batch.position_range));
  CueWorkspace<double> ws;
  ws.query_rows = rows;
  ws.positions = positions;
  std::vector<double> grad(model.layout().total(), 0.0);
  model.forward_backward(batch.tokens.data(), batch.targets.data(), B, T, B, grad.data(), ws);
  auto loss = [&] {
    CueWorkspace<double> w;
    w.query_rows = rows;
    w.positions = positions;
    return model.forward(batch.tokens.data(), batch.targets.data(), B, T, w).loss_sum / B;
  };
  return compare_all(name, model.layout(), model.params(), grad, loss);
}

std::vector<GradCheckRow> gradcheck_cue(const std::string& scheme) {
  if (scheme_info(scheme).min_layers > 1) return {};  // the cue model has one layer
  CueModelConfig cfg;
  cfg.task.alphabet = 4;
  cfg.d_model = 8;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 10;  // tables of 10 rows (learned_rows 0: the training length)
  const int B = 3, T = 9;
  // denser marks so several keys matter
  CueTaskConfig task = cfg.task;
  task.mark_prob = 0.4;
  const CueBatch batch = cue_train_batch(task, 11, 0, B, T);
  auto rows = gradcheck_head("cue/" + scheme, cfg, batch);
  // A query at its own row in every sequence (the query token moved there), read causally, and by a
  // head made bidirectional, which sees the keys after it too (its scheme's encoder form).
  CueBatch moved = batch;
  moved.query_rows = {4, 0, 6};
  for (int b = 0; b < B; ++b)
    std::swap(moved.tokens[size_t(b) * T + T - 1], moved.tokens[size_t(b) * T + moved.query_rows[b]]);
  for (const bool bidirectional : {false, true}) {
    CueModelConfig c = cfg;
    c.scheme.bidirectional = bidirectional;
    const std::string mode = bidirectional ? "bidirectional" : "query-row";
    for (GradCheckRow& r : gradcheck_head("cue " + mode + "/" + scheme, c, moved)) {
      r.mode = mode;
      rows.push_back(std::move(r));
    }
  }
  // Randomised positions: each sequence at its own sorted draw of [0, 16), tables of 16 rows.
  CueModelConfig drawn = cfg;
  drawn.scheme.train_length = 16;
  CueBatch spread = batch;
  cue_random_positions(spread, 11, 0, 16);
  for (GradCheckRow& r : gradcheck_head("cue random-positions/" + scheme, drawn, spread)) {
    r.mode = "random-positions";
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace pe
