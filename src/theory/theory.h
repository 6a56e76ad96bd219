// The geometry toolkit (docs/analyses.md items that need no trained model): one call computes everything,
// another renders it as plain-text tables. `pe-bench analyze theory` writes compute_all() to JSON.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace pe::theory {

// One JSON object, one key per analysis item, each with its parameters named beside its values:
// cue_baseline, causal_counter, sinusoidal_rotation, log_ruler, column_cosines, window_conditioning,
// relativity, t5_buckets, alibi_bound, rope_relative, rope_decay, rope_offset_distribution,
// wavelength_census, interpolation_bound, finite_precision.
nlohmann::json compute_all();

// Readable plain-text tables of everything in compute_all()'s result (missing sections are skipped).
std::string format_tables(const nlohmann::json& all);

}  // namespace pe::theory
