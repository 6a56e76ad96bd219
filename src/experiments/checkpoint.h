// Self-describing checkpoints (docs/checkpoint-format.md): format name and version, model and scheme
// configuration, every parameter by name with shape and row-major data, and a training summary.
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "models/cue_head.h"

namespace pe {

inline constexpr const char* kCheckpointFormat = "pe-bench-checkpoint";
inline constexpr int kCheckpointVersion = 1;

nlohmann::json scheme_config_to_json(const SchemeConfig& c);
SchemeConfig scheme_config_from_json(const nlohmann::json& j);

nlohmann::json make_checkpoint(const CueHead<float>& model, const nlohmann::json& training);
// The checkpoint as text: indented JSON with each parameter's data on one line.
std::string checkpoint_text(const nlohmann::json& checkpoint);

struct LoadedCheckpoint {
  std::unique_ptr<CueHead<float>> model;
  nlohmann::json meta;  // the whole file minus the parameters
  std::string path;
};
// Throws CheckpointError (missing, not JSON, wrong format/version, names or shapes that differ).
LoadedCheckpoint load_checkpoint(const std::string& path);

}  // namespace pe
