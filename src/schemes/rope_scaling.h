// A model's RoPE scaling as practitioners ship it: a whole Transformers config.json (v4's top-level
// rope_theta and rope_scaling, or v5's rope_parameters with rope_theta inside) or just the scaling
// dictionary ({"rope_type": "yarn", "factor": 4, ...}), turned into pe-bench's written map
// (frequency_maps.h), which records every field that decides the frequencies. docs/schemes.md
// "rope_scaling configs" gives the rules; the ones that differ between Transformers versions:
//   yarn, llama3, longrope  the original length N as v5 resolves it for either layout: the config's
//             top-level original_max_position_embeddings (Phi-3), else the dictionary's, else
//             max_position_embeddings (so the v4 and v5 layouts of one config give one map);
//   yarn      factor as given (v5: a null factor is max_position_embeddings / N);
//   dynamic   N = the config's max_position_embeddings (Transformers ignores the dictionary's
//             original_max_position_embeddings here); a bare dictionary: its own, else the training length;
//   longrope  a missing or null factor is max_position_embeddings / N (Phi-3's convention).
// Unknown rope_types and fields, missing required fields and out-of-range values are UsageErrors
// naming the field (Transformers warns on most of them; a harness should not read a typo).
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "schemes/frequency_maps.h"

namespace pe {

struct RopeScaling {
  std::string rope_type;  // as the config names it ("default" when it has no scaling)
  MapSpec map;            // the map it reads as, written "none", "pi:factor=4", "yarn-hf:factor=4:...", ...
  std::optional<double> rope_theta;
  std::optional<int> head_dim;
  double partial_rotary_factor = 1.0;
  std::optional<int> max_position_embeddings, original_max_position_embeddings;
};

// `what` names the source in messages (e.g. "--rope-scaling"). text: a path to a JSON file, or JSON
// itself (it starts with '{').
RopeScaling parse_rope_scaling(const std::string& text, const std::string& what);
RopeScaling rope_scaling_from_json(const nlohmann::json& j, const std::string& what);

// The way back: the Transformers (v4) rope_scaling dictionary of a written map read at kappa by a
// model of `base` trained at train_len — {"rope_type": ..., "factor": ..., ...}, the factor the map's
// own or kappa (at least 1), the original length the map's own or train_len. null for plain RoPE
// (the identity, or base=B: say it with rope_theta). rope_scaling_from_json of the result, with
// rope_theta = base, gives the same written map (a test checks every map that has a rope_type).
// Throws UsageError for a map with no Transformers rope_type (the paper maps ntk, yarn, selective;
// compress; dynamic-recompute): has_rope_type tells them apart first.
bool has_rope_type(const MapSpec& map);
// head_dim, base: the head's (longrope without lists writes pe-bench's default lists, which need them).
nlohmann::json rope_scaling_dict(const MapSpec& map, double kappa, int train_len, int head_dim, double base);

}  // namespace pe
