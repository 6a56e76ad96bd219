// The passkey task's settings, its model (the block stack, models/block_stack.h, over the passkey
// vocabulary), its checkpoint and one training run:
//   <runs_dir>/passkey/<scheme>/seed<N>/{config.json, metrics.jsonl, checkpoint.json}
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/keys.h"
#include "harness/config.h"
#include "harness/run.h"
#include "models/block_stack.h"
#include "tasks/passkey/data.h"

namespace pe {

std::vector<KeySpec> passkey_keys();
struct PasskeySettings {
  PasskeySpec spec;
  int n_heads = 4, n_layers = 2, depths = 11, cell_sequences = 100;
  std::string packing = "none";                 // harness/packing.h
  int doc_min_length = 16, packed_windows = 0;  // shortest packed document; packed test windows read
  int random_positions = 0;                     // harness/random_positions.h (0: positions 0 .. n-1)
  double weight_decay = 0, lr_floor = 0.1;
  uint64_t test_seed = 0;
};
PasskeySettings passkey_settings(const ExperimentConfig& e);
// ConfigError naming the key when a length cannot hold a passkey and one filler word.
void check_passkey_config(const nlohmann::json& cfg);

BlockStackConfig passkey_model_config(const ExperimentConfig& e, const std::string& scheme);

// The checkpoint: the shared envelope with task "passkey", the block stack's section, the passkey's
// shape ("passkey": symbols, alphabet, filler) and the token names.
nlohmann::json make_passkey_checkpoint(const BlockStack<float>& model, const PasskeySpec& spec,
                                       const nlohmann::json& training);
struct LoadedPasskey {
  std::unique_ptr<BlockStack<float>> model;
  PasskeySpec spec;
  int train_length = 0, seed = 0;
  int random_positions = 0;  // its training's record: read with positions drawn from [0, L) too (0: 0 .. n-1)
  std::string path;
};
LoadedPasskey load_passkey_checkpoint(const std::string& path);

// Trains one run from scratch (harness/run.h: --resume, stops, step states) and writes its directory.
TrainedRun train_passkey(const ExperimentConfig& e, const nlohmann::json& resolved, const std::string& scheme, int seed,
                         const std::function<void(int, int, double)>& progress = {});

}  // namespace pe
