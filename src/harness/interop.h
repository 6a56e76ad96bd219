// Models that leave pe-bench and come back (docs/interop.md): a checkpoint as a safetensors file in
// PyTorch's conventions plus a config.json, and back. The tensors take PyTorch names and
// orientations: a linear map's weight is [out, in] (pe-bench keeps [in, out] for its row vectors,
// so those are transposed), an embedding or position table stays [rows, dim]. config.json states the
// architecture, the scheme and its settings, the frequency plan, every tensor's conversion, and the
// pe-bench checkpoint's own fields, so that an export imports back to the same bytes.
#pragma once
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

struct ExportedModel {
  std::string safetensors;  // model.safetensors
  std::string config;       // config.json
};
// CheckpointError for an unreadable checkpoint.
ExportedModel export_checkpoint(const std::string& checkpoint_path);

// The checkpoint text that `dir`/config.json and `dir`/model.safetensors describe; DataError naming
// the file, or the tensor (missing, another shape, another dtype).
std::string import_checkpoint(const std::string& dir);

}  // namespace pe
