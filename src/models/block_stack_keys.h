// The experiment keys of a block-stack model, declared once for every task whose model it is (a
// key two tasks declare must have one type and domain), and the check of its shape.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "core/keys.h"

namespace pe {

// n_heads, n_layers, weight_decay, checkpoint_every, with these defaults for n_heads and n_layers.
std::vector<KeySpec> block_stack_keys(int n_heads, int n_layers);
// ConfigError unless d_model splits into n_heads heads of even width (planes are coordinate pairs).
void check_block_stack_shape(const nlohmann::json& cfg);

}  // namespace pe
