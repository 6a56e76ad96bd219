// The filings head's gradient check: the cue head in its causal form, answering at every position.
#include "tasks/filings/gradcheck.h"

#include "core/rng.h"
#include "models/cue_head.h"

namespace pe {

std::vector<GradCheckRow> gradcheck_head_every_position(const std::string& scheme) {
  if (scheme_info(scheme).min_layers > 1) return {};
  CueModelConfig cfg;
  cfg.task.alphabet = 4;
  cfg.task.query_token = false;
  cfg.d_model = 8;
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 10;
  CueHead<double> model(cfg);
  model.init(9);
  const int B = 2, T = 9, A = cfg.task.alphabet;
  // random content tokens, marked w.p. 0.4; the target at each position is the last marked symbol
  // at or before it, -1 before the first mark (not a query)
  Rng rng(stream_key({kTagCheck, 17}));
  std::vector<int> tokens(B * T), targets(B * T);
  for (int b = 0; b < B; ++b) {
    int last = -1;
    for (int t = 0; t < T; ++t) {
      const int sym = int(rng.below(A)), marked = rng.uniform() < 0.4;
      tokens[b * T + t] = sym + A * marked;
      if (marked) last = sym;
      targets[b * T + t] = last;
    }
  }
  long queries = 0;
  for (int t : targets) queries += (t >= 0);
  model.prepare(T);
  CueWorkspace<double> ws;
  std::vector<double> grad(model.layout().total(), 0.0);
  model.forward_backward(tokens.data(), targets.data(), B, T, queries, grad.data(), ws, 0, true);
  auto loss = [&] {
    CueWorkspace<double> w;
    return model.forward(tokens.data(), targets.data(), B, T, w, nullptr, 0, true).loss_sum / double(queries);
  };
  return compare_all("head-every/" + scheme, model.layout(), model.params(), grad, loss);
}

}  // namespace pe
