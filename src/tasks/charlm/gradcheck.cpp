// The character LM's gradient check: the block stack with a target at every row.
#include "tasks/charlm/gradcheck.h"

#include "core/rng.h"
#include "models/block_stack.h"

namespace pe {

std::vector<GradCheckRow> gradcheck_charlm(const std::string& scheme) {
  BlockStackConfig cfg;
  cfg.vocab = 7;
  cfg.d_model = 8;
  cfg.n_heads = 2;
  cfg.embed_init_std = 0.5;  // large enough that every path carries gradient
  cfg.scheme.name = scheme;
  cfg.scheme.train_length = 16;
  const int B = 2, T = 6, p0 = 3;
  Rng rng(stream_key({kTagCheck, 3}));
  std::vector<int> x(B * T), y(B * T);
  for (auto& v : x) v = rng.below(cfg.vocab);
  for (auto& v : y) v = rng.below(cfg.vocab);
  auto rows = gradcheck_block_stack_depths("charlm", cfg, 5, x, y, B, T, p0);
  cfg.n_layers = 2;  // Transformer-XL's segment memory (mem_len): 4 remembered rows per sequence and block
  cfg.scheme.settings = nlohmann::json::object();
  auto memory = gradcheck_block_stack_memory("charlm", cfg, 5, x, y, B, T, 4);
  rows.insert(rows.end(), memory.begin(), memory.end());
  // every batch mode: positions per token, packed documents, padding, bidirectional and prefix visibility
  auto modes = gradcheck_block_stack_modes("charlm", cfg, 5);
  rows.insert(rows.end(), modes.begin(), modes.end());
  return rows;
}

}  // namespace pe
