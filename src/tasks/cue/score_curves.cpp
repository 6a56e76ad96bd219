#include "tasks/cue/score_curves.h"

namespace pe {

namespace {

// Sequences of `length` tokens, one per marked symbol s: every key the marked token of s, the token at
// query_row (-1: the last) the query. Returns the query row's scores averaged over s, per key position:
// [length] (-infinity where the query cannot see the key).
std::vector<double> mean_query_scores(const CueHead<float>& model, int length, int p0, int query_row = -1) {
  const int q = query_row < 0 ? length - 1 : query_row;
  const CueTaskConfig& task = model.config().task;
  const int A = task.alphabet;
  std::vector<int> tokens(size_t(A) * length);
  for (int s = 0; s < A; ++s) {
    for (int t = 0; t < length; ++t) tokens[size_t(s) * length + t] = A + s;  // marked symbol s
    tokens[size_t(s) * length + q] = task.query_token_id();
  }
  CueWorkspace<float> ws;
  const std::vector<int> rows(size_t(A), q);
  if (query_row >= 0) ws.query_rows = rows.data();
  std::vector<float> scores;
  model.scores(tokens.data(), A, length, ws, scores, p0);  // [A, 1, length]
  std::vector<double> mean(static_cast<size_t>(length), 0.0);
  for (int s = 0; s < A; ++s)
    for (int n = 0; n < length; ++n) mean[size_t(n)] += double(scores[size_t(s) * length + n]) / A;
  return mean;
}

}  // namespace

std::vector<std::optional<double>> score_by_age(const CueHead<float>& model, int length, int* read) {
  int n = length;
  while (n > 1 && !model.scheme().can_read(n - 1)) --n;
  *read = n;
  const std::vector<double> mean = mean_query_scores(model, n, 0);
  std::vector<std::optional<double>> by_age(static_cast<size_t>(length));
  for (int r = 1; r < n; ++r) by_age[size_t(r)] = mean[size_t(n - 1 - r)];
  return by_age;
}

std::vector<double> score_by_offset(const CueHead<float>& model, int length, int query_row) {
  if (!model.scheme().can_read(length - 1)) return {};
  return mean_query_scores(model, length, 0, query_row);
}

std::vector<double> score_by_position(const CueHead<float>& model, int age, int last) {
  if (!model.scheme().can_read(last)) return {};
  std::vector<double> out;
  for (int p = age; p <= last; ++p) out.push_back(mean_query_scores(model, age + 1, p - age)[0]);
  return out;
}

}  // namespace pe
