// Inside a probe task (harness/probe_task.h): its checkpoint, and its reading, tables and comparison.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/probe_task.h"
#include "models/block_stack.h"
#include "schemes/frequency_maps.h"

namespace pe {

// The probe's shape from a resolved config (the values of its shape keys), and its source.
nlohmann::json probe_shape(const ProbeKind& kind, const ExperimentConfig& e);

// The checkpoint: the shared envelope with the probe's task name, the block stack's section, the shape
// ("probe") and the token names ("vocab").
nlohmann::json make_probe_checkpoint(const ProbeKind& kind, const BlockStack<float>& model, const nlohmann::json& shape,
                                     const nlohmann::json& training);
struct LoadedProbe {
  std::unique_ptr<BlockStack<float>> model;
  std::unique_ptr<ProbeSource> source;
  nlohmann::json shape;
  int train_length = 0, seed = 0;
  std::string path;
};
LoadedProbe load_probe_checkpoint(const ProbeKind& kind, const std::string& path);

// Test sequence i of the cell (length n, cell) of the shared test stream named by test_seed.
void probe_test_sequence(const ProbeSource& source, uint64_t test_seed, int n, int cell, int i, int* x, int* y,
                         int* slot);

struct ProbeReadSettings {
  std::vector<int> lengths;
  std::vector<MapSpec> maps;
  int cell_sequences = 100;
  uint64_t test_seed = 777;
};
nlohmann::json evaluate_probe(const ProbeKind& kind, const std::vector<std::string>& checkpoints,
                              const ProbeReadSettings& s, bool show_progress);
// Each row's per-seed accuracy per length (the mean over cells), its 95% interval over the seeds and the
// cell_sequences x cells test items (stats::proportion_interval) and the method ("interval").
void add_probe_intervals(nlohmann::json& results);
std::string format_probe_table(const nlohmann::json& results);
std::string format_probe_markdown(const nlohmann::json& results);
// Two readers at one length (accuracy averaged over cells): paired t over seeds.
std::string compare_probe_readers(const nlohmann::json& results, const std::string& a, const std::string& b,
                                  int length);

}  // namespace pe
