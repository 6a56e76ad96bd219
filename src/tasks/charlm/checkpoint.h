// The character LM's checkpoint: the shared envelope (harness/checkpoint.h) with task "charlm", the
// model section {vocab, d_model, n_heads, n_layers, embed_init_std}, the vocabulary (id -> token)
// and, after a fine-tune with a context-extension map, the frequency plan the weights were tuned under.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/checkpoint.h"
#include "models/block_stack.h"
#include "schemes/frequency_maps.h"

namespace pe {

nlohmann::json make_charlm_checkpoint(const BlockStack<float>& model, const std::vector<std::string>& vocab,
                                      const nlohmann::json& training, const nlohmann::json& frequency_plan = nullptr);
struct LoadedCharLM {
  std::unique_ptr<BlockStack<float>> model;  // with its frequency plan applied, if the file has one
  std::vector<std::string> vocab;
  std::optional<MapSpec> plan_map;  // none: the scheme's own frequencies
  int plan_train_length = 0, plan_read_length = 0;
  std::string corpus_sha1;  // training.corpus_sha1: the sha1 of the text it was trained on ("": not recorded)
  nlohmann::json meta;
  std::string path;
};
LoadedCharLM load_charlm_checkpoint(const std::string& path);

}  // namespace pe
