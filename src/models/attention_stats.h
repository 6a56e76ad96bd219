// What attention does inside and past the training length (pe-bench analyze attention): per layer
// and head, over every query row a task reads, the attention mass by distance (bins 0, 1, 2-3, 4-7,
// ..., doubling), the mass on the first token (the sink), each row's entropy beside ln(visible keys)
// (the most it could be; YaRN's attention factor exists because entropy grows with length), and the
// mass on keys at distances the model never saw in training (>= its training length). Tasks feed
// rows (Task::attention_rows); this file knows nothing of tasks.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe {

class AttentionStats {
 public:
  AttentionStats(int layers, int heads, int train_length, int max_length);
  // One query row: the query's position, its visible keys' positions (ascending) and probabilities.
  void add_row(int layer, int head, int qpos, const int* kpos, const float* p, int nk);
  // Per layer and head, and over every head: {"layer", "head", "rows", "distance_bins": [{"lo","hi","mass"}],
  // "sink_mass", "entropy", "max_entropy" (mean ln visible keys), "entropy_ratio" (mean of H / ln n over
  // rows with n >= 2), "beyond_training_mass"}.
  nlohmann::json to_json() const;
  static int bin_of(int distance);  // 0 -> 0, 1 -> 1, 2-3 -> 2, 4-7 -> 3, ...

 private:
  struct Cell {
    double rows = 0, sink = 0, entropy = 0, max_entropy = 0, ratio = 0, ratio_rows = 0, beyond = 0;
    std::vector<double> bins;
  };
  int layers_, heads_, train_length_, n_bins_;
  std::vector<Cell> cells_;  // [layer * heads + head]
};

// Every query row of a block stack reading B sequences x ([B, T], positions p0 ..) under vis: the
// model's attention probabilities, layer by layer and head by head (BlockStack::forward_keeping_probs).
template <class S>
class BlockStack;
struct Visibility;
void add_block_stack_rows(const BlockStack<float>& model, const int* x, int B, int T, int p0, const Visibility& vis,
                          AttentionStats& stats);
// The query row of a cue head (models/cue_head.h) reading B sequences x ([B, T], positions 0..T-1,
// the query at T-1): one row per sequence, layer 0, head 0, under the head's own window.
template <class S>
class CueHead;
void add_cue_head_rows(const CueHead<float>& model, const int* x, int B, int T, AttentionStats& stats);

// The JSON of several readings (one per reader and length) as a table: per reading and layer, over
// its heads: entropy / ln n, sink mass, mass beyond the training length.
std::string format_attention_table(const nlohmann::json& analysis);

}  // namespace pe
