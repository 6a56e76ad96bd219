// Evaluation: accuracy of trained cue heads on the shared test stream (paired: every scheme and seed
// reads the same sequences at a given length), and the results JSON (docs/results-format.md).
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/cue_head.h"
#include "schemes/frequency_maps.h"
#include "tasks/cue/data.h"
#include "theory/exact_reader.h"

namespace pe {

struct EvalSettings {
  std::vector<int> lengths;
  int test_sequences = 10000;
  long long test_seed = 777;
  // Context-extension maps: each scheme that reads a frequency plan is also evaluated under each map
  // at kappa = n / training length (no retraining), as extra rows.
  std::vector<MapSpec> maps;
};

// Accuracy on `test`; nullopt when the scheme has no representation for its positions (learned
// table past its rows). Parallel over fixed chunks; the count is exact whatever the threads.
// p0: the first position of every sequence (default 0); a test set with positions of its own
// (CueBatch::positions) reads those instead. predictions (optional): [test.B] argmax classes.
std::optional<double> cue_accuracy(const CueHead<float>& model, const CueBatch& test, int p0 = 0,
                                   std::vector<int>* predictions = nullptr);

struct SeedResult {
  int seed = 0;
  std::string checkpoint;
  std::vector<std::optional<double>> accuracy;  // one per length
};
struct SchemeResult {
  std::string scheme;
  MapSpec map = identity_spec();
  std::vector<SeedResult> seeds;
};

// What an evaluation found: one row per scheme (and map), the checkpoints' task settings, and the
// no-position bag reader's rule scored on the very test sequences the heads read (per length).
struct Evaluation {
  std::vector<SchemeResult> rows;
  CueTaskConfig task;
  std::vector<double> bag_reader;
  int random_positions = 0;  // the checkpoints' randomised positions (every test sequence drew from [0, this))
};

// What a task reading cue heads draws and checks: its checkpoints' task, its test set at a length, and
// the no-position bag reader scored on it. The cue task's by default; a task of its own on the same head
// (one whose query sits inside each sequence, CueBatch::query_rows) gives its own.
struct HeadTestStream {
  std::string task = "cue";
  std::function<CueBatch(const CueTaskConfig&, uint64_t test_seed, int n, int count)> test_set = cue_test_set;
  std::function<double(const CueTaskConfig&, const CueBatch&)> bag_reader = cue_bag_reader_accuracy;
  // The best reader without positions at length n, exactly (by counting over the stream), where the
  // stream has one: the cue task's (theory/exact_reader.h); empty: none.
  std::function<double(const CueTaskConfig&, int n)> exact_reader = [](const CueTaskConfig& t, int n) {
    return cue_best_reader_without_positions(n, t.alphabet, t.mark_prob);
  };
};

// Evaluates the checkpoints (grouped by scheme, in registry order, seeds ascending).
Evaluation evaluate_checkpoints(const std::vector<std::string>& checkpoints, const EvalSettings& s, bool progress,
                                const HeadTestStream& stream = {});

// The results JSON of an evaluation (docs/results-format.md), of the stream's task (with the stream's
// exact best reader without positions beside the bag reader on the test set, where it has one).
nlohmann::json results_json(const Evaluation& ev, const EvalSettings& s, const HeadTestStream& stream = {});

// A row's accuracy at length li as the tables print it: "0.901 [0.887, 0.913]" (the mean and its 95%
// interval), the mean alone for files from before the intervals, "—" where a learned table has no row.
std::string accuracy_cell_text(const nlohmann::json& row, size_t li);
// A Markdown header: the leading columns, then one per length.
std::string lengths_header(const std::vector<std::string>& lead, const nlohmann::json& lengths);
// Adds each row's 95% interval of the accuracy (lo, hi per length: stats::proportion_interval over the
// seeds' accuracies on test_sequences items) and the method in words ("interval"), from the per-seed
// values the results hold; the same at the end of a run and when `pe-bench table --restate` rewrites a
// committed file.
void add_cue_intervals(nlohmann::json& results);
// Plain-text table: the mean over seeds per scheme, each seed's value under it, the exact reader.
std::string format_results_table(const nlohmann::json& results);
// Markdown with published figures (reference JSON, may be null) beside pe-bench's.
std::string format_results_markdown(const nlohmann::json& results, const nlohmann::json& reference);

}  // namespace pe
