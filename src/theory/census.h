// The wavelength census (docs/analyses.md "RoPE"): per plane of a RoPE head, its wavelength and turns
// over the training offsets, and each context-extension map's factor. Every map, its default list and
// what it adds beside its factors come from the map table (schemes/frequency_maps.h).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/frequencies.h"
#include "schemes/frequency_maps.h"

namespace pe::theory {

// Per plane: wavelength, turns over the training offsets 0..L-1, whether it completes a turn, and the
// factor theta'_j/theta_j of each map at each kappa; and each map's own census fields (the paper YaRN:
// its ramp bounds and logit scale per kappa). (docs/analyses.md uses d = 16, L = 32, kappa = 2, 4, 8;
// `pe-bench census` takes any.) Factors are keyed by "{:g}" of kappa.
nlohmann::json wavelength_census_report(int d = 16, int train_len = 32, double base = pe::kDefaultBase,
                                        const std::vector<double>& kappas = {2.0, 4.0, 8.0},
                                        const std::vector<MapSpec>& maps = default_census_maps());
// The census as a plain-text table.
std::string format_census(const nlohmann::json& census);

// What Transformers' RoPE initialiser returns for a written map (a --rope-scaling config turned into
// one, schemes/rope_scaling.h) on a head of width head_dim with rotary share `partial` (the rotary
// width is int(head_dim * partial), Transformers' meaning), base `base`, original length `original`,
// read at sequence length `length`: per plane the default and the scaled inverse frequency and their
// ratio, and the attention factor (cos and sin are multiplied by it; scores by its square). For a
// yarn-hf map, also the paper YaRN at kappa = factor and the code YaRN with truncate on and off.
nlohmann::json rope_scaling_census(const MapSpec& map, const std::string& rope_type, int head_dim, double partial,
                                   double base, int original, int length);
std::string format_rope_scaling_census(const nlohmann::json& census);

}  // namespace pe::theory
