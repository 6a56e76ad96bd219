#include "tasks/charlm/position_probe.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "core/fpenv.h"
#include "models/position_probe.h"
#include "tasks/charlm/checkpoint.h"
#include "tasks/charlm/training.h"

namespace pe {

nlohmann::json charlm_position_probe(const std::string& checkpoint, int length, int windows, bool initial,
                                     const ExperimentConfig& e) {
  LoadedCharLM cp = load_charlm_checkpoint(checkpoint);
  BlockStack<float>& model = *cp.model;
  const int seed = cp.meta.at("training").at("seed");
  if (length == 0) length = cp.meta.at("training").at("train_length");  // the length it was trained at
  if (initial) model.init(uint64_t(seed));                              // as train_charlm starts it
  if (!model.scheme().can_read(length - 1))
    throw UsageError(fmt::format("{}: the model has positions for only {} tokens; give --length {} or less", checkpoint,
                                 model.scheme().max_position() + 1, model.scheme().max_position() + 1));
  const CharCorpus corpus = load_experiment_corpus(e);
  const CharLMSettings cs = charlm_settings(e);
  const long fit_end = long(windows) * length + 1, test_end = long(cs.val_start) + long(windows) * length + 1;
  if (fit_end > cs.val_start || test_end > long(corpus.ids.size()))
    throw DataError(fmt::format(
        "corpus {} has {} characters: {} windows of {} need the training text below val_start {} and {} characters "
        "after it; give fewer --windows",
        corpus.path, corpus.ids.size(), windows, length, cs.val_start, long(windows) * length + 1));
  // position ranges: 0-7, then doubling (8-15, 16-31, ...), the last ending at length - 1
  std::vector<std::pair<int, int>> ranges;
  for (int lo = 0; lo < length; lo = lo == 0 ? 8 : lo * 2)
    ranges.push_back({lo, std::min(length, lo == 0 ? 8 : lo * 2) - 1});
  const int L = model.config().n_layers;
  PositionProbe probe(L + 1, model.config().d_model, ranges);
  std::vector<int> pos(length, 0);
  for (int t = 0; t < length; ++t) pos[size_t(t)] = t;
  model.prepare(length);
  const ScopedFlushToZero ftz;
  BlockStackCache<float> cache;
  const int batch = std::max(1, std::min(windows, kBlockStackChunkTokens / length));
  std::vector<int> x, y;
  for (const bool fit : {true, false})
    for (int w0 = 0; w0 < windows; w0 += batch) {
      const int nb = std::min(batch, windows - w0);
      x.resize(size_t(nb) * length), y.resize(size_t(nb) * length);
      for (int b = 0; b < nb; ++b) {
        const long start = (fit ? 0L : long(cs.val_start)) + long(w0 + b) * length;
        char_window(corpus, int(start), length, &x[size_t(b) * length], &y[size_t(b) * length]);
      }
      model.forward(x.data(), y.data(), nb, length, cache);
      probe.add(cache, nb, length, pos, fit);
    }
  return {{"checkpoint", checkpoint},
          {"scheme", model.scheme().name()},
          {"seed", seed},
          {"weights", initial ? "initial" : "trained"},
          {"length", length},
          {"windows", windows},
          {"train_length", cp.meta.at("training").at("train_length")},
          {"states", probe.fit_and_score()}};
}

}  // namespace pe
