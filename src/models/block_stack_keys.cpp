#include "models/block_stack_keys.h"

#include "core/errors.h"

namespace pe {

std::vector<KeySpec> block_stack_keys(int n_heads, int n_layers) {
  return {
      {"n_heads", KeyType::Int, n_heads, "attention heads per block", 1, 64},
      {"n_layers", KeyType::Int, n_layers, "attention blocks", 1, 16},
      {"weight_decay", KeyType::Float, 0.0, "AdamW decoupled weight decay", 0, 1},
      {"checkpoint_every", KeyType::Int, 0,
       "also save a resumable training state every this many steps (0: only when stopped by SIGINT/SIGTERM); does "
       "not change results, so runs' config.json leave it out",
       0, 1000000},
  };
}

void check_block_stack_shape(const nlohmann::json& cfg) {
  const int d = cfg.at("d_model"), h = cfg.at("n_heads");
  if (d % h) throw ConfigError("d_model must be a multiple of n_heads");
  if ((d / h) % 2) throw ConfigError("d_model / n_heads must be even (planes are coordinate pairs)");
}

}  // namespace pe
