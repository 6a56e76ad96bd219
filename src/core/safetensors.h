// The safetensors format (the Hugging Face ecosystem's tensor files), written and read here: an
// 8-byte little-endian header length N, N bytes of JSON header — per tensor {"dtype", "shape",
// "data_offsets": [begin, end]} relative to the data, and an optional "__metadata__" of strings —
// padded with spaces to a multiple of 8, then the raw little-endian data. pe-bench writes F32 only
// and reads F32 (a tensor of another dtype is refused by name).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pe {

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> data;  // row-major
};

// The file's bytes: tensors in the order given (offsets ascending), metadata as "__metadata__".
std::string safetensors_bytes(const std::vector<NamedTensor>& tensors,
                              const std::map<std::string, std::string>& metadata);

struct SafetensorsFile {
  std::vector<NamedTensor> tensors;  // in the order of their data offsets
  std::map<std::string, std::string> metadata;
  const NamedTensor* find(const std::string& name) const;
};
// Parses a file's bytes; DataError naming `path` (and the tensor) for a short or malformed file, a
// dtype other than F32, offsets that do not match the shape or overlap or leave gaps.
SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& path);

}  // namespace pe
