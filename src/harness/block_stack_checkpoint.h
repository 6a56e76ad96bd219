// The block stack's model section in a checkpoint (harness/checkpoint.h), shared by the tasks whose
// model it is: {vocab, d_model, n_heads, n_layers, embed_init_std}.
#pragma once
#include <memory>

#include <nlohmann/json.hpp>

#include "harness/checkpoint.h"
#include "models/block_stack.h"

namespace pe {

nlohmann::json block_stack_section(const BlockStackConfig& c);
// The model a checkpoint's section describes, its parameters read (CheckpointError through r).
std::unique_ptr<BlockStack<float>> read_block_stack(const CheckpointReader& r);

}  // namespace pe
