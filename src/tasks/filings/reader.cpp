#include "tasks/filings/reader.h"

#include <algorithm>

namespace pe {

void plan_for_document(CueHead<float>& m, const MapSpec& map, int train_length, int n) {
  m.scheme().read_with(map, train_length, n);
  m.prepare(n);
}

namespace {
std::vector<int> no_targets(size_t n) { return std::vector<int>(n, -1); }
}  // namespace

std::vector<int> read_one_pass(const CueHead<float>& m, const std::vector<int>& tokens, CueWorkspace<float>& ws,
                               std::vector<float>* logits) {
  const int n = int(tokens.size());
  std::vector<int> pred(n), targets = no_targets(n);
  m.forward(tokens.data(), targets.data(), 1, n, ws, pred.data(), 0, true);
  if (logits) logits->assign(ws.logits.begin(), ws.logits.begin() + size_t(n) * m.config().task.alphabet);
  return pred;
}

std::vector<int> read_per_position(const CueHead<float>& m, const std::vector<int>& tokens,
                                   std::vector<float>* logits) {
  const int n = int(tokens.size()), C = m.config().task.alphabet;
  std::vector<int> pred(n);
  if (logits) logits->resize(size_t(n) * C);
  CueWorkspace<float> ws;
  const int none = -1;
  for (int t = 0; t < n; ++t) {
    m.forward(tokens.data(), &none, 1, t + 1, ws, &pred[t]);
    if (logits) std::copy_n(ws.logits.begin(), C, logits->begin() + size_t(t) * C);
  }
  return pred;
}

std::vector<int> read_with_query_token(const CueHead<float>& m, const std::vector<int>& tokens) {
  const int n = int(tokens.size());
  std::vector<int> pred(n), seq;
  seq.reserve(n + 1);
  CueWorkspace<float> ws;
  const int none = -1;
  for (int t = 0; t < n; ++t) {
    seq.assign(tokens.begin(), tokens.begin() + t + 1);
    seq.push_back(m.config().task.query_token_id());
    m.forward(seq.data(), &none, 1, t + 2, ws, &pred[t]);
  }
  return pred;
}

}  // namespace pe
