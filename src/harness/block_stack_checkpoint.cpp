#include "harness/block_stack_checkpoint.h"

#include "core/keys.h"

namespace pe {

using nlohmann::json;

json block_stack_section(const BlockStackConfig& c) {
  return {{"vocab", c.vocab},
          {"d_model", c.d_model},
          {"n_heads", c.n_heads},
          {"n_layers", c.n_layers},
          {"embed_init_std", c.embed_init_std}};
}

std::unique_ptr<BlockStack<float>> read_block_stack(const CheckpointReader& r) {
  const json& m = r.json_().at("model");
  BlockStackConfig cfg;
  cfg.vocab = checked_int32(m.at("vocab"), "model.vocab", 2, 1 << 20);
  cfg.d_model = checked_int32(m.at("d_model"), "model.d_model", 2, 1024);
  cfg.n_heads = checked_int32(m.at("n_heads"), "model.n_heads", 1, 64);
  cfg.n_layers = checked_int32(m.at("n_layers"), "model.n_layers", 1, 16);
  cfg.embed_init_std = m.at("embed_init_std");
  if (cfg.d_model % cfg.n_heads) throw r.fail("model sizes do not make sense");
  cfg.scheme = r.scheme();
  auto model = std::make_unique<BlockStack<float>>(cfg);
  r.params(model->layout(), model->params().data());
  return model;
}

}  // namespace pe
