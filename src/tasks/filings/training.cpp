#include "tasks/filings/training.h"

#include "tasks/filings/data.h"
#include "tasks/filings/evaluation.h"

namespace pe {

CueModelConfig filings_model_config(const ExperimentConfig& e, const std::string& scheme) {
  CueModelConfig mc;
  mc.task = filings_head_task();
  mc.d_model = e.d_model;
  mc.embed_init_std = e.embed_init_std;
  mc.scheme = scheme_config(e, scheme);
  return mc;
}

BatchSource filings_windows(const ExperimentConfig& e, int seed) {
  const std::vector<FilingsDocument>& docs =
      filings_corpus(e.value("corpus_seed").get<uint64_t>(), e.value("corpus_version").get<int>()).train;
  return [&docs, seed, B = e.batch_size, T = e.train_length](int step) {
    return filings_train_batch(docs, uint64_t(seed), step, B, T);
  };
}

}  // namespace pe
