// The cue task as a registry entry (harness/task.h): the tournament's task — which marked token came
// last? — read by one attention head (models/cue_head.h), trained at 32 and read at 32..256.
#include <fmt/format.h>

#include "core/errors.h"
#include "core/files.h"
#include "core/parallel.h"
#include "harness/random_positions.h"
#include "harness/task.h"
#include "models/attention_stats.h"
#include "tasks/cue/checkpoint.h"
#include "tasks/cue/compare.h"
#include "tasks/cue/data.h"
#include "tasks/cue/evaluation.h"
#include "tasks/cue/geometry.h"
#include "tasks/cue/gradcheck.h"
#include "tasks/cue/training.h"

namespace pe {

namespace {

class CueTrainer final : public TaskTrainer {
 public:
  bool parallel_runs() const override { return true; }  // a run takes about a second on one thread

  TrainedRun train(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                   Progress& progress) const override {
    const auto out = train_cue(e, resolved, scheme, seed, [&](int step, int steps, double loss, double acc) {
      progress.update(
          fmt::format("[train {} seed {}] step {}/{} loss {:.4f} acc {:.3f}", scheme, seed, step, steps, loss, acc));
    });
    return head_task_run(out, scheme, seed, "batch");
  }
  std::vector<GradCheckRow> gradcheck(const std::string& scheme) const override { return gradcheck_cue(scheme); }
};

class CueReader final : public TaskReader {
 public:
  nlohmann::json evaluate(const std::vector<std::string>& checkpoints, const ExperimentConfig& e,
                          bool progress) const override {
    const EvalSettings s{e.eval_lengths, e.value("test_sequences"), e.value("test_seed"), e.maps};
    nlohmann::json results = results_json(evaluate_checkpoints(checkpoints, s, progress), s);
    results["experiment"] = e.resolved;
    return results;
  }
  // The query row of the shared test sequences at `length` (the head reads only there).
  nlohmann::json attention_stats(const std::string& checkpoint, const MapSpec& map, int length, int sequences,
                                 const ExperimentConfig& e) const override {
    LoadedCheckpoint cp = load_checkpoint(checkpoint);
    note_positions_read(cp, "analyze attention");
    const int train = cp.meta.at("training").value("train_length", 0);
    cp.model->scheme().read_with(map, train, length);
    if (!cp.model->scheme().can_read(length - 1)) return {{"readable", false}};  // past its table
    cp.model->prepare(length);
    const CueBatch test =
        cue_test_set(cp.model->config().task, uint64_t(e.value("test_seed").get<int>()), length, sequences);
    AttentionStats stats(1, 1, train, length);
    constexpr int kChunk = 100;
    for (int b0 = 0; b0 < test.B; b0 += kChunk)
      add_cue_head_rows(*cp.model, &test.tokens[size_t(b0) * length], std::min(kChunk, test.B - b0), length, stats);
    nlohmann::json j = stats.to_json();
    j["scheme"] = cp.model->scheme().name();
    j["seed"] = cp.meta.at("training").value("seed", 0);
    return j;
  }
  // The head reads at the last position (the query token), with a map at kappa = length / training length.
  void check_checkpoint(const std::string& checkpoint) const override { load_checkpoint(checkpoint); }
  std::unique_ptr<DoctorModel> doctor_model(const std::string& checkpoint) const override {
    return doctor_head(load_checkpoint(checkpoint));
  }
  CheckBatch check_batch(const std::string& checkpoint, const MapSpec& map, int length, uint64_t seed,
                         const std::string& mode) const override {
    return check_head_checkpoint(checkpoint, "cue", HeadInput{}, map, length, seed, false, mode);
  }
};

class CueReporter final : public TaskReporter {
 public:
  // With `analyze`: the trained heads' geometry at the lengths past training, into geometry.json.
  Analysis analyze(const std::vector<std::string>& checkpoints, const ExperimentConfig& e) const override {
    if (!e.value("analyze").get<bool>()) return {};
    std::vector<int> past;
    for (int n : e.eval_lengths)
      if (n > e.train_length) past.push_back(n);
    const nlohmann::json g =
        analyze_checkpoints(checkpoints, EvalSettings{past, e.value("test_sequences"), e.value("test_seed"), {}});
    return {format_geometry(g), {{"geometry.json", json_text(g)}}};
  }
  std::vector<std::string> analysis_files() const override { return {"geometry.json"}; }
  std::string compare(const nlohmann::json& results, const std::string& a, const std::string& b, int length,
                      const CompareSettings& settings) const override {
    return compare_cue_readers(results, a, b, length, settings);
  }
  std::string table(const nlohmann::json& results) const override { return format_results_table(results); }
  bool restate_intervals(nlohmann::json& results) const override {
    add_cue_intervals(results);
    return true;
  }
  std::string markdown(const nlohmann::json& results) const override {
    return format_results_markdown(results, results.value("reference", nlohmann::json()));
  }
};

class CueTask final : public TaskOf<CueTrainer, CueReader, CueReporter> {
 public:
  std::string name() const override { return "cue"; }
  std::string description() const override {
    return "which marked token came last? one attention head per scheme (the tournament)";
  }
  // The shared key table's defaults are the cue task's, but for ALiBi's one slope (the reference
  // rule's 2^-8 for one head is too shallow to read a 32-token window).
  nlohmann::json defaults() const override { return {{"task", "cue"}, {"alibi_slopes", {0.5}}}; }
  std::vector<KeySpec> keys() const override {
    std::vector<KeySpec> keys = cue_stream_keys();
    keys.insert(
        keys.end(),
        {
            for_reading({"analyze", KeyType::Bool, false,
                         "after evaluation, analyse the trained heads into <out_dir>/geometry.json"}),
            random_positions_key(),
            {"visibility", KeyType::String, "causal",
             "causal, or bidirectional: heads made for keys on both sides of their query, in their schemes' encoder "
             "forms (t5 and TUPE-R's two-sided buckets, alibi's symmetric bias; pe-bench schemes lists them). The cue "
             "task's query is its last token, so both see the same keys; a checkpoint records bidirectional",
             1},
        });
    return keys;
  }
  void validate(const nlohmann::json& cfg) const override {
    const nlohmann::json v = cfg.value("visibility", nlohmann::json("causal"));
    if (v != "causal" && v != "bidirectional")
      throw ConfigError(fmt::format("visibility: {} is not causal or bidirectional", v.dump()));
    check_random_positions(cfg);
  }
  int n_heads(const ExperimentConfig&) const override { return 1; }
  int n_layers(const ExperimentConfig&) const override { return 1; }
};

}  // namespace

const Task& cue_task() {
  static const CueTask t;
  return t;
}

}  // namespace pe
