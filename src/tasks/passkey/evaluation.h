// Reading passkey models: whole-passkey accuracy (every symbol right; greedy decoding gives the same
// answer, since a causal model's first wrong symbol is the first wrong argmax) and per-symbol accuracy
// (each symbol given the right ones before it) on a grid of lengths x depths, over one fixed test set
// per cell shared by every reader. RoPE is also read with each map of `rescale` (kappa = length /
// training length). Results: docs/tasks.md, "The passkey task".
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schemes/frequency_maps.h"
#include "tasks/passkey/training.h"

namespace pe {

struct PasskeyReadSettings {
  std::vector<int> lengths;
  std::vector<MapSpec> maps;
  int depths = 11, cell_sequences = 100;
  uint64_t test_seed = 777;
  // > 0: also read this many packed test windows at the training length (tasks/passkey/packed_reading.h),
  // documents of doc_min_length .. training length tokens
  int packed_windows = 0, doc_min_length = 16;
};
// Evenly spaced depths 0 .. 1 (one depth: 0.5).
std::vector<double> passkey_depths(int n);

nlohmann::json evaluate_passkey(const std::vector<std::string>& checkpoints, const PasskeyReadSettings& s,
                                bool show_progress);
// Adds each row's per-seed whole-passkey accuracy per length (seed_accuracy: the mean over depths),
// its 95% interval over the seeds and the cell_sequences x depths test items (lo, hi:
// stats::proportion_interval) and the method in words ("interval"); at the end of a reading and when
// `pe-bench table --restate` rewrites a committed file.
void add_passkey_intervals(nlohmann::json& results);
std::string format_passkey_table(const nlohmann::json& results);
std::string format_passkey_markdown(const nlohmann::json& results);
// Two readers at one length (whole-passkey accuracy averaged over depths): paired t over seeds.
std::string compare_passkey_readers(const nlohmann::json& results, const std::string& a, const std::string& b,
                                    int length);

}  // namespace pe
