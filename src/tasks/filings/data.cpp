#include "tasks/filings/data.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "core/rng.h"

namespace pe {

namespace {
constexpr uint64_t kFilingsStream = 0xF1;  // keeps the windows' streams apart from the cue stream's
}

CueTaskConfig filings_head_task() {
  CueTaskConfig t;
  t.alphabet = kFilingsSymbols;
  t.mark_prob = 0;  // not a stream of random marks: the documents decide
  t.query_token = false;
  return t;
}

std::vector<int> filings_tokens(const FilingsDocument& d) {
  std::vector<int> x(d.symbols.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = d.symbols[i] + kFilingsSymbols * (d.marks[i] ? 1 : 0);
  return x;
}

CueBatch filings_train_batch(const std::vector<FilingsDocument>& docs, uint64_t seed, int step, int B, int T,
                             std::vector<FilingsWindow>* windows) {
  std::vector<int> usable;
  for (size_t i = 0; i < docs.size(); ++i)
    if (int(docs[i].words.size()) >= T) usable.push_back(int(i));
  if (usable.empty())
    throw DataError(fmt::format("filings: no training document has {} tokens (train_length); lower train_length", T));
  CueBatch batch;
  batch.B = B, batch.T = T, batch.every_position = true;
  batch.tokens.resize(size_t(B) * T);
  batch.targets.resize(size_t(B) * T);
  if (windows) windows->resize(B);
  for (int b = 0; b < B; ++b) {
    Rng rng(stream_key({kTagTrain, kFilingsStream, seed, uint64_t(step), uint64_t(b)}));
    const FilingsDocument& d = docs[size_t(usable[size_t(rng.below(int(usable.size())))])];
    const int start = rng.below(int(d.words.size()) - T + 1);
    if (windows) (*windows)[b] = {int(&d - docs.data()), start};
    int last = -1;  // the company named last inside the window
    for (int t = 0; t < T; ++t) {
      const size_t i = size_t(start + t);
      batch.tokens[size_t(b) * T + t] = d.symbols[i] + kFilingsSymbols * (d.marks[i] ? 1 : 0);
      if (d.marks[i]) last = d.symbols[i];
      batch.targets[size_t(b) * T + t] = last;
    }
  }
  return batch;
}

std::vector<int> filings_answer_ages(const FilingsDocument& d) {
  std::vector<int> age(d.words.size(), -1);
  int last = -1;
  for (size_t i = 0; i < age.size(); ++i) {
    if (d.marks[i]) last = int(i);
    if (last >= 0) age[i] = int(i) - last;
  }
  return age;
}

std::array<double, 2> most_named_so_far_accuracy(const std::vector<FilingsDocument>& docs, int far) {
  double hits = 0, far_hits = 0;
  long queries = 0, far_queries = 0;
  for (auto& d : docs) {
    const std::vector<int> targets = d.targets(), ages = filings_answer_ages(d);
    std::vector<int> count(kFilingsSymbols, 0);
    for (size_t t = 0; t < targets.size(); ++t) {
      if (d.marks[t]) ++count[size_t(d.symbols[t])];
      if (targets[t] < 0) continue;
      const int top = *std::max_element(count.begin(), count.end());
      const double hit =
          count[size_t(targets[t])] == top ? 1.0 / double(std::count(count.begin(), count.end(), top)) : 0.0;
      hits += hit, ++queries;
      if (ages[t] > far) far_hits += hit, ++far_queries;
    }
  }
  return {queries ? hits / double(queries) : 0.0, far_queries ? far_hits / double(far_queries) : 0.0};
}

}  // namespace pe
