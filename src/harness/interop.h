// Models that leave pe-bench and come back (docs/interop.md): a checkpoint as a safetensors file in
// PyTorch's conventions plus a config.json, and back. The tensors take PyTorch names and
// orientations: a linear map's weight is [out, in] (pe-bench keeps [in, out] for its row vectors,
// so those are transposed), an embedding or position table stays [rows, dim]. config.json states the
// architecture, the scheme and its settings, the frequency plan, every tensor's conversion, and the
// pe-bench checkpoint's own fields, so that an export imports back to the same bytes.
#pragma once
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe {

// The PyTorch name of a pe-bench tensor and whether its values are transposed on the way out.
// DataError for a name the table does not know (every scheme's tensors are in it: a test checks).
struct TorchTensorName {
  std::string name;
  bool transposed = false;
};
TorchTensorName torch_tensor_name(const std::string& pe_name);

// Writes into a config (config.json, check.json's reading) the Transformers rope_scaling dictionary
// of `map` read at kappa (schemes/rope_scaling.h; base=B: rope_theta B and no scaling), or, for a map
// Transformers has no rope_type for, a rope_scaling_note saying so.
void add_rope_scaling(nlohmann::json& into, const std::string& map, double kappa, int train_len, int head_dim,
                      double base);

// How an export lays out the rotated pairs of RoPE's queries and keys. Interleaved is pe-bench's own:
// pair j is channels (2j, 2j+1) of a head. SplitHalf is Transformers' rotate_half: pair j is channels
// (j, j + head_dim/2). A split-half export permutes each head's query and key rows of qkv.weight to
// [0, 2, 4, ..., 1, 3, 5, ...], so that a split-half reader computes the same logits. Only the layers
// whose scheme turns queries and keys are permuted (RoPE; a hybrid's RoPE layers). config.json's
// rope_layout names the layout, and import permutes the rows back.
enum class RopeLayout { Interleaved, SplitHalf };
// "interleaved" or "split-half"; UsageError naming the two otherwise.
RopeLayout parse_rope_layout(const std::string& name);

// The rows a split-half export permutes: those of the qkv tensors (block<l>.w_qkv, a head's w_qkv) of
// the layers whose scheme turns queries and keys, read from a checkpoint's scheme, model and training
// sections.
struct SplitHalfRows {
  std::set<int> layers;
  int n_heads = 0, d_head = 0;
  // data: the tensor in PyTorch's layout, [rows, cols] with rows = [W_Q; W_K; W_V] outputs. Permutes
  // its query and key rows to split-half order (back: from split-half order to pe-bench's); any other
  // tensor is left as it is.
  void permute(const std::string& pe_name, std::vector<float>& data, int rows, int cols, bool back) const;
};
SplitHalfRows split_half_rows(const nlohmann::json& checkpoint);

struct ExportedModel {
  std::string safetensors;  // model.safetensors
  std::string config;       // config.json
};
// CheckpointError for an unreadable checkpoint; UsageError for SplitHalf on a model with no layer
// that turns queries and keys.
ExportedModel export_checkpoint(const std::string& checkpoint_path, RopeLayout layout = RopeLayout::Interleaved);

// A check batch (models/check_batch.h) in the export's conventions: check.safetensors holds "logits"
// and "grad.<torch name>" for every tensor (transposed like the tensor), check.json the tokens,
// targets, loss, logits' shape and the reading (map, lengths, frequency plan). A batch read under a
// batch mode other than causal also gives "positions" and "documents" ([B, T], F32 whole numbers) and
// check.json their lists and "coordinates" (the mode and the visibility).
struct CheckBatch;
struct ExportedCheck {
  std::string safetensors;  // check.safetensors
  std::string json;         // check.json
};
// rows: a split-half export's (its query and key gradients are permuted like the tensors); null for
// pe-bench's own layout.
ExportedCheck export_check(const CheckBatch& batch, const SplitHalfRows* rows = nullptr);

// Reads a checkpoint as eval and sample do (harness/task.h, TaskReader::check_checkpoint);
// CheckpointError naming the file and the problem (an unknown task too).
void check_checkpoint_file(const std::string& path);

// Writes to `out` the checkpoint that `dir`/config.json and `dir`/model.safetensors describe, after
// checking every field of config.json's tensors list against pe-bench's conversion table (names,
// shapes, the transposed flag, each tensor once) and reading the checkpoint back as eval would
// (check_checkpoint_file) from a temporary: DataError "import: <file>: <problem>", and nothing written.
void import_checkpoint(const std::string& dir, const std::string& out);

}  // namespace pe
