#include "tasks/cue/training.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "harness/run_dir.h"
#include "tasks/cue/data.h"

namespace pe {

using nlohmann::json;

CueModelConfig cue_model_config(const ExperimentConfig& e, const std::string& scheme) {
  return head_model_config(e, scheme, e.value("visibility") == "bidirectional");
}

CueModelConfig head_model_config(const ExperimentConfig& e, const std::string& scheme, bool bidirectional) {
  CueModelConfig c;
  c.task.alphabet = e.value("alphabet");
  c.task.mark_prob = e.value("mark_prob");
  c.d_model = e.d_model;
  c.embed_init_std = e.embed_init_std;
  c.scheme = scheme_config(e, scheme);
  c.scheme.bidirectional = bidirectional;
  return c;
}

std::vector<KeySpec> cue_stream_keys() {
  return {
      {"alphabet", KeyType::Int, 8, "number of symbols", 2, 256},
      {"mark_prob", KeyType::Float, 0.1, "probability a content token is marked", 0, 1, true},
      for_reading({"test_sequences", KeyType::Int, 10000, "test sequences per length (shared by every scheme and seed)",
                   1, kMaxTestSequences}),
      for_reading(
          {"test_seed", KeyType::Int, 777, "seed of the test stream (shared by every scheme and seed)", 0, kMaxSeed}),
  };
}

std::string run_dir_for(const ExperimentConfig& e, const std::string& scheme, int seed) {
  return run_dir_path(e.runs_dir, e.task, scheme, seed);
}

namespace {
// With random_positions R, a learned table must hold every position drawn: R rows.
void check_cue_positions(const ExperimentConfig& e, const CueModelConfig& mc, const std::string& scheme) {
  const int range = e.resolved.value("random_positions", 0);
  if (range == 0) return;
  const CueHead<float> head(mc);
  if (!head.scheme().can_read(range - 1))
    throw ConfigError(fmt::format(
        "{}: the table has {} rows, but random_positions {} draws positions up to {} (set learned_rows to {})", scheme,
        head.scheme().max_position() + 1, range, range - 1, range));
}
}  // namespace

namespace {
// The training batches: fresh sequences every step, at positions 0 .. T-1 or, with random_positions R, each
// at its own sorted draw of [0, R).
BatchSource cue_batches(const ExperimentConfig& e, const CueTaskConfig& task, int seed) {
  const int range = e.resolved.value("random_positions", 0);
  return [=](int step) {
    CueBatch batch = cue_train_batch(task, uint64_t(seed), step, e.batch_size, e.train_length);
    if (range > 0) cue_random_positions(batch, uint64_t(seed), step, range);
    return batch;
  };
}
}  // namespace

CueHead<float> train_cue_model(const ExperimentConfig& e, const std::string& scheme, int seed, json* metrics_log,
                               const HeadProgress& progress) {
  const CueModelConfig mc = cue_model_config(e, scheme);
  check_cue_positions(e, mc, scheme);
  return train_head(e, mc, seed, cue_batches(e, mc.task, seed), metrics_log, progress);
}

TrainedRun train_cue(const ExperimentConfig& e, const json& resolved, const std::string& scheme, int seed,
                     const HeadProgress& progress) {
  const CueModelConfig mc = cue_model_config(e, scheme);
  check_cue_positions(e, mc, scheme);
  return train_head_run(e, resolved, scheme, seed, mc, cue_batches(e, mc.task, seed), progress);
}

}  // namespace pe
