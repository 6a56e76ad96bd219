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
  auto rows = compare_all("cue/" + scheme, model.layout(), model.params(), grad, loss);
  // A query at its own row in every sequence (the query token moved there), read causally, and by a
  // head made bidirectional, which sees the keys after it too (its scheme's encoder form).
  const std::vector<int> query_rows{4, 0, 6};
  CueBatch moved = batch;
  for (int b = 0; b < B; ++b)
    std::swap(moved.tokens[size_t(b) * T + T - 1], moved.tokens[size_t(b) * T + query_rows[b]]);
  for (const bool bidirectional : {false, true}) {
    CueModelConfig c = cfg;
    c.scheme.bidirectional = bidirectional;
    CueHead<double> head(c);
    head.init(7);
    head.prepare(T);
    CueWorkspace<double> w;
    w.query_rows = query_rows.data();
    std::vector<double> g(head.layout().total(), 0.0);
    head.forward_backward(moved.tokens.data(), moved.targets.data(), B, T, B, g.data(), w);
    auto moved_loss = [&] {
      CueWorkspace<double> w2;
      w2.query_rows = query_rows.data();
      return head.forward(moved.tokens.data(), moved.targets.data(), B, T, w2).loss_sum / B;
    };
    const std::string mode = bidirectional ? "bidirectional" : "query-row";
    for (GradCheckRow& r : compare_all("cue " + mode + "/" + scheme, head.layout(), head.params(), g, moved_loss)) {
      r.mode = mode;
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

}  // namespace pe
