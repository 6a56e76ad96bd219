// Self-describing checkpoints (docs/checkpoint-format.md): format name and version, model and scheme
// configuration, every parameter by name with shape and row-major data, and a training summary.
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tasks/charlm/model.h"
#include "tasks/cue/model.h"

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
// Throws CheckpointError (missing, not JSON, wrong format/version/task, names or shapes that differ).
LoadedCheckpoint load_checkpoint(const std::string& path);

// The character LM: the same format with task "charlm", the vocabulary (id -> token) and, after a
// fine-tune with a context-extension map, the frequency plan the weights were tuned under.
nlohmann::json make_charlm_checkpoint(const CharLM<float>& model, const std::vector<std::string>& vocab,
                                      const nlohmann::json& training, const nlohmann::json& frequency_plan = nullptr);
struct LoadedCharLM {
  std::unique_ptr<CharLM<float>> model;  // with its frequency plan applied, if the file has one
  std::vector<std::string> vocab;
  std::string plan_map;                  // empty: the scheme's own frequencies
  int plan_train_length = 0, plan_read_length = 0;
  nlohmann::json meta;
  std::string path;
};
LoadedCharLM load_charlm_checkpoint(const std::string& path);
// The task field of a checkpoint ("cue", "charlm"); CheckpointError when it is not a checkpoint.
std::string checkpoint_task(const std::string& path);
// Every checkpoint.json below dir (sorted); with a task, only that task's checkpoints. Throws
// UsageError when there is none.
std::vector<std::string> find_checkpoints(const std::string& dir, const std::string& task = "");

}  // namespace pe
